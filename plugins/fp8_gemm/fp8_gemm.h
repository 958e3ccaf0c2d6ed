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
 *   prequant         klab's wgmma GEMM (common/hopper_gemm.cuh), per-tensor scales, quantised in setup
 *   autoquant        from bf16 each call: the same two quantisation launches, then klab's GEMM
 *   prequant_block   klab's GEMM with DeepSeek's scales applied per 128-K block in the mainloop's
 *                    promotion hook, quantised in setup
 *   autoquant_block  from bf16 each call: one pass (each block's amax is its own), then that GEMM
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
enum {
    FG_BF16 = 0,
    FG_CUBLASLT,
    FG_CUBLASLT_BLOCK,
    FG_AUTOQUANT_LT,
    FG_PREQUANT,
    FG_AUTOQUANT,
    FG_PREQUANT_BLOCK,
    FG_AUTOQUANT_BLOCK,
    FG_NPROFILES
};

typedef struct fp8_gemm_shape {
    int64_t m, n, k;
    int fast_accum; /* param.fast_accum: 1 (the default) or 0 */
} fp8_gemm_shape;

/* The case's dim.m, dim.n, dim.k and params. 0, or -1 with the reason naming the case and the limit:
   each dimension from 1 to 2^31 - 1, and k a multiple of 16 (fp8 rows of 16-byte vectors, cuBLASLt's
   fp8 alignment). Pure: setup() and work() use it. */
int fp8_gemm_shape_of(const klab_case *kcase, fp8_gemm_shape *s, char *why, size_t whylen);

/* ---- klab's wgmma profiles: configurations of common/hopper_gemm.cuh ----
 * A variant is one kernel instantiation (fp8_gemm_wgmma.cu, in this order); a configuration is a variant
 * with a grid (one CTA a tile, or persistent: one an SM) and a split count (split-K through fp32
 * partials, for skinny shapes whose tiles leave SMs idle). Per-tensor variants scale the accumulators
 * once, in the epilogue; block variants (`block`) fold each 128-K block's product into fp32 with its
 * scales in the mainloop's promotion hook, which keeps a second accumulator: 128-column tiles only. */
enum {
    FW_128x256 = 0, FW_128x256_C2, FW_128x128, FW_64x256, FW_64x128, FW_128x128_B, FW_64x128_B, FW_64x64,
    FW_NVARIANTS
};

typedef struct fw_variant {
    int bm, bn, stages, consumers, cluster, block;
} fw_variant;
extern const fw_variant fw_variants[FW_NVARIANTS];

typedef struct fw_config {
    int variant;    /* FW_* */
    int persistent; /* 0: a CTA a tile; 1: one CTA a resident cluster slot (hg::grid_of), looping over tiles */
    int splits;     /* 1, or up to FW_MAX_SPLITS (64-row per-tensor variants only) */
    int epi;        /* 0: registers straight to global (epi=direct); 1: staged through shared memory and
                       written by TMA stores (epi=tma, common/hopper_store.cuh): 128 x 256 per-tensor
                       variants, n a multiple of 8 */
    int serial;     /* split-K's sum: 0, a second kernel (hg::splitk_reduce); 1, in the GEMM's own launch by
                       the tile's last split (hg::SerialSplitEpilogue, atomic tickets: fw_tickets) */
} fw_config;

/* the most K splits a configuration of the space asks for: the workspace holds this many partials */
#define FW_MAX_SPLITS 4

/* The two spaces: per-tensor scales (prequant, autoquant) and block scales (the _block profiles). */
typedef enum fw_scaling { FW_TENSOR = 0, FW_BLOCK } fw_scaling;

/* Configuration i of a space (0, 1, ...), or the plugin's own choice for the case (i = -1): 0, or -1
   past the last. The same space for every case. */
int fw_config_of(const fp8_gemm_shape *sh, fw_scaling sc, int index, fw_config *c);
/* Its name, "tile=128x256,cluster=2,persistent=1,splits=1,epi=direct" (static storage), or NULL past the
   last. */
const char *fw_config_name(fw_scaling sc, int index);
/* The configuration hooks (klab_profile.config) of the per-tensor and the block profiles. */
const char *fw_config_hook(const klab_case *kcase, int index);
const char *fw_block_config_hook(const klab_case *kcase, int index);

/* Bytes of fp32 partials a configuration needs for the shape (0 without split-K). */
size_t fw_workspace_bytes(const fp8_gemm_shape *sh, const fw_config *c);
/* The serial split-K tickets the space's configurations may use for the shape: 2 a tile of the
   smallest split tile (64 x 128). Zero before the first launch; each launch leaves them zero. */
size_t fw_tickets(const fp8_gemm_shape *sh);

/* Enqueues D (m x n bf16) = QA (m x k e4m3) · QW (n x k e4m3)^T scaled on the wgmma kernel of
   configuration c: per tensor, sa and sw are device scalars; block variants, fp8_quant.h's 1x128 and
   128x128 scale tensors (k a multiple of 128). ws: fw_workspace_bytes of fp32 space, or NULL; tickets:
   fw_tickets of zeroed counters, or NULL (then no serial split-K). Returns 0;
   1 when the configuration cannot do the case (why says so: a skip); -1 on a CUDA error. sm_90a. */
int fw_launch(const fp8_gemm_shape *sh, const fw_config *c, const void *qa, const void *qw, const float *sa,
              const float *sw, void *d, float *ws, unsigned *tickets, int sms, klab_stream s, char *why,
              size_t whylen);

/* The float64 D = X · W^T, X m x k and W n x k row-major: every element of D (m x n, row-major) when
   sample is NULL, else out[j] = element sample[j] for j < count. Shared with fused_gated_mlp. Elements
   on the host's threads (host and ctx: verify()'s; both NULL: this thread). */
void gemm_reference_tn(const klab_host *host, klab_ctx *ctx, const double *x, const double *w, size_t m, size_t n,
                       size_t k, const size_t *sample, size_t count, double *out);

#ifdef __cplusplus
}
#endif

#endif
