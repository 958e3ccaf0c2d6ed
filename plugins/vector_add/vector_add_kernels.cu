/* The memory primitives in versions (llm.c style, naive to fast):
 *   naive        one element a thread, the first thing anyone writes
 *   vectorized   16-byte loads and stores, 4 independent vectors in flight a thread (every load issued
 *                before the first store), a scalar tail for lengths that are not a multiple of the
 *                vector width: the shape of klab's own copy, the lab's bandwidth ceiling
 *   streaming    vectorized with evict-first hints (ld/st.global.cs)
 *   vec8         8 vectors in flight a thread
 *   l2_prefetch  vectorized with a 256-byte L2 prefetch on each load
 *   persistent   vectorized over a grid of what fits on the GPU at once, striding */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "vector_add.h"

namespace {

constexpr int THREADS = 256;

template <typename T> __device__ __forceinline__ float to_f(T v) { return (float)v; }
template <> __device__ __forceinline__ float to_f<__half>(__half v) { return __half2float(v); }
template <> __device__ __forceinline__ float to_f<__nv_bfloat16>(__nv_bfloat16 v) { return __bfloat162float(v); }
template <typename T> __device__ __forceinline__ T from_f(float v) { return (T)v; }
template <> __device__ __forceinline__ __half from_f<__half>(float v) { return __float2half_rn(v); }
template <> __device__ __forceinline__ __nv_bfloat16 from_f<__nv_bfloat16>(float v) { return __float2bfloat16_rn(v); }

template <int OP, typename T> __device__ __forceinline__ T apply(T a, T b)
{
    if (OP == VA_ADD)
        return from_f<T>(to_f(a) + to_f(b));
    if (OP == VA_TRIAD)
        return from_f<T>(to_f(a) + (float)VA_TRIAD_SCALAR * to_f(b));
    return a;
}

template <int OP, typename T>
__global__ void naive_kernel(const T *__restrict__ a, const T *__restrict__ b, T *__restrict__ c, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = apply<OP, T>(a[i], OP == VA_COPY ? a[i] : b[i]);
}

/* How a 16-byte vector is loaded and stored: plainly; with the streaming (evict-first) hints, which
   cost 3-5 % at every size on the H200 (docs/notes/vector_add.md); or plainly with a 256-byte L2
   prefetch on each load (ld.global.nc.L2::256B). */
enum { HINT_NONE = 0, HINT_STREAM = 1, HINT_L2_256 = 2 };

template <int HINT> __device__ __forceinline__ uint4 load16(const uint4 *p)
{
    if (HINT == HINT_STREAM)
        return __ldcs(p);
    if (HINT == HINT_L2_256) {
        uint4 v;
        asm volatile("ld.global.nc.L2::256B.v4.u32 {%0, %1, %2, %3}, [%4];"
                     : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                     : "l"(p));
        return v;
    }
    return *p;
}
template <int HINT> __device__ __forceinline__ void store16(uint4 *p, uint4 v)
{
    if (HINT == HINT_STREAM)
        __stcs(p, v);
    else
        *p = v;
}

/* UNROLL vectors from `base`, THREADS apart: every load issued before the first store. */
template <int OP, typename T, int UNROLL, int HINT>
__device__ __forceinline__ void vec_step(const uint4 *a4, const uint4 *b4, uint4 *c4, size_t base, size_t n16)
{
    constexpr int PER = 16 / sizeof(T);
    uint4 va[UNROLL], vb[UNROLL];
#pragma unroll
    for (int k = 0; k < UNROLL; k++) {
        size_t i = base + (size_t)k * THREADS;
        if (i < n16) {
            va[k] = load16<HINT>(a4 + i);
            if (OP != VA_COPY)
                vb[k] = load16<HINT>(b4 + i);
        }
    }
#pragma unroll
    for (int k = 0; k < UNROLL; k++) {
        size_t i = base + (size_t)k * THREADS;
        if (i >= n16)
            continue;
        uint4 out = va[k];
        if (OP != VA_COPY) {
            const T *pa = reinterpret_cast<const T *>(&va[k]);
            const T *pb = reinterpret_cast<const T *>(&vb[k]);
            T *po = reinterpret_cast<T *>(&out);
#pragma unroll
            for (int e = 0; e < PER; e++)
                po[e] = apply<OP, T>(pa[e], pb[e]);
        }
        store16<HINT>(c4 + i, out);
    }
}

/* n16: whole 16-byte vectors; the tail [n16 * PER, n) is done scalar-wise by the last block. With
   PERSISTENT the grid is what fits on the GPU at once and strides over the array; otherwise one
   block per THREADS * UNROLL vectors. */
template <int OP, typename T, int UNROLL, int HINT, bool PERSISTENT>
__global__ void __launch_bounds__(THREADS) vectorized_kernel(const T *__restrict__ a, const T *__restrict__ b,
                                                             T *__restrict__ c, size_t n16, size_t n)
{
    constexpr int PER = 16 / sizeof(T);
    const uint4 *a4 = reinterpret_cast<const uint4 *>(a);
    const uint4 *b4 = reinterpret_cast<const uint4 *>(b);
    uint4 *c4 = reinterpret_cast<uint4 *>(c);
    const size_t step = (size_t)THREADS * UNROLL;
    size_t base = (size_t)blockIdx.x * step + threadIdx.x;
    if (PERSISTENT)
        for (; base < n16; base += (size_t)gridDim.x * step)
            vec_step<OP, T, UNROLL, HINT>(a4, b4, c4, base, n16);
    else
        vec_step<OP, T, UNROLL, HINT>(a4, b4, c4, base, n16);
    if (blockIdx.x == gridDim.x - 1)
        for (size_t i = n16 * PER + threadIdx.x; i < n; i += THREADS)
            c[i] = apply<OP, T>(a[i], OP == VA_COPY ? a[i] : b[i]);
}

template <int OP, typename T, int UNROLL, int HINT, bool PERSISTENT>
int launch_vec(const T *a, const T *b, T *c, size_t n, cudaStream_t s)
{
    constexpr int PER = 16 / sizeof(T);
    size_t n16 = n / PER, per_block = (size_t)THREADS * UNROLL;
    size_t blocks = (n16 + per_block - 1) / per_block;
    if (PERSISTENT) {
        int dev = 0, sms = 0, per_sm = 0;
        cudaGetDevice(&dev);
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, vectorized_kernel<OP, T, UNROLL, HINT, true>, THREADS, 0);
        size_t resident = (size_t)sms * (per_sm > 0 ? per_sm : 1);
        blocks = blocks < resident ? blocks : resident;
    }
    if (blocks == 0)
        blocks = 1;
    if (blocks > 0x7fffffffu)
        return (int)cudaErrorInvalidConfiguration;
    vectorized_kernel<OP, T, UNROLL, HINT, PERSISTENT><<<(unsigned)blocks, THREADS, 0, s>>>(a, b, c, n16, n);
    return (int)cudaGetLastError();
}

