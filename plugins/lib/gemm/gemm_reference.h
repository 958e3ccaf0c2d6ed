/* The float64 TN GEMM the GEMM-family plugins verify against (fp8_gemm.so, fused_gated_mlp.so): D =
 * X · W^T, the product nn.Linear computes, on every element or on a sample of them. Pure C. */
#ifndef KLAB_GEMM_REFERENCE_H
#define KLAB_GEMM_REFERENCE_H

#include <stddef.h>

#include "klab/plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The float64 D = X · W^T, X m x k and W n x k row-major: every element of D (m x n, row-major) when
   sample is NULL, else out[j] = element sample[j] for j < count. Elements on the host's threads (host
   and ctx: verify()'s; both NULL: this thread). */
void gemm_reference_tn(const klab_host *host, klab_ctx *ctx, const double *x, const double *w, size_t m, size_t n,
                       size_t k, const size_t *sample, size_t count, double *out);

#ifdef __cplusplus
}
#endif

#endif
