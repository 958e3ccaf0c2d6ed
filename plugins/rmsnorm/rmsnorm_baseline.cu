/* Unfused RMSNorm, the sequence a framework runs op by op, every intermediate in device memory:
 *   h   = dtype(x + r)          (the residual form only: an output, then normalised in place of x)
 *   sq  = float(x)^2            (rows x cols floats)
 *   ms  = mean(sq, last dim)    (rows floats, kept in `inv`)
 *   inv = rsqrt(ms + eps)
 *   t   = dtype(float(x) * inv) (rows x cols elements)
 *   y   = dtype(float(t) * float(w))
 * Five launches (six with the residual), about 5x the ideal bytes: what fusion removes. */
#include <cuda_runtime.h>

#include "klab/cuda.h"
#include "rmsnorm.h"
#include "cuda/numeric.cuh"

namespace {

constexpr int THREADS = 256;


template <typename T>
__global__ void add_kernel(const T *__restrict__ x, const T *__restrict__ r, T *__restrict__ h, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        h[i] = from_f<T>(to_f(x[i]) + to_f(r[i]));
}

template <typename T> __global__ void square_kernel(const T *__restrict__ x, float *__restrict__ sq, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        float v = to_f(x[i]);
        sq[i] = v * v;
    }
}

__global__ void row_mean_kernel(const float *__restrict__ sq, float *__restrict__ ms, size_t cols)
{
    __shared__ float scratch[33];
    const float *r = sq + (size_t)blockIdx.x * cols;
    float s = 0.f;
    for (size_t c = threadIdx.x; c < cols; c += blockDim.x)
        s += r[c];
    s = block_sum(s, scratch);
    if (threadIdx.x == 0)
        ms[blockIdx.x] = s / (float)cols;
}

__global__ void rsqrt_kernel(float *__restrict__ v, size_t n, float eps)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        v[i] = rsqrtf(v[i] + eps);
}

template <typename T>
__global__ void normalize_kernel(const T *__restrict__ x, const float *__restrict__ inv, T *__restrict__ t,
                                 size_t n, size_t cols)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        t[i] = from_f<T>(to_f(x[i]) * inv[i / cols]);
}

template <typename T>
__global__ void scale_kernel(const T *__restrict__ t, const T *__restrict__ w, T *__restrict__ y, size_t n,
                             size_t cols)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        y[i] = from_f<T>(to_f(t[i]) * to_f(w[i % cols]));
}

template <typename T>
int launch(const T *x, const T *r, const T *w, T *y, T *h, float *sq, float *inv, T *t, size_t rows, size_t cols,
           float eps, cudaStream_t s)
{
    if (rows == 0 || rows > 0x7fffffffu || cols == 0)
        return (int)cudaErrorInvalidValue;
    size_t n = rows * cols;
    cudaError_t e;
    if (r) {
        add_kernel<T><<<baseline_grid(n, THREADS), THREADS, 0, s>>>(x, r, h, n);
        if ((e = cudaGetLastError()) != cudaSuccess)
            return (int)e;
        x = h;
    }
    square_kernel<T><<<baseline_grid(n, THREADS), THREADS, 0, s>>>(x, sq, n);
    if ((e = cudaGetLastError()) != cudaSuccess)
        return (int)e;
    row_mean_kernel<<<(unsigned)rows, THREADS, 0, s>>>(sq, inv, cols);
    if ((e = cudaGetLastError()) != cudaSuccess)
        return (int)e;
    rsqrt_kernel<<<baseline_grid(rows, THREADS), THREADS, 0, s>>>(inv, rows, eps);
    if ((e = cudaGetLastError()) != cudaSuccess)
        return (int)e;
    normalize_kernel<T><<<baseline_grid(n, THREADS), THREADS, 0, s>>>(x, inv, t, n, cols);
    if ((e = cudaGetLastError()) != cudaSuccess)
        return (int)e;
    scale_kernel<T><<<baseline_grid(n, THREADS), THREADS, 0, s>>>(t, w, y, n, cols);
    return (int)cudaGetLastError();
}

} // namespace

extern "C" int rmsnorm_baseline_launch(klab_dtype d, const void *x, const void *r, const void *w, void *y, void *h,
                                       float *sq, float *inv, void *t, size_t rows, size_t cols, float eps,
                                       klab_stream s)
{
    KLAB_DISPATCH_FLOAT(d, T, {
        return launch((const T *)x, (const T *)r, (const T *)w, (T *)y, (T *)h, sq, inv, (T *)t, rows, cols, eps, s);
    })
    return (int)cudaErrorInvalidValue;
}
