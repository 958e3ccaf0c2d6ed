/* Fused softmax: the row-kernel skeleton (plugins/lib/row/row_kernel.cuh) with the op below.
 *
 * One reduction, not two: each thread reduces its elements to a pair (m, s), its maximum and the sum of
 * exp(x - m) over them, and pairs merge as (max(m1, m2), s1 exp(m1 - m) + s2 exp(m2 - m)). So a row
 * costs one exchange across warps and one across a cluster, and the streaming plan (rows longer than a
 * cluster holds) is the online softmax: each step's pair merges into the running one, and the second
 * pass writes exp(x - m) / s. Exponentials are base 2 on the SFU: exp(x - m) = ex2(x log2e - m log2e)
 * with the subtraction fused into the multiply (one rounding; m log2e's own rounding is common to the
 * row and cancels in the division). Two exponentials an element (sum, output): 17 us of SFU time for
 * 2^25 elements on an H200, under the memory time of either dtype. */
#include <cuda_runtime.h>

#include "klab/cuda.h"
#include "softmax.h"
#include "row/row_kernel.cuh"

namespace {

template <typename T> struct SoftmaxOp {
    typedef T elem_t;
    typedef float2 acc_t; /* (max, sum of exp(x - max)) */
    static constexpr bool STREAMS = true;
    static constexpr bool ROW_OUT = true;
    static constexpr bool RING = true;
    static constexpr int PER = 16 / sizeof(T);

    const T *x;
    T *y;
    const T *xr;
    T *yr;
    float ml, inv; /* per row, after finish: max * log2e and 1 / sum */

    __device__ __forceinline__ void row_begin(const rowk::RowSpan &s, bool)
    {
        xr = x + s.v0 * PER;
        yr = y + s.v0 * PER;
    }
    /* elements outside the row read as -inf: they change no maximum and add exp(-inf) = 0 */
    __device__ __forceinline__ uint4 load(const rowk::Slot &sl) const { return rowk::load_vec<T>(xr, sl, -INFINITY); }
    __device__ __forceinline__ uint4 reload(const rowk::Slot &sl) const { return load(sl); }
    __device__ __forceinline__ const T *ring_in() const { return x; }
    __device__ __forceinline__ float pad() const { return -INFINITY; }
    __device__ __forceinline__ T *&rows_out() { return y; }

    template <int V> __device__ __forceinline__ float2 partial(const uint4 (&raw)[V]) const
    {
        float m = -INFINITY;
#pragma unroll
        for (int k = 0; k < V; k++)
            m = fmaxf(m, vec_max<T>(raw[k]));
        if (m == -INFINITY) /* nothing of the row here: (-inf, 0), the identity */
            return make_float2(m, 0.f);
        const float mlt = m * ROW_LOG2E;
        float s = 0.f;
#pragma unroll
        for (int k = 0; k < V; k++) {
            float f[PER];
            vec16<T>::unpack(raw[k], f);
#pragma unroll
            for (int j = 0; j < PER; j++)
                s += fast_ex2(fmaf(f[j], ROW_LOG2E, -mlt));
        }
        return make_float2(m, s);
    }
    __device__ __forceinline__ float2 identity() const { return make_float2(-INFINITY, 0.f); }
    /* symmetric in a and b (products rounded apart, then one sum), so the lanes of a butterfly agree */
    __device__ __forceinline__ float2 merge(float2 a, float2 b) const
    {
        const float m = fmaxf(a.x, b.x);
        const float ea = a.x == m ? 1.f : fast_ex2((a.x - m) * ROW_LOG2E);
        const float eb = b.x == m ? 1.f : fast_ex2((b.x - m) * ROW_LOG2E);
        return make_float2(m, __fmul_rn(a.y, ea) + __fmul_rn(b.y, eb));
    }
    __device__ __forceinline__ void finish(float2 t, int64_t, bool)
    {
        ml = t.x * ROW_LOG2E;
        inv = 1.f / t.y;
    }
    __device__ __forceinline__ void epilogue(uint4 raw, const rowk::Slot &sl) const
    {
        if (sl.empty())
            return;
        float f[PER];
        vec16<T>::unpack(raw, f);
#pragma unroll
        for (int j = 0; j < PER; j++)
            f[j] = fast_ex2(fmaf(f[j], ROW_LOG2E, -ml)) * inv;
        rowk::store_vec<T>(yr, sl, vec16<T>::pack(f));
    }
};

template <typename T>
int launch(const void *x, void *y, size_t rows, size_t cols, const row_plan *p, cudaStream_t st)
{
    SoftmaxOp<T> op;
    op.x = (const T *)x, op.y = (T *)y;
    op.xr = NULL, op.yr = NULL;
    op.ml = op.inv = 0.f;
    return (int)rowk::launch(op, *p, (int64_t)rows, (int64_t)cols, st);
}

} // namespace

extern "C" int softmax_fused_launch(klab_dtype d, const void *x, void *y, size_t rows, size_t cols, const row_plan *p,
                                    klab_stream st)
{
    KLAB_DISPATCH_FLOAT(d, T, { return launch<T>(x, y, rows, cols, p, st); })
    return (int)cudaErrorInvalidValue;
}
