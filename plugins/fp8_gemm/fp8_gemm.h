/* fp8_gemm: D (m x n, bf16) = A (m x k) · W (n x k)^T from bf16 A and W (activations and an
 * nn.Linear weight, both K-major as PyTorch stores them), through fp8 e4m3 with fp32 accumulation:
 *
 *   bf16             cuBLASLt's bf16 GEMM of the same inputs: the error every fp8 row is set beside
 *   cublaslt         (baseline) cuBLASLt fp8, per-tensor scales, on A and W quantised in setup
 *   cublaslt_block   cuBLASLt fp8 with DeepSeek's scales (A per row and 128 columns, W per 128 x 128),
 *                    quantised in setup
 *   autoquant_lt     from bf16 each call: amax, then scale and cast (two launches for both operands),
 *                    then cuBLASLt fp8: what a quantise-each-call framework path does, fused where
 *                    klab's kernels can fuse it
 *
 * One function, one reference: every profile computes A · W^T of the bf16 inputs, and the float64
 * reference (on a fresh sample of the output each verified run) is that product of the bf16 values.
 * So an fp8 row's rel_l2_err is its whole error against the exact product of what the bf16 GEMM was
 * given: quantisation, accumulation and output rounding together; the bf16 row's is the bf16 GEMM's.
 * The error against the bf16 GEMM's output then lies within |e_fp8 - e_bf16| .. e_fp8 + e_bf16 (the
 * triangle inequality on the same sample's norm). docs/notes/fp8_gemm.md. */
#ifndef FP8_GEMM_H
#define FP8_GEMM_H

#include <stddef.h>
#include <stdint.h>

#include "klab/plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

/* profiles, in the descriptor's order */
enum { FG_BF16 = 0, FG_CUBLASLT, FG_CUBLASLT_BLOCK, FG_AUTOQUANT_LT, FG_NPROFILES };

typedef struct fp8_gemm_shape {
    int64_t m, n, k;
    int fast_accum; /* param.fast_accum: 1 (the default) or 0 */
} fp8_gemm_shape;

/* The case's dim.m, dim.n, dim.k and params. 0, or -1 with the reason naming the case and the limit:
   each dimension from 1 to 2^31 - 1, and k a multiple of 16 (fp8 rows of 16-byte vectors, cuBLASLt's
   fp8 alignment). Pure: setup() and work() use it. */
int fp8_gemm_shape_of(const klab_case *kcase, fp8_gemm_shape *s, char *why, size_t whylen);

/* The float64 D = X · W^T, X m x k and W n x k row-major: every element of D (m x n, row-major) when
   sample is NULL, else out[j] = element sample[j] for j < count. Shared with fused_gated_mlp. */
void gemm_reference_tn(const double *x, const double *w, size_t m, size_t n, size_t k, const size_t *sample,
                       size_t count, double *out);

#ifdef __cplusplus
}
#endif

#endif
