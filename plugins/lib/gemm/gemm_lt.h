/* The cuBLASLt GEMMs the GEMM-family plugins compare against (fp8_gemm's baselines, fused_gated_mlp's
 * unfused and packed profiles): one shape of product, as PyTorch's nn.Linear computes it,
 *
 *     D (m x n, row-major, bf16) = X (m x k, row-major) · W (n x k, row-major)^T
 *
 * both operands K-major: the "TN" layout cuBLASLt's fp8 kernels require (and the fastest for bf16
 * too). In cuBLASLt's column-major terms: A = W with op T, B = X with op N, m' = n, n' = m, and D is
 * n' x m' column-major, which is D row-major. fp32 accumulation (CUBLAS_COMPUTE_32F), fp32 alpha.
 *
 * A plan is made once per case in setup (descriptors and the heuristic's algorithm, so run() only
 * enqueues); the operands, scales and output are given at each run (the host rotates copies). */
#ifndef GEMM_LT_H
#define GEMM_LT_H

#include <stddef.h>
#include <stdint.h>

#include "klab/plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum gemm_lt_in {
    GEMM_LT_BF16 = 0, /* X and W bf16, no scales */
    GEMM_LT_E4M3      /* X and W fp8 e4m3 with scales (gemm_lt_scaling) */
} gemm_lt_in;

typedef enum gemm_lt_scaling {
    GEMM_LT_TENSOR = 0, /* one fp32 scale per operand (device pointers) */
    GEMM_LT_BLOCK       /* X per row and 128 columns, W per 128 x 128 block, fp8_quant.h's layouts */
} gemm_lt_scaling;

typedef struct gemm_lt_shape {
    int64_t m, n, k;
    gemm_lt_in in;
    gemm_lt_scaling scaling; /* fp8 only */
    int fast_accum;          /* fp8, per tensor: CUBLASLT_MATMUL_DESC_FAST_ACCUM (no periodic promotion of
                                the tensor cores' partial sums to fp32); block scaling has none */
} gemm_lt_shape;

typedef struct gemm_lt gemm_lt; /* a cuBLASLt handle and its workspace */
typedef struct gemm_lt_plan gemm_lt_plan;

/* Each returns 0, or -1 with the reason in why. The handle allocates its workspace here (setup). */
int gemm_lt_open(gemm_lt **g, char *why, size_t whylen);
void gemm_lt_close(gemm_lt *g);

/* A plan for the shape: 0; 1 when cuBLASLt has no algorithm for it on this device (why says so: the
   caller skips); -1 on an error. fp8: xs and ws are scale tensors of the kind the runs will pass (the
   setup-time copies; each run sets its own): the heuristic must see non-NULL scale pointers, or it may
   pick a kernel that cannot apply scales (cublasLtMatmul then answers NOT_SUPPORTED), and a block scale
   mode without its pointer is INVALID_VALUE. NULL for bf16. */
int gemm_lt_plan_make(gemm_lt *g, const gemm_lt_shape *sh, const float *xs, const float *ws, gemm_lt_plan **p,
                      char *why, size_t whylen);
void gemm_lt_plan_free(gemm_lt_plan *p);

/* Enqueues D = X · W^T (scaled) on s. xs, ws: the scales (NULL for bf16). */
int gemm_lt_run(gemm_lt *g, gemm_lt_plan *p, const void *x, const void *w, const float *xs, const float *ws, void *d,
                klab_stream s, char *why, size_t whylen);

#ifdef __cplusplus
}
#endif

#endif
