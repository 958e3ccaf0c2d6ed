/* rmsnorm: y = x / sqrt(mean(x^2) + eps) * w over the last dimension, in two versions:
 *   baseline  the unfused sequence a framework runs (square, mean, rsqrt, two multiplies), each a
 *             kernel with its intermediate in device memory;
 *   fused     the row-kernel skeleton (plugins/lib/row/row_kernel.cuh) with the RMSNorm op: one read,
 *             one write, float accumulation, one rounding, its layout chosen per shape (row_plan.h).
 * With param.residual = 1 the case is the residual-add form models run between layers:
 *   h = x + r (an output too), y = rmsnorm(h) * w
 * (the baseline adds in a kernel of its own first). docs/notes/rmsnorm.md says what each path does. */
#ifndef RMSNORM_H
#define RMSNORM_H

#include <stddef.h>

#include "klab/plugin.h"
#include "row/rms.h"
#include "row/row_plan.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { RMS_BASELINE = 0, RMS_FUSED };

/* r and h NULL: plain RMSNorm. Scratch: sq (rows*cols floats), inv (rows floats), t (rows*cols
   elements of d). Returns a cudaError_t as int. */
int rmsnorm_baseline_launch(klab_dtype d, const void *x, const void *r, const void *w, void *y, void *h, float *sq,
                            float *inv, void *t, size_t rows, size_t cols, float eps, klab_stream s);

/* The skeleton with plan p (r and h NULL: plain). */
int rmsnorm_fused_launch(klab_dtype d, const void *x, const void *r, const void *w, void *y, void *h, size_t rows,
                         size_t cols, float eps, const row_plan *p, klab_stream s);

#ifdef __cplusplus
}
#endif

#endif
