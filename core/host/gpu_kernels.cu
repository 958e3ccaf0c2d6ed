#include "host/gpu_kernels.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>
#include <math.h>

namespace {

__device__ __forceinline__ unsigned long long splitmix64(unsigned long long x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

template <typename T> __device__ __forceinline__ T from_float(float v);
template <> __device__ __forceinline__ float from_float<float>(float v) { return v; }
template <> __device__ __forceinline__ __half from_float<__half>(float v) { return __float2half_rn(v); }
template <> __device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float v)
{
    return __float2bfloat16_rn(v);
}
/* round to nearest even, saturating to the largest finite value */
template <> __device__ __forceinline__ __nv_fp8_e4m3 from_float<__nv_fp8_e4m3>(float v) { return __nv_fp8_e4m3(v); }
template <> __device__ __forceinline__ __nv_fp8_e5m2 from_float<__nv_fp8_e5m2>(float v) { return __nv_fp8_e5m2(v); }

template <typename T>
__global__ void fill_uniform_kernel(T *p, size_t n, unsigned long long seed, float lo, float span)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        unsigned long long r = splitmix64(seed ^ splitmix64(i));
        float u = (float)(r >> 40) * (1.0f / 16777216.0f); /* 24 bits: [0, 1) exactly in float */
        float v = lo + span * u;
        if (v >= lo + span) /* lo + span * u can round up to hi: [lo, hi) is the promise */
            v = lo;
        p[i] = from_float<T>(v);
    }
}

/* Whole numbers lo + floor(r * span / 2^64): uniform in [lo, lo + span); span 0 is all 2^64. */
template <typename T>
__global__ void fill_int_kernel(T *p, size_t n, unsigned long long seed, long long lo, unsigned long long span)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        unsigned long long r = splitmix64(seed ^ splitmix64(i));
        unsigned long long off = span ? __umul64hi(r, span) : r;
        p[i] = (T)(lo + (long long)off);
    }
}

/* One element's poison, as bits of its width. Float formats: the top hash bit picks NaN (exponent all
   ones, a random non-zero mantissa; e4m3's only NaN is S.1111.111) or a random finite value (a random
   pattern whose exponent is not all ones; for e4m3, any pattern but NaN). Integers: random bits. */
struct poison_fmt {
    unsigned long long exp_mask, man_mask;
    int is_float, e4m3;
};

template <typename U>
__global__ void poison_kernel(U *p, size_t n, unsigned long long seed, poison_fmt f)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        unsigned long long h = splitmix64(seed ^ splitmix64(i));
        unsigned long long b = h;
        if (f.is_float) {
            unsigned long long em = f.exp_mask | f.man_mask;
            if (h >> 63) {
                b = f.e4m3 ? (b | em) : (b | f.exp_mask);
                if (!(b & f.man_mask))
                    b |= 1;
            } else if (f.e4m3 ? (b & em) == em : (b & f.exp_mask) == f.exp_mask) {
                b ^= f.e4m3 ? 1 : (f.exp_mask & ~(f.exp_mask >> 1)); /* clear one bit: finite */
            }
        }
        p[i] = (U)b;
    }
}

template <int THREADS, int UNROLL>
__global__ void __launch_bounds__(THREADS) copy16_kernel(const uint4 *__restrict__ src, uint4 *__restrict__ dst, size_t n16)
{
    const size_t step = (size_t)THREADS * UNROLL;
    for (size_t base = (size_t)blockIdx.x * step + threadIdx.x; base < n16; base += (size_t)gridDim.x * step) {
        uint4 v[UNROLL];
#pragma unroll
        for (int k = 0; k < UNROLL; k++) {
            size_t i = base + (size_t)k * THREADS;
            if (i < n16)
                v[k] = src[i];
        }
#pragma unroll
        for (int k = 0; k < UNROLL; k++) {
            size_t i = base + (size_t)k * THREADS;
            if (i < n16)
                dst[i] = v[k];
        }
    }
}

