/* The split plans' workspace for a shape (row_plan_split_bytes): made in a plugin's setup() on the host's
 * stream, zeroed there, freed in teardown(); NULL (and KLAB_OK) where the shape's space holds no split
 * plan. The row plugins that offer split plans (rmsnorm, softmax) pass it to rowk::launch. */
#ifndef ROW_WORKSPACE_H
#define ROW_WORKSPACE_H

#include "klab/plugin.h"
#include "row_plan.h"

#ifdef __cplusplus
extern "C" {
#endif

klab_status row_workspace_make(const klab_host *host, klab_ctx *ctx, const row_shape *s, void **ws);
void row_workspace_free(void *ws);

#ifdef __cplusplus
}
#endif

#endif
