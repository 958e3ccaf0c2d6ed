/* The e4m3 quantisation on the GPU, bf16 in (fp8_quant.h says the rules; the float32 steps are the
 * CPU reference's: inv = 448 / amax, x * inv, one saturating round-to-nearest-even cast).
 *
 * Per tensor the scale depends on the whole tensor, so it takes two passes over the inputs: an amax
 * launch, then a cast launch that reads the amax and writes the scale itself (no launch of its own
 * for the scale). Both launches do both operands, A and W, so a call is two launches, not four.
 * Per 128-block the block's amax is local: one pass, each block's threads load it once (16 bytes a
 * thread), reduce, scale and cast from registers. */
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>
#include <stdint.h>

#include "fp8_quant.h"

namespace {

constexpr int THREADS = 256;
constexpr int VEC = 8; /* bf16 a 16-byte load */

__device__ __forceinline__ float inv_scale(float amax)
{
    return amax > 0.f && isfinite(amax) ? FP8Q_E4M3_MAX / amax : 1.f;
}

__device__ __forceinline__ float scale_of(float amax)
{
    return amax > 0.f && isfinite(amax) ? amax / FP8Q_E4M3_MAX : 1.f;
}

__device__ __forceinline__ void unpack(uint4 v, float f[VEC])
{
    const __nv_bfloat162 *h = reinterpret_cast<const __nv_bfloat162 *>(&v);
#pragma unroll
    for (int i = 0; i < VEC / 2; i++) {
        float2 p = __bfloat1622float2(h[i]);
        f[2 * i] = p.x;
        f[2 * i + 1] = p.y;
    }
}

__device__ __forceinline__ float vec_amax(uint4 v)
{
    float f[VEC], m = 0.f;
    unpack(v, f);
#pragma unroll
    for (int i = 0; i < VEC; i++)
        m = fmaxf(m, fabsf(f[i]));
    return m;
}

/* 8 bf16 times inv, cast to 8 e4m3 bytes (saturating, nearest even) */
__device__ __forceinline__ uint2 cast8(uint4 v, float inv)
{
    float f[VEC];
    unpack(v, f);
    uint32_t w[2];
#pragma unroll
    for (int h = 0; h < 2; h++) {
        uint32_t lo = __nv_cvt_float2_to_fp8x2(make_float2(f[4 * h] * inv, f[4 * h + 1] * inv), __NV_SATFINITE, __NV_E4M3);
        uint32_t hi =
            __nv_cvt_float2_to_fp8x2(make_float2(f[4 * h + 2] * inv, f[4 * h + 3] * inv), __NV_SATFINITE, __NV_E4M3);
        w[h] = lo | (hi << 16);
    }
    return make_uint2(w[0], w[1]);
}

/* |x| >= 0, so its float bits order as integers do */
__device__ __forceinline__ void atomic_fmax(float *p, float v)
{
    atomicMax(reinterpret_cast<int *>(p), __float_as_int(v));
}

__device__ __forceinline__ float warp_max(float v, int width)
{
    for (int o = width / 2; o > 0; o /= 2)
        v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
}

/* Block-wide max; every thread gets it. Every warp reduces the warps' partials itself, each lane
   reading the partial of its own lane index: the lane, not threadIdx.x, or warps past the first read
   nothing and return 0 (the 128 x 128 cast then ran with factor 1 in warps 1..7). */
__device__ float block_max(float v)
{
    __shared__ float part[THREADS / 32];
    const unsigned lane = threadIdx.x % 32;
    v = warp_max(v, 32);
    if (lane == 0)
        part[threadIdx.x / 32] = v;
    __syncthreads();
    v = lane < THREADS / 32 ? part[lane] : 0.f;
    v = warp_max(v, 32);
    __syncthreads(); /* part may be reused by a later call */
    return v;
}

/* vectors [0, na) are a's, [na, na + nw) w's */
__global__ void __launch_bounds__(THREADS) amax2_kernel(const uint4 *__restrict__ a, size_t na,
                                                        const uint4 *__restrict__ w, size_t nw, float *amax)
{
    float ma = 0.f, mw = 0.f;
    for (size_t i = (size_t)blockIdx.x * THREADS + threadIdx.x; i < na + nw; i += (size_t)gridDim.x * THREADS) {
        if (i < na)
            ma = fmaxf(ma, vec_amax(a[i]));
        else
            mw = fmaxf(mw, vec_amax(w[i - na]));
    }
    ma = block_max(ma);
    mw = block_max(mw);
    if (threadIdx.x == 0) {
        atomic_fmax(&amax[0], ma);
        atomic_fmax(&amax[1], mw);
    }
}

__global__ void __launch_bounds__(THREADS) cast2_kernel(const uint4 *__restrict__ a, size_t na,
                                                        const uint4 *__restrict__ w, size_t nw,
                                                        const float *__restrict__ amax, uint2 *__restrict__ qa,
                                                        uint2 *__restrict__ qw, float *__restrict__ scale)
{
    const float ia = inv_scale(amax[0]), iw = inv_scale(amax[1]);
    if (blockIdx.x == 0 && threadIdx.x < 2)
        scale[threadIdx.x * FP8Q_SCALE_STRIDE] = scale_of(amax[threadIdx.x]);
    for (size_t i = (size_t)blockIdx.x * THREADS + threadIdx.x; i < na + nw; i += (size_t)gridDim.x * THREADS) {
        if (i < na)
            qa[i] = cast8(a[i], ia);
        else
            qw[i - na] = cast8(w[i - na], iw);
    }
}

/* Blocks [0, xblocks): x (m x k), a half-warp per (row, 128 columns), 16 of them a block. Blocks past
   them: w (n x k), one 128 x 128 block each, 8 vectors a thread held in registers between the amax and
   the cast. k is a multiple of 128. */
__global__ void __launch_bounds__(THREADS) block_kernel(const uint4 *__restrict__ x, size_t m, const uint4 *__restrict__ w,
                                                        size_t n, size_t k, unsigned xblocks, uint2 *__restrict__ qx,
                                                        float *__restrict__ sx, uint2 *__restrict__ qw,
                                                        float *__restrict__ sw)
{
    const size_t kb = k / FP8Q_BLOCK, vrow = k / VEC; /* 128-blocks and vectors in a row */
    if (blockIdx.x < xblocks) {
        const size_t unit = (size_t)blockIdx.x * (THREADS / 16) + threadIdx.x / 16; /* (row, kb) */
        const int lane = threadIdx.x % 16;
        const bool live = unit < m * kb;
        const size_t r = live ? unit / kb : 0, b = live ? unit % kb : 0;
        const size_t v = r * vrow + b * (FP8Q_BLOCK / VEC) + lane;
        uint4 val = live ? x[v] : make_uint4(0, 0, 0, 0);
        float amax = warp_max(vec_amax(val), 16); /* the xor partners stay within the half-warp */
        if (!live)
            return;
        qx[v] = cast8(val, inv_scale(amax));
        if (lane == 0)
            sx[b * m + r] = scale_of(amax);
        return;
    }
    const size_t blk = blockIdx.x - xblocks, rb = blk / kb, b = blk % kb;
    constexpr int PER = FP8Q_BLOCK * FP8Q_BLOCK / VEC / THREADS; /* 8 vectors a thread */
    constexpr int ROW_STEP = THREADS / (FP8Q_BLOCK / VEC);       /* rows between a thread's vectors */
    /* vector j of this thread: row r0 + j * ROW_STEP of the block, vector threadIdx.x % 16 of its 128
       columns; only the values stay in registers, the address is recomputed (no array of them) */
    const size_t r0 = rb * FP8Q_BLOCK + threadIdx.x / (FP8Q_BLOCK / VEC);
    const uint4 *src = w + r0 * vrow + b * (FP8Q_BLOCK / VEC) + threadIdx.x % (FP8Q_BLOCK / VEC);
    uint2 *dst = qw + (src - w);
    uint4 val[PER];
    float amax = 0.f;
#pragma unroll
    for (int j = 0; j < PER; j++) {
        val[j] = r0 + (size_t)j * ROW_STEP < n ? src[j * ROW_STEP * vrow] : make_uint4(0, 0, 0, 0);
        amax = fmaxf(amax, vec_amax(val[j]));
    }
    amax = block_max(amax);
    const float inv = inv_scale(amax);
#pragma unroll
    for (int j = 0; j < PER; j++)
        if (r0 + (size_t)j * ROW_STEP < n)
            dst[j * ROW_STEP * vrow] = cast8(val[j], inv);
    if (threadIdx.x == 0)
        sw[rb * ((kb + 3) / 4 * 4) + b] = scale_of(amax);
}

unsigned grid_for(size_t vectors, int sms)
{
    size_t want = (vectors + THREADS - 1) / THREADS, cap = (size_t)(sms > 0 ? sms : 1) * 8;
    return (unsigned)(want < cap ? (want ? want : 1) : cap);
}

} // namespace