__global__ void flush_read_kernel(const uint4 *buf, size_t n16, unsigned long long *sink)
{
    unsigned int acc = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n16;
         i += (size_t)gridDim.x * blockDim.x) {
        uint4 v = __ldcg(buf + i); /* cache in L2 only: the point is to displace what L2 holds */
        acc ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    if (acc == 0x9e3779b9u && threadIdx.x == 0xffffu) /* never true; keeps the loads alive */
        *sink = acc;
}

__device__ __forceinline__ unsigned long long globaltimer()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

__global__ void stamp_sm0_kernel(unsigned long long *slot)
{
    unsigned int smid;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
    if (smid == 0 && threadIdx.x == 0) {
        slot[0] = globaltimer();
        slot[1] = (unsigned long long)clock64();
    }
}

__global__ void stamp_time_kernel(unsigned long long *slot) { *slot = globaltimer(); }

__global__ void spin_kernel(unsigned long long ns, unsigned long long *measured)
{
    unsigned long long t0 = globaltimer(), t;
    do {
        t = globaltimer();
    } while (t - t0 < ns);
    *measured = t - t0;
}

__global__ void empty_kernel() {}

__global__ void block_kernel(volatile int *release, volatile int *timed_out, unsigned long long timeout_ns)
{
    unsigned long long t0 = globaltimer();
    while (*release == 0) {
        if (globaltimer() - t0 > timeout_ns) {
            *timed_out = 1;
            break;
        }
#if __CUDA_ARCH__ >= 700
        __nanosleep(500); /* a read of host memory crosses PCIe: no need to ask every cycle */
#endif
    }
    __threadfence_system();
}

int grid_for(size_t n, int threads)
{
    size_t blocks = (n + threads - 1) / threads;
    return (int)(blocks < 65536 ? (blocks ? blocks : 1) : 65536);
}

} // namespace

extern "C" int gpu_fill_uniform(klab_dtype d, void *ptr, size_t n, uint64_t seed, double lo, double hi,
                                klab_stream s)
{
    const int threads = 256;
    const int g = grid_for(n, threads);
    float flo = (float)lo, span = (float)(hi - lo);
    /* integers: [ceil(lo), ceil(hi)); a span of 2^64 (all of int64) is written as 0 */
    long long ilo = (long long)ceil(lo);
    double dspan = ceil(hi) - ceil(lo);
    unsigned long long ispan = dspan >= 18446744073709551616.0 ? 0 : (unsigned long long)dspan;
    switch (d) {
    case KLAB_FP32: fill_uniform_kernel<<<g, threads, 0, s>>>((float *)ptr, n, seed, flo, span); break;
    case KLAB_FP16: fill_uniform_kernel<<<g, threads, 0, s>>>((__half *)ptr, n, seed, flo, span); break;
    case KLAB_BF16: fill_uniform_kernel<<<g, threads, 0, s>>>((__nv_bfloat16 *)ptr, n, seed, flo, span); break;
    case KLAB_FP8_E4M3: fill_uniform_kernel<<<g, threads, 0, s>>>((__nv_fp8_e4m3 *)ptr, n, seed, flo, span); break;
    case KLAB_FP8_E5M2: fill_uniform_kernel<<<g, threads, 0, s>>>((__nv_fp8_e5m2 *)ptr, n, seed, flo, span); break;
    case KLAB_INT32: fill_int_kernel<<<g, threads, 0, s>>>((int *)ptr, n, seed, ilo, ispan); break;
    case KLAB_INT64: fill_int_kernel<<<g, threads, 0, s>>>((long long *)ptr, n, seed, ilo, ispan); break;
    default:
        return (int)cudaErrorInvalidValue;
    }
    return (int)cudaGetLastError();
}

