/* Fused RMSNorm: one block a row, one pass over HBM.
 *
 * The bytes floor is reading x once and writing y once (w is 2-16 KB, served from L2 after the first
 * block). So the kernel must (1) keep the whole row in registers between the sum of squares and the
 * scaling, never re-reading x; (2) have many 16-byte loads in flight per SM; (3) round once.
 * Each thread holds VPT 16-byte vectors of x (and of w, unless w_late); VPT is a template parameter so
 * the arrays stay in registers (a run-time index would send them to local memory); up to 8 a thread
 * and 256 threads, so rows of up to 16384 fp16 or 8192 fp32 elements. The launch shape is tunable
 * through the case's params (rmsnorm.h); the defaults are what the H200 sweep chose. Rows whose length is not a whole number of
 * vectors, or longer, take the two-pass fallback (the second read of the row comes from L2). */
#include <cuda_runtime.h>

#include "rmsnorm.h"
#include "rmsnorm_numeric.cuh"

namespace {

/* The launch bound a VPT allows: 256 threads leave up to 255 registers for the vectors a thread holds;
   the narrower versions, holding less, may run wider blocks (a bound of 1024 on all of them capped
   registers at 64 and sent bf16 rows to local memory). */
template <int VPT> constexpr int max_threads() { return VPT == 1 ? 1024 : VPT == 2 ? 512 : 256; }

__device__ __forceinline__ uint4 load_x(const uint4 *p, bool prefetch)
{
    if (prefetch) { /* ld.global.nc with a 256-byte L2 prefetch: +1.5 % on the 2 GiB copy */
        uint4 v;
        asm volatile("ld.global.nc.L2::256B.v4.u32 {%0, %1, %2, %3}, [%4];"
                     : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                     : "l"(p));
        return v;
    }
    return *p;
}

/* WLATE: load w after the reduction instead of beside x, so it holds no registers across it (more
   blocks per SM), at the price of one L2 round trip a block. */
template <typename T, int VPT, bool WLATE>
__global__ void __launch_bounds__(max_threads<VPT>()) fused_vec_kernel(const T *__restrict__ x,
                                                                       const T *__restrict__ w,
                                                                       T *__restrict__ y, int cols, float eps,
                                                                       bool prefetch)
{
    constexpr int PER = 16 / sizeof(T);
    __shared__ float scratch[33];
    const int nvec = cols / PER;
    const size_t row = blockIdx.x;
    const uint4 *xr = reinterpret_cast<const uint4 *>(x + row * cols);
    const uint4 *w4 = reinterpret_cast<const uint4 *>(w);
    uint4 *yr = reinterpret_cast<uint4 *>(y + row * cols);

    uint4 xv[VPT], wv[WLATE ? 1 : VPT];
#pragma unroll
    for (int k = 0; k < VPT; k++) {
        int i = k * blockDim.x + threadIdx.x;
        xv[k] = i < nvec ? load_x(xr + i, prefetch) : make_uint4(0, 0, 0, 0); /* plain: evict-first hints cost 3-5 % */
        if (!WLATE)
            wv[WLATE ? 0 : k] = i < nvec ? __ldg(w4 + i) : make_uint4(0, 0, 0, 0);
    }
    float ss = 0.f;
#pragma unroll
    for (int k = 0; k < VPT; k++) {
        float f[PER];
        vec16<T>::unpack(xv[k], f);
#pragma unroll
        for (int j = 0; j < PER; j++)
            ss = fmaf(f[j], f[j], ss);
    }
    const float r = rsqrtf(block_sum(ss, scratch) / (float)cols + eps);
#pragma unroll
    for (int k = 0; k < VPT; k++) {
        int i = k * blockDim.x + threadIdx.x;
        if (i >= nvec)
            continue;
        float f[PER], g[PER];
        vec16<T>::unpack(xv[k], f);
        vec16<T>::unpack(WLATE ? __ldg(w4 + i) : wv[WLATE ? 0 : k], g);
#pragma unroll
        for (int j = 0; j < PER; j++)
            f[j] = f[j] * r * g[j];
        yr[i] = vec16<T>::pack(f);
    }
}

/* Any length: two passes over the row, the second from L2. */
template <typename T>
__global__ void fused_any_kernel(const T *__restrict__ x, const T *__restrict__ w, T *__restrict__ y, int cols,
                                 float eps)
{
    __shared__ float scratch[33];
    const T *xr = x + (size_t)blockIdx.x * cols;
    T *yr = y + (size_t)blockIdx.x * cols;
    float ss = 0.f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        float v = to_f(xr[c]);
        ss = fmaf(v, v, ss);
    }
    const float r = rsqrtf(block_sum(ss, scratch) / (float)cols + eps);
    for (int c = threadIdx.x; c < cols; c += blockDim.x)
        yr[c] = from_f<T>(to_f(xr[c]) * r * to_f(w[c]));
}