extern "C" int fp8q_amax2_launch(const void *a, size_t na, const void *w, size_t nw, float *amax, int sms,
                                 klab_stream s)
{
    if (na % VEC || nw % VEC)
        return (int)cudaErrorInvalidValue;
    cudaError_t e = cudaMemsetAsync(amax, 0, 2 * sizeof(float), s);
    if (e != cudaSuccess)
        return (int)e;
    amax2_kernel<<<grid_for((na + nw) / VEC, sms), THREADS, 0, s>>>((const uint4 *)a, na / VEC, (const uint4 *)w,
                                                                    nw / VEC, amax);
    return (int)cudaGetLastError();
}

extern "C" int fp8q_cast2_launch(const void *a, size_t na, const void *w, size_t nw, const float *amax, uint8_t *qa,
                                 uint8_t *qw, float *scale, int sms, klab_stream s)
{
    if (na % VEC || nw % VEC)
        return (int)cudaErrorInvalidValue;
    cast2_kernel<<<grid_for((na + nw) / VEC, sms), THREADS, 0, s>>>((const uint4 *)a, na / VEC, (const uint4 *)w,
                                                                    nw / VEC, amax, (uint2 *)qa, (uint2 *)qw, scale);
    return (int)cudaGetLastError();
}

extern "C" int fp8q_block_launch(const void *x, size_t m, const void *w, size_t n, size_t k, uint8_t *qx, float *sx,
                                 uint8_t *qw, float *sw, klab_stream s)
{
    if (k % FP8Q_BLOCK || m == 0 || n == 0)
        return (int)cudaErrorInvalidValue;
    const size_t kb = k / FP8Q_BLOCK;
    const size_t xb = (m * kb + THREADS / 16 - 1) / (THREADS / 16), wb = (n + FP8Q_BLOCK - 1) / FP8Q_BLOCK * kb;
    if (xb + wb > 0x7fffffffu)
        return (int)cudaErrorInvalidConfiguration;
    block_kernel<<<(unsigned)(xb + wb), THREADS, 0, s>>>((const uint4 *)x, m, (const uint4 *)w, n, k, (unsigned)xb,
                                                         (uint2 *)qx, sx, (uint2 *)qw, sw);
    return (int)cudaGetLastError();
}
