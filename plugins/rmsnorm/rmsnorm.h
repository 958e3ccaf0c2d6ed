/* rmsnorm: y = x / sqrt(mean(x^2) + eps) * w over the last dimension, in two versions:
 *   baseline  the unfused sequence a framework runs (square, mean, rsqrt, two multiplies), each a
 *             kernel with its intermediate in device memory;
 *   fused     the row-kernel skeleton (plugins/common/row_kernel.cuh) with the RMSNorm op: one read,
 *             one write, float accumulation, one rounding, its layout chosen per shape (row_plan.h).
 * With param.residual = 1 the case is the residual-add form models run between layers:
 *   h = x + r (an output too), y = rmsnorm(h) * w
 * (the baseline adds in a kernel of its own first). docs/notes/rmsnorm.md says what each path does. */
#ifndef RMSNORM_H
#define RMSNORM_H

#include <stddef.h>
#include <stdlib.h>

#include "klab/plugin.h"
#include "../common/row_plan.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { RMS_BASELINE = 0, RMS_FUSED };

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

/* r and h NULL: plain RMSNorm. Scratch: sq (rows*cols floats), inv (rows floats), t (rows*cols
   elements of d). Returns a cudaError_t as int. */
int rmsnorm_baseline_launch(klab_dtype d, const void *x, const void *r, const void *w, void *y, void *h, float *sq,
                            float *inv, void *t, size_t rows, size_t cols, float eps, klab_stream s);

/* The skeleton with plan p (r and h NULL: plain). */
int rmsnorm_fused_launch(klab_dtype d, const void *x, const void *r, const void *w, void *y, void *h, size_t rows,
                         size_t cols, float eps, const row_plan *p, klab_stream s);

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