template <int OP, typename T> int launch_op(int profile, const T *a, const T *b, T *c, size_t n, cudaStream_t s)
{
    switch (profile) {
    case VA_NAIVE: {
        size_t blocks = (n + THREADS - 1) / THREADS;
        if (blocks > 0x7fffffffu)
            return (int)cudaErrorInvalidConfiguration;
        naive_kernel<OP, T><<<(unsigned)blocks, THREADS, 0, s>>>(a, b, c, n);
        return (int)cudaGetLastError();
    }
    case VA_VECTORIZED: return launch_vec<OP, T, 4, HINT_NONE, false>(a, b, c, n, s);
    case VA_STREAMING: return launch_vec<OP, T, 4, HINT_STREAM, false>(a, b, c, n, s);
    case VA_VEC8: return launch_vec<OP, T, 8, HINT_NONE, false>(a, b, c, n, s);
    case VA_L2_PREFETCH: return launch_vec<OP, T, 4, HINT_L2_256, false>(a, b, c, n, s);
    case VA_PERSISTENT: return launch_vec<OP, T, 4, HINT_NONE, true>(a, b, c, n, s);
    default: return (int)cudaErrorInvalidValue;
    }
}

template <typename T> int launch_t(int profile, int op, const void *a, const void *b, void *c, size_t n, cudaStream_t s)
{
    const T *ta = (const T *)a, *tb = (const T *)b;
    T *tc = (T *)c;
    switch (op) {
    case VA_COPY: return launch_op<VA_COPY, T>(profile, ta, tb, tc, n, s);
    case VA_ADD: return launch_op<VA_ADD, T>(profile, ta, tb, tc, n, s);
    case VA_TRIAD: return launch_op<VA_TRIAD, T>(profile, ta, tb, tc, n, s);
    default: return (int)cudaErrorInvalidValue;
    }
}

} // namespace

extern "C" int vector_add_launch(int profile, int op, klab_dtype d, const void *a, const void *b, void *c, size_t n,
                                 klab_stream s)
{
    switch (d) {
    case KLAB_FP32: return launch_t<float>(profile, op, a, b, c, n, s);
    case KLAB_FP16: return launch_t<__half>(profile, op, a, b, c, n, s);
    case KLAB_BF16: return launch_t<__nv_bfloat16>(profile, op, a, b, c, n, s);
    default: return (int)cudaErrorInvalidValue;
    }
}
