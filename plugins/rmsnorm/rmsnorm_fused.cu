/* Fused RMSNorm: one block a row, one pass over HBM.
 *
 * The bytes floor is reading x once and writing y once (w is 2-16 KB, served from L2 after the first
 * block). So the kernel must (1) keep the whole row in registers between the sum of squares and the
 * scaling, never re-reading x; (2) have many 16-byte loads in flight per SM; (3) round once.
 * Each thread holds VPT 16-byte vectors of x and of w; VPT is a template parameter so the arrays stay
 * in registers (a run-time index would send them to local memory); up to 8 a thread and 256 threads,
 * so rows of up to 16384 fp16 or 8192 fp32 elements. Rows whose length is not a whole number of
 * vectors, or longer, take the two-pass fallback (the second read of the row comes from L2). */
#include <cuda_runtime.h>

#include "rmsnorm.h"
#include "rmsnorm_numeric.cuh"

namespace {

/* At most 256 threads a block: the launch bound then leaves up to 255 registers a thread for the
   2 x VPT vectors (a bound of 1024 caps it at 64 and sent bf16 rows to local memory). */
constexpr int VEC_THREADS = 256;

template <typename T, int VPT>
__global__ void __launch_bounds__(VEC_THREADS) fused_vec_kernel(const T *__restrict__ x, const T *__restrict__ w,
                                                                T *__restrict__ y, int cols, float eps)
{
    constexpr int PER = 16 / sizeof(T);
    __shared__ float scratch[33];
    const int nvec = cols / PER;
    const size_t row = blockIdx.x;
    const uint4 *xr = reinterpret_cast<const uint4 *>(x + row * cols);
    const uint4 *w4 = reinterpret_cast<const uint4 *>(w);
    uint4 *yr = reinterpret_cast<uint4 *>(y + row * cols);

    uint4 xv[VPT], wv[VPT];
#pragma unroll
    for (int k = 0; k < VPT; k++) {
        int i = k * blockDim.x + threadIdx.x;
        if (i < nvec) {
            xv[k] = xr[i];         /* plain: evict-first hints cost 3-5 % on the H200's copy */
            wv[k] = __ldg(w4 + i); /* read by every row */
        } else {
            xv[k] = make_uint4(0, 0, 0, 0);
            wv[k] = xv[k];
        }
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
        vec16<T>::unpack(wv[k], g);
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

template <typename T>
int launch(const T *x, const T *w, T *y, size_t rows, size_t cols, float eps, cudaStream_t s)
{
    constexpr int PER = 16 / sizeof(T);
    if (rows == 0 || rows > 0x7fffffffu || cols == 0 || cols > 0x7fffffffu)
        return (int)cudaErrorInvalidValue;
    const int nvec = (int)(cols / PER);
    const unsigned grid = (unsigned)rows;
    /* VPT: the fewest vectors a thread that keep the block at or under 256 threads (8 warps: enough
       blocks per SM to cover latency, few enough that the block reduction stays cheap). */
    if (cols % PER == 0) {
        for (int vpt = 1; vpt <= 8; vpt *= 2) {
            int threads = round_up_warp((nvec + vpt - 1) / vpt);
            if (threads > VEC_THREADS)
                continue;
            switch (vpt) {
            case 1: fused_vec_kernel<T, 1><<<grid, threads, 0, s>>>(x, w, y, (int)cols, eps); break;
            case 2: fused_vec_kernel<T, 2><<<grid, threads, 0, s>>>(x, w, y, (int)cols, eps); break;
            case 4: fused_vec_kernel<T, 4><<<grid, threads, 0, s>>>(x, w, y, (int)cols, eps); break;
            default: fused_vec_kernel<T, 8><<<grid, threads, 0, s>>>(x, w, y, (int)cols, eps); break;
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
                                    float eps, klab_stream s)
{
    switch (d) {
    case KLAB_FP32: return launch((const float *)x, (const float *)w, (float *)y, rows, cols, eps, s);
    case KLAB_FP16: return launch((const __half *)x, (const __half *)w, (__half *)y, rows, cols, eps, s);
    case KLAB_BF16:
        return launch((const __nv_bfloat16 *)x, (const __nv_bfloat16 *)w, (__nv_bfloat16 *)y, rows, cols, eps, s);
    default: return (int)cudaErrorInvalidValue;
    }
}
