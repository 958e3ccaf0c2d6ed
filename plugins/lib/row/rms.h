/* RMSNorm on the host: the eps parameter and the float64 references, one definition for every plugin
 * that normalises rows (rmsnorm.so, rmsnorm_rope.so, decode_replay.so), so each takes param.eps the same
 * way and checks against the same result. The device side is rms_op.cuh. */
#ifndef KLAB_ROW_RMS_H
#define KLAB_ROW_RMS_H

#include <stddef.h>
#include <stdlib.h>

#include "klab/plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

#define RMS_DEFAULT_EPS 1e-6

/* param.eps (default RMS_DEFAULT_EPS) into *eps; an error naming the case where it is not in (0, 1).
   rmsnorm.so and rmsnorm_rope.so take the same key the same way. */
static inline klab_status rmsnorm_eps_of(klab_ctx *ctx, const klab_host *host, const klab_case *k, float *eps)
{
    const char *e = klab_case_param(k, "eps");
    double v = e ? strtod(e, NULL) : RMS_DEFAULT_EPS;
    if (!(v > 0 && v < 1))
        return host->error(ctx, "case %s: param.eps must be in (0, 1)", k->name);
    *eps = (float)v;
    return KLAB_OK;
}

/* The float64 results, rows on the host's threads (host and ctx: verify()'s; both NULL: this thread).
   The residual form: h = x + r, y = rmsnorm(h) * w. */
void rmsnorm_reference(const klab_host *host, klab_ctx *ctx, const double *x, const double *w, double *y, size_t rows,
                       size_t cols, double eps);
void rmsnorm_residual_reference(const klab_host *host, klab_ctx *ctx, const double *x, const double *r,
                                const double *w, double *y, double *h, size_t rows, size_t cols, double eps);

#ifdef __cplusplus
}
#endif

#endif
