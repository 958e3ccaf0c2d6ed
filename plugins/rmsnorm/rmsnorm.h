/* rmsnorm: y = x / sqrt(mean(x^2) + eps) * w over the last dimension, in two versions:
 *   baseline  the unfused sequence a framework runs (square, mean, rsqrt, two multiplies), each a
 *             kernel with its intermediate in device memory;
 *   fused     one pass: the row read once with 16-byte loads and kept in registers, float
 *             accumulation, one rounding of the output. */
#ifndef RMSNORM_H
#define RMSNORM_H

#include <stddef.h>

#include "klab/plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { RMS_BASELINE = 0, RMS_FUSED };

#define RMS_DEFAULT_EPS 1e-6

/* Scratch the baseline needs: sq (rows*cols floats), inv (rows floats), t (rows*cols elements of d). */
int rmsnorm_baseline_launch(klab_dtype d, const void *x, const void *w, void *y, float *sq, float *inv,
                            void *t, size_t rows, size_t cols, float eps, klab_stream s);

/* How the fused kernel launches, from the case's params (an autotuning sweep is a set of cases):
     param.threads   threads a row (default 0: up to 256); vectors a thread follow from it
     param.w_late    1 (default): load w after the reduction, holding fewer registers across it;
                     0: load it beside x
     param.prefetch  1: load x with a 256-byte L2 prefetch */
typedef struct rmsnorm_tuning {
    int threads;
    int w_late;
    int prefetch;
} rmsnorm_tuning;

int rmsnorm_fused_launch(klab_dtype d, const void *x, const void *w, void *y, size_t rows, size_t cols,
                         float eps, const rmsnorm_tuning *t, klab_stream s);

/* The float64 result. */
void rmsnorm_reference(const double *x, const double *w, double *y, size_t rows, size_t cols, double eps);

#ifdef __cplusplus
}
#endif

#endif
