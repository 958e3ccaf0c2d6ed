/* The numerics klab's kernels share: float conversions of the three float dtypes, a 16-byte vector as
 * floats and back, a fast exp2, and the warp- and block-wide sum and max the unfused baselines use. The
 * row-kernel skeleton (row/row_kernel.cuh) builds on it; so do the row baselines, the reduction, the
 * gated kernels, matmul_h200's tiled kernel and decode_replay's, so a conversion is written once. */
#ifndef KLAB_CUDA_NUMERIC_CUH
#define KLAB_CUDA_NUMERIC_CUH

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>

template <typename T> __device__ __forceinline__ float to_f(T v) { return (float)v; }
template <> __device__ __forceinline__ float to_f<__half>(__half v) { return __half2float(v); }
template <> __device__ __forceinline__ float to_f<__nv_bfloat16>(__nv_bfloat16 v) { return __bfloat162float(v); }
template <typename T> __device__ __forceinline__ T from_f(float v) { return (T)v; }
template <> __device__ __forceinline__ __half from_f<__half>(float v) { return __float2half_rn(v); }
template <> __device__ __forceinline__ __nv_bfloat16 from_f<__nv_bfloat16>(float v) { return __float2bfloat16_rn(v); }

/* A 16-byte vector as floats and back, two elements an instruction for the 2-byte types
   (cvt.rn.bf16x2.f32 / cvt.rn.f16x2.f32): element-wise conversion cost bf16 rows 60 % more registers. */
template <typename T> struct vec16;
template <> struct vec16<float> {
    static constexpr int N = 4;
    __device__ static __forceinline__ void unpack(const uint4 &v, float *f)
    {
        f[0] = __uint_as_float(v.x), f[1] = __uint_as_float(v.y), f[2] = __uint_as_float(v.z), f[3] = __uint_as_float(v.w);
    }
    __device__ static __forceinline__ uint4 pack(const float *f)
    {
        return make_uint4(__float_as_uint(f[0]), __float_as_uint(f[1]), __float_as_uint(f[2]), __float_as_uint(f[3]));
    }
};
template <typename T2, float2 (*TO)(T2), T2 (*FROM)(float, float)> struct vec16_pairs {
    static constexpr int N = 8;
    __device__ static __forceinline__ void unpack(const uint4 &v, float *f)
    {
        const T2 *p = reinterpret_cast<const T2 *>(&v);
#pragma unroll
        for (int i = 0; i < 4; i++) {
            float2 t = TO(p[i]);
            f[2 * i] = t.x, f[2 * i + 1] = t.y;
        }
    }
    __device__ static __forceinline__ uint4 pack(const float *f)
    {
        uint4 v;
        T2 *p = reinterpret_cast<T2 *>(&v);
#pragma unroll
        for (int i = 0; i < 4; i++)
            p[i] = FROM(f[2 * i], f[2 * i + 1]);
        return v;
    }
};
__device__ __forceinline__ float2 h2_to_f2(__half2 v) { return __half22float2(v); }
__device__ __forceinline__ __half2 f2_to_h2(float a, float b) { return __floats2half2_rn(a, b); }
__device__ __forceinline__ float2 b2_to_f2(__nv_bfloat162 v) { return __bfloat1622float2(v); }
__device__ __forceinline__ __nv_bfloat162 f2_to_b2(float a, float b) { return __floats2bfloat162_rn(a, b); }
template <> struct vec16<__half> : vec16_pairs<__half2, h2_to_f2, f2_to_h2> {};
template <> struct vec16<__nv_bfloat16> : vec16_pairs<__nv_bfloat162, b2_to_f2, f2_to_b2> {};

/* The largest element of a 16-byte vector, compared in the dtype itself (paired max instructions for the
   2-byte types), so a max pass need not keep the vector unpacked into floats. */
template <typename T> __device__ __forceinline__ float vec_max(const uint4 &v);
template <> __device__ __forceinline__ float vec_max<float>(const uint4 &v)
{
    return fmaxf(fmaxf(__uint_as_float(v.x), __uint_as_float(v.y)), fmaxf(__uint_as_float(v.z), __uint_as_float(v.w)));
}
template <typename T2> __device__ __forceinline__ float2 pair_max(const uint4 &v, float2 (*to)(T2))
{
    const T2 *p = reinterpret_cast<const T2 *>(&v);
    return to(__hmax2(__hmax2(p[0], p[1]), __hmax2(p[2], p[3])));
}
template <> __device__ __forceinline__ float vec_max<__half>(const uint4 &v)
{
    const float2 m = pair_max<__half2>(v, h2_to_f2);
    return fmaxf(m.x, m.y);
}
template <> __device__ __forceinline__ float vec_max<__nv_bfloat16>(const uint4 &v)
{
    const float2 m = pair_max<__nv_bfloat162>(v, b2_to_f2);
    return fmaxf(m.x, m.y);
}

/* 2^x with the SFU's ex2 (one MUFU instruction; results under 2^-126 flush to zero, far below what any
   softmax output in these dtypes can hold). exp(x) = ex2(x * log2 e). */
__device__ __forceinline__ float fast_ex2(float x)
{
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}
#define ROW_LOG2E 1.4426950408889634f

/* The grid of a baseline's grid-stride elementwise kernel: a block per `threads` elements, at most 65536
   blocks (the loop covers the rest). */
static inline unsigned baseline_grid(size_t n, unsigned threads)
{
    size_t b = (n + threads - 1) / threads;
    return (unsigned)(b < 65536 ? (b ? b : 1) : 65536);
}

__device__ __forceinline__ float warp_sum(float v)
{
#pragma unroll
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

__device__ __forceinline__ float warp_max(float v)
{
#pragma unroll
    for (int o = 16; o > 0; o >>= 1)
        v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
}

/* Sum (MAX: maximum) over the block; every thread gets the result. `scratch` holds 33 floats. */
template <bool MAX = false> __device__ __forceinline__ float block_reduce(float v, float *scratch)
{
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = (blockDim.x + 31) >> 5;
    v = MAX ? warp_max(v) : warp_sum(v);
    if (lane == 0)
        scratch[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < nwarps ? scratch[lane] : (MAX ? -INFINITY : 0.f);
        v = MAX ? warp_max(v) : warp_sum(v);
        if (lane == 0)
            scratch[32] = v;
    }
    __syncthreads();
    return scratch[32];
}
__device__ __forceinline__ float block_sum(float v, float *scratch) { return block_reduce<false>(v, scratch); }

#endif
