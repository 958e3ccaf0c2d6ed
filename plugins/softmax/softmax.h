/* softmax: y = exp(x - max(x)) / sum(exp(x - max(x))) over the last dimension, in two versions:
 *   baseline  the unfused sequence: row max, subtract-exp, row sum, divide, each a kernel with its
 *             intermediate (the exponentials, in float) in device memory;
 *   fused     the row-kernel skeleton (plugins/lib/row/row_kernel.cuh) with the softmax op: one read and
 *             one write where the row fits on chip (registers of a block or of a cluster), the online
 *             two-pass form (running max and rescaled sum, then a second read) where it does not.
 * Inputs are uniform in [-spread, spread) (param.spread, default 100: exp(x) of the raw input would
 * overflow float, so a kernel that skips the max subtraction fails). docs/notes/softmax.md. */
#ifndef SOFTMAX_H
#define SOFTMAX_H

#include <stddef.h>

#include "klab/plugin.h"
#include "row/row_plan.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { SMX_BASELINE = 0, SMX_FUSED };

#define SMX_DEFAULT_SPREAD 100.0

/* Scratch: e (rows*cols floats), m and s (rows floats each). Returns a cudaError_t as int. */
int softmax_baseline_launch(klab_dtype d, const void *x, void *y, float *e, float *m, float *s, size_t rows,
                            size_t cols, klab_stream st);

/* The skeleton with plan p. */
int softmax_fused_launch(klab_dtype d, const void *x, void *y, size_t rows, size_t cols, const row_plan *p,
                         klab_stream st);

/* The float64 result, rows on the host's threads (host and ctx: verify()'s; both NULL: this thread). */
void softmax_reference(const klab_host *host, klab_ctx *ctx, const double *x, double *y, size_t rows, size_t cols);

#ifdef __cplusplus
}
#endif

#endif
