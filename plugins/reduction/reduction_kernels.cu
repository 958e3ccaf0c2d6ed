/* The two_pass, last_block and atomic reductions: one kernel template, the strategy a template
 * parameter, so the three load and reduce their tiles with the same code (reduction_block.cuh) and
 * differ only in how a row's partials meet:
 *   two_pass    partials to scratch; finish_kernel (one block a row) reads them back: 2 launches
 *   last_block  partials to scratch; the block that takes the row's last ticket finishes: 1 launch
 *   atomic      out set to the identity (memset, or fill_kernel for max), then one atomic a block:
 *               2 launches, no scratch, no fixed order
 * A row of one block writes out directly in all three. */
#include <cuda_runtime.h>

#include "klab/cuda.h"
#include "reduction.h"
#include "reduction_block.cuh"

namespace {

enum { MODE_TWO_PASS = 0, MODE_LAST_BLOCK, MODE_ATOMIC };

/* float max as integer atomics: a non-negative float orders as a signed int, a negative one (sign bit
   set, -0 included) in reverse as an unsigned one; out starts at -inf (0xff800000), which both
   orders put below every other value. */
__device__ __forceinline__ void atomic_max_float(float *addr, float v)
{
    if (!signbit(v))
        atomicMax(reinterpret_cast<int *>(addr), __float_as_int(v));
    else
        atomicMin(reinterpret_cast<unsigned *>(addr), __float_as_uint(v));
}

template <typename T, int OP, int MODE>
__global__ void __launch_bounds__(RD_THREADS)
    partial_kernel(const T *__restrict__ x, size_t cols, unsigned splits, float *__restrict__ out,
                   float *__restrict__ partial, unsigned *__restrict__ tickets)
{
    __shared__ float scratch[RD_THREADS / 32];
    __shared__ bool last;
    const unsigned row = blockIdx.x / splits, j = blockIdx.x - row * splits;
    const float v = rd_block<OP>(rd_thread_partial<T, OP>(x + (size_t)row * cols, cols, j, splits), scratch);
    if (splits == 1) {
        if (threadIdx.x == 0)
            out[row] = v;
        return;
    }
    if (MODE == MODE_ATOMIC) {
        if (threadIdx.x == 0) {
            if (OP == RD_SUM)
                atomicAdd(out + row, v);
            else
                atomic_max_float(out + row, v);
        }
        return;
    }
    float *mine = partial + (size_t)row * splits;
    if (threadIdx.x == 0)
        mine[j] = v;
    if (MODE == MODE_TWO_PASS || !rd_take_ticket(tickets + row, splits, &last))
        return;
    const float f = rd_finish<OP>(mine, splits, scratch);
    if (threadIdx.x == 0)
        out[row] = f;
    rd_release(tickets + row);
}

template <int OP>
__global__ void __launch_bounds__(RD_THREADS) finish_kernel(const float *__restrict__ partial, unsigned splits,
                                                            float *__restrict__ out)
{
    __shared__ float scratch[RD_THREADS / 32];
    const float f = rd_finish<OP>(partial + (size_t)blockIdx.x * splits, splits, scratch);
    if (threadIdx.x == 0)
        out[blockIdx.x] = f;
}

__global__ void fill_kernel(float *out, size_t n, float v)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        out[i] = v;
}

template <typename T, int OP>
int launch(int profile, const reduction_plan *p, const T *x, float *out, float *partial, unsigned *tickets,
           cudaStream_t s)
{
    const unsigned splits = (unsigned)p->splits, grid = (unsigned)(p->rows * splits);
    cudaError_t e;
    switch (profile) {
    case RD_TWO_PASS:
        partial_kernel<T, OP, MODE_TWO_PASS><<<grid, RD_THREADS, 0, s>>>(x, p->cols, splits, out, partial, tickets);
        if (splits > 1) {
            if ((e = cudaGetLastError()) != cudaSuccess)
                return (int)e;
            finish_kernel<OP><<<(unsigned)p->rows, RD_THREADS, 0, s>>>(partial, splits, out);
        }
        break;
    case RD_LAST_BLOCK:
        partial_kernel<T, OP, MODE_LAST_BLOCK><<<grid, RD_THREADS, 0, s>>>(x, p->cols, splits, out, partial, tickets);
        break;
    case RD_ATOMIC:
        if (splits > 1) {
            if (OP == RD_SUM) {
                e = cudaMemsetAsync(out, 0, p->rows * sizeof(float), s);
            } else {
                size_t blocks = (p->rows + 255) / 256;
                fill_kernel<<<(unsigned)(blocks < 1024 ? blocks : 1024), 256, 0, s>>>(out, p->rows, -INFINITY);
                e = cudaGetLastError();
            }
            if (e != cudaSuccess)
                return (int)e;
        }
        partial_kernel<T, OP, MODE_ATOMIC><<<grid, RD_THREADS, 0, s>>>(x, p->cols, splits, out, partial, tickets);
        break;
    default:
        return (int)cudaErrorInvalidValue;
    }
    return (int)cudaGetLastError();
}

} // namespace

extern "C" int reduction_launch(int profile, int op, klab_dtype d, const reduction_plan *p, const void *x, float *out,
                                float *partial, unsigned *tickets, klab_stream s)
{
    KLAB_DISPATCH_FLOAT(d, T, {
        if (op == RD_MAX)
            return launch<T, RD_MAX>(profile, p, (const T *)x, out, partial, tickets, s);
        return launch<T, RD_SUM>(profile, p, (const T *)x, out, partial, tickets, s);
    });
    return (int)cudaErrorInvalidValue;
}
