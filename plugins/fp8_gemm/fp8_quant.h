/* fp8 e4m3 quantisation: the rules, once, for the CPU reference (fp8_quant_reference.c) and the GPU
 * kernels (fp8_quant_kernels.cu), which follow the same float32 arithmetic step by step.
 *
 * A value x of a block (a whole tensor, or one of its 128-element or 128x128 blocks) is stored as
 *     q = e4m3(x * (448 / amax))     and read back as     q * s,   s = amax / 448
 * with amax the block's largest |x|: the largest value lands on e4m3's largest finite 448, so no
 * value saturates and the block uses e4m3's whole range. amax 0 (an all-zero block) and a non-finite
 * amax give s = 1 (the quotient would be NaN or 0). The cast rounds to nearest, ties to even, and
 * saturates: |v| > 448 gives ±448 (e4m3 has no infinity; PyTorch's and cuBLASLt's convention,
 * __nv_cvt_float_to_fp8(..., __NV_SATFINITE, __NV_E4M3)); NaN gives NaN (0x7f, sign kept).
 *
 * Block layouts, as cuBLASLt reads them for D (m x n) = X (m x k) · W (n x k)^T, both K-major ("TN"):
 *   activations X, per row and 128 columns (1 x 128):  s[kb * m + r]       (cuBLASLt VEC128_32F,
 *                                                       the row index fastest)
 *   weights W, per 128 x 128 block:                     s[nb * kb4 + kb]    (cuBLASLt BLK128x128_32F,
 *                                                       kb4 = ceil(k / 128) rounded up to 4)
 * A last block short of 128 columns or rows is a block of its own (cuBLASLt's block modes want k a
 * multiple of 128: the plugin refuses other cases for them). */
#ifndef FP8_QUANT_H
#define FP8_QUANT_H

#include <stddef.h>
#include <stdint.h>

#include "klab/plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

#define FP8Q_E4M3_MAX 448.0f
#define FP8Q_BLOCK 128

/* The e4m3 byte nearest to v (ties to even), saturated to ±448; NaN gives 0x7f | sign. */
uint8_t fp8q_e4m3_encode(float v);
/* The value of an e4m3 byte (0x7f and 0xff are NaN). */
double fp8q_e4m3_decode(uint8_t q);

/* The dequantisation scale s of a block whose largest |x| is amax (1 for 0 or a non-finite amax). */
float fp8q_scale(float amax);
/* The factor the cast multiplies by: 448 / amax, 1 when fp8q_scale gives 1. */
float fp8q_inv_scale(float amax);

/* The number of 128-column blocks of k columns, and the weights' scale-row stride (kb rounded up to 4). */
size_t fp8q_kblocks(size_t k);
size_t fp8q_kblocks4(size_t k);

/* x (count floats) into q with one scale for all: *s. */
void fp8q_quantize_tensor(const float *x, size_t count, uint8_t *q, float *s);
/* x (rows x k, row-major) per row and 128 columns: s[kb * rows + r]. */
void fp8q_quantize_rows128(const float *x, size_t rows, size_t k, uint8_t *q, float *s);
/* x (rows x k, row-major) per 128 x 128 block: s[rb * fp8q_kblocks4(k) + kb] (the padding left as is). */
void fp8q_quantize_blocks128(const float *x, size_t rows, size_t k, uint8_t *q, float *s);

/* ---- the GPU kernels (fp8_quant_kernels.cu), bf16 in; each returns the launch's cudaError_t ---- */

/* amax[0] = max |a|, amax[1] = max |w| over a (na elements) and w (nw), one launch (amax zeroed first
   on the stream, so the launch is whole in itself and a graph can replay it). */
int fp8q_amax2_launch(const void *a, size_t na, const void *w, size_t nw, float *amax, int sms, klab_stream s);
/* Where the per-tensor scales lie: a's at scale[0], w's at scale[FP8Q_SCALE_STRIDE], 16 bytes on.
   cuBLASLt's fp8 matmul answered NOT_SUPPORTED at run time (H200, CUDA 13.0) for every per-tensor case
   when w's scale pointer was scale + 1, 4 bytes past a 256-byte boundary, while the block-scaled plans,
   whose scale tensors start on their own boundaries, ran: the likely cause is the pointer's alignment. */
#define FP8Q_SCALE_STRIDE 4
/* Casts a and w to e4m3 with the per-tensor scales of amax[0], amax[1] and writes those scales to
   scale[0], scale[FP8Q_SCALE_STRIDE]: one launch for both tensors. */
int fp8q_cast2_launch(const void *a, size_t na, const void *w, size_t nw, const float *amax, uint8_t *qa, uint8_t *qw,
                      float *scale, int sms, klab_stream s);
/* One pass, no amax beforehand: x (m x k) per row and 128 columns and w (n x k) per 128 x 128 block,
   each block's amax, scale and cast in the same threads. */
int fp8q_block_launch(const void *x, size_t m, const void *w, size_t n, size_t k, uint8_t *qx, float *sx, uint8_t *qw,
                      float *sw, klab_stream s);

#ifdef __cplusplus
}
#endif

#endif