int round_up_warp(int n)
{
    return (n + 31) / 32 * 32;
}

template <typename T, int VPT>
void launch_vec(unsigned grid, int threads, const T *x, const T *w, T *y, int cols, float eps,
                const rmsnorm_tuning *t, cudaStream_t s)
{
    if (t->w_late)
        fused_vec_kernel<T, VPT, true><<<grid, threads, 0, s>>>(x, w, y, cols, eps, t->prefetch != 0);
    else
        fused_vec_kernel<T, VPT, false><<<grid, threads, 0, s>>>(x, w, y, cols, eps, t->prefetch != 0);
}

template <typename T>
int launch(const T *x, const T *w, T *y, size_t rows, size_t cols, float eps, const rmsnorm_tuning *t,
           cudaStream_t s)
{
    constexpr int PER = 16 / sizeof(T);
    if (rows == 0 || rows > 0x7fffffffu || cols == 0 || cols > 0x7fffffffu)
        return (int)cudaErrorInvalidValue;
    const int nvec = (int)(cols / PER);
    const unsigned grid = (unsigned)rows;
    /* VPT: the fewest vectors a thread that keep the block at or under the target threads (256 by
       default: 8 warps, enough blocks per SM to cover latency, a cheap block reduction). */
    const int target = t->threads > 0 ? t->threads : 256;
    if (cols % PER == 0) {
        for (int vpt = 1; vpt <= 8; vpt *= 2) {
            int threads = round_up_warp((nvec + vpt - 1) / vpt);
            int cap = vpt == 1 ? 1024 : vpt == 2 ? 512 : 256;
            if (threads > target || threads > cap)
                continue;
            switch (vpt) {
            case 1: launch_vec<T, 1>(grid, threads, x, w, y, (int)cols, eps, t, s); break;
            case 2: launch_vec<T, 2>(grid, threads, x, w, y, (int)cols, eps, t, s); break;
            case 4: launch_vec<T, 4>(grid, threads, x, w, y, (int)cols, eps, t, s); break;
            default: launch_vec<T, 8>(grid, threads, x, w, y, (int)cols, eps, t, s); break;
            }
            return (int)cudaGetLastError();
        }
    }
    int threads = cols >= 1024 ? 1024 : round_up_warp((int)cols);
    fused_any_kernel<T><<<grid, threads, 0, s>>>(x, w, y, (int)cols, eps);
    return (int)cudaGetLastError();
}

} // namespace

extern "C" int rmsnorm_fused_launch(klab_dtype d, const void *x, const void *w, void *y, size_t rows, size_t cols,
                                    float eps, const rmsnorm_tuning *t, klab_stream s)
{
    switch (d) {
    case KLAB_FP32: return launch((const float *)x, (const float *)w, (float *)y, rows, cols, eps, t, s);
    case KLAB_FP16: return launch((const __half *)x, (const __half *)w, (__half *)y, rows, cols, eps, t, s);
    case KLAB_BF16:
        return launch((const __nv_bfloat16 *)x, (const __nv_bfloat16 *)w, (__nv_bfloat16 *)y, rows, cols, eps, t, s);
    default: return (int)cudaErrorInvalidValue;
    }
}
