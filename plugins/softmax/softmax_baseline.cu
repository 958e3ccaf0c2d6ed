/* Unfused softmax, the sequence of separate kernels a framework's decomposed graph runs, every
 * intermediate in device memory:
 *   m = max(x, last dim)          (rows floats)
 *   e = exp(float(x) - m)         (rows x cols floats)
 *   s = sum(e, last dim)          (rows floats)
 *   y = dtype(e / s)
 * Four launches; x read twice, e written once and read twice: about 4x the ideal bytes in fp16. */
#include <cuda_runtime.h>

#include "klab/cuda.h"
#include "softmax.h"
#include "cuda/numeric.cuh"

namespace {

constexpr int THREADS = 256;


/* One block a row: MAX of x, else the sum of e. */
template <bool MAX, typename T>
__global__ void row_reduce_kernel(const T *__restrict__ in, float *__restrict__ out, size_t cols)
{
    __shared__ float scratch[33];
    const T *r = in + (size_t)blockIdx.x * cols;
    float v = MAX ? -INFINITY : 0.f;
    for (size_t c = threadIdx.x; c < cols; c += blockDim.x)
        v = MAX ? fmaxf(v, to_f(r[c])) : v + to_f(r[c]);
    v = block_reduce<MAX>(v, scratch);
    if (threadIdx.x == 0)
        out[blockIdx.x] = v;
}

template <typename T>
__global__ void exp_kernel(const T *__restrict__ x, const float *__restrict__ m, float *__restrict__ e, size_t n,
                           size_t cols)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        e[i] = expf(to_f(x[i]) - m[i / cols]);
}

template <typename T>
__global__ void divide_kernel(const float *__restrict__ e, const float *__restrict__ s, T *__restrict__ y, size_t n,
                              size_t cols)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        y[i] = from_f<T>(e[i] / s[i / cols]);
}

template <typename T>
int launch(const T *x, T *y, float *e, float *m, float *s, size_t rows, size_t cols, cudaStream_t st)
{
    if (rows == 0 || rows > 0x7fffffffu || cols == 0)
        return (int)cudaErrorInvalidValue;
    const size_t n = rows * cols;
    cudaError_t err;
    row_reduce_kernel<true, T><<<(unsigned)rows, THREADS, 0, st>>>(x, m, cols);
    if ((err = cudaGetLastError()) != cudaSuccess)
        return (int)err;
    exp_kernel<T><<<baseline_grid(n, THREADS), THREADS, 0, st>>>(x, m, e, n, cols);
    if ((err = cudaGetLastError()) != cudaSuccess)
        return (int)err;
    row_reduce_kernel<false, float><<<(unsigned)rows, THREADS, 0, st>>>(e, s, cols);
    if ((err = cudaGetLastError()) != cudaSuccess)
        return (int)err;
    divide_kernel<T><<<baseline_grid(n, THREADS), THREADS, 0, st>>>(e, s, y, n, cols);
    return (int)cudaGetLastError();
}

} // namespace

extern "C" int softmax_baseline_launch(klab_dtype d, const void *x, void *y, float *e, float *m, float *s, size_t rows,
                                       size_t cols, klab_stream st)
{
    KLAB_DISPATCH_FLOAT(d, T, { return launch((const T *)x, (T *)y, e, m, s, rows, cols, st); })
    return (int)cudaErrorInvalidValue;
}