extern "C" int gpu_poison(klab_dtype d, void *ptr, size_t n, uint64_t seed, klab_stream s)
{
    const int threads = 256;
    const int g = grid_for(n, threads);
    switch (d) {
    case KLAB_FP32: poison_kernel<<<g, threads, 0, s>>>((unsigned *)ptr, n, seed, {0x7f800000ull, 0x7fffffull, 1, 0}); break;
    case KLAB_FP16: poison_kernel<<<g, threads, 0, s>>>((unsigned short *)ptr, n, seed, {0x7c00ull, 0x3ffull, 1, 0}); break;
    case KLAB_BF16: poison_kernel<<<g, threads, 0, s>>>((unsigned short *)ptr, n, seed, {0x7f80ull, 0x7full, 1, 0}); break;
    case KLAB_FP8_E4M3: poison_kernel<<<g, threads, 0, s>>>((unsigned char *)ptr, n, seed, {0x78ull, 0x7ull, 1, 1}); break;
    case KLAB_FP8_E5M2: poison_kernel<<<g, threads, 0, s>>>((unsigned char *)ptr, n, seed, {0x7cull, 0x3ull, 1, 0}); break;
    case KLAB_INT32: poison_kernel<<<g, threads, 0, s>>>((unsigned *)ptr, n, seed, {0, 0, 0, 0}); break;
    case KLAB_INT64: poison_kernel<<<g, threads, 0, s>>>((unsigned long long *)ptr, n, seed, {0, 0, 0, 0}); break;
    default:
        return (int)cudaErrorInvalidValue;
    }
    return (int)cudaGetLastError();
}

template <int THREADS, int UNROLL> static int copy16_launch(void *dst, const void *src, size_t n16, klab_stream s)
{
    const size_t per_block = (size_t)THREADS * UNROLL;
    size_t blocks = (n16 + per_block - 1) / per_block;
    if (blocks == 0)
        blocks = 1;
    if (blocks > 0x7fffffffu) /* grid-stride: any length fits in the largest grid */
        blocks = 0x7fffffffu;
    copy16_kernel<THREADS, UNROLL><<<(unsigned)blocks, THREADS, 0, s>>>((const uint4 *)src, (uint4 *)dst, n16);
    return (int)cudaGetLastError();
}

/* Past 32 MiB a side, blocks of 128 threads x 2 vectors (4 KiB a block): at 48-512 MiB a side they ran
   2.2-4.6 % faster than 256 x 4 (16 KiB a block), level with cudaMemcpy, which the 256 x 4 copy had
   trailed by 2-5 %; at 8-32 MiB 256 x 4 was the faster, by up to 4 % (H200, 30 shapes timed round-robin
   from a cold L2, and in klab's rounds: docs/notes/vector_add.md). */
extern "C" int gpu_copy16(void *dst, const void *src, size_t n16, klab_stream s)
{
    return n16 > ((size_t)32 << 20) / 16 ? copy16_launch<128, 2>(dst, src, n16, s) : copy16_launch<256, 4>(dst, src, n16, s);
}

extern "C" int gpu_flush_read(const void *buf, size_t bytes, unsigned long long *sink, klab_stream s)
{
    flush_read_kernel<<<grid_for(bytes / 16, 512), 512, 0, s>>>((const uint4 *)buf, bytes / 16, sink);
    return (int)cudaGetLastError();
}

extern "C" int gpu_stamp_sm0(unsigned long long *slot, int sms, klab_stream s)
{
    stamp_sm0_kernel<<<sms > 0 ? sms : 1, 32, 0, s>>>(slot);
    return (int)cudaGetLastError();
}

extern "C" int gpu_stamp_time(unsigned long long *slot, klab_stream s)
{
    stamp_time_kernel<<<1, 1, 0, s>>>(slot);
    return (int)cudaGetLastError();
}

extern "C" int gpu_spin_ns(unsigned long long ns, unsigned long long *measured_ns, klab_stream s)
{
    spin_kernel<<<1, 1, 0, s>>>(ns, measured_ns);
    return (int)cudaGetLastError();
}

extern "C" int gpu_empty(klab_stream s)
{
    empty_kernel<<<1, 1, 0, s>>>();
    return (int)cudaGetLastError();
}

extern "C" int gpu_block(volatile int *release, volatile int *timed_out, unsigned long long timeout_ns, klab_stream s)
{
    block_kernel<<<1, 1, 0, s>>>(release, timed_out, timeout_ns);
    return (int)cudaGetLastError();
}
