/* matmul_h200's device check: a profile's whole output against cuBLAS's fp32-accumulate, fp32-output
 * result of the same inputs. The two differ by the output's rounding and by fp32 summation order; an
 * element is bad when |out - ref| > 2^-p (|ref| + sqrt(K) / 4), p = 7 for bf16 and 10 for fp16: one
 * unit in the last place of the output's significand, plus that much of a typical |C| (entries of
 * inputs uniform in [-1, 1) make |C| about sqrt(K / 9)) for elements near zero. A missing or doubled
 * k-tile of 64 moves an element by about sqrt(64 / 9) = 2.7, far outside. NaN is always bad. */
#include <math.h>

#include "klab/cuda.h"
#include "matmul_h200.h"

namespace {

template <class T>
__global__ void check_kernel(const T *__restrict__ out, const float *__restrict__ ref, long mn, float rel, float slack,
                             unsigned *bad, unsigned long long *first)
{
    for (long i = (long)blockIdx.x * blockDim.x + threadIdx.x; i < mn; i += (long)gridDim.x * blockDim.x) {
        const float o = (float)out[i], r = ref[i];
        if (!(fabsf(o - r) <= rel * (fabsf(r) + slack))) {
            atomicAdd(bad, 1u);
            atomicMin(first, (unsigned long long)i);
        }
    }
}

} // namespace

extern "C" int mm_check_launch(klab_dtype d, const mm_case *c, const void *out, const float *ref, unsigned *bad,
                               unsigned long long *first, klab_stream s)
{
    const long mn = (long)(c->m * c->n);
    const float slack = sqrtf((float)c->k) / 4.f;
    long blocks = (mn + 255) / 256;
    blocks = blocks > 8192 ? 8192 : blocks;
    cudaStream_t st = (cudaStream_t)s;
    if (d == KLAB_BF16)
        check_kernel<<<(unsigned)blocks, 256, 0, st>>>((const __nv_bfloat16 *)out, ref, mn, 0x1p-7f, slack, bad, first);
    else if (d == KLAB_FP16)
        check_kernel<<<(unsigned)blocks, 256, 0, st>>>((const __half *)out, ref, mn, 0x1p-10f, slack, bad, first);
    else
        return (int)cudaErrorInvalidValue;
    return (int)cudaGetLastError();
}
