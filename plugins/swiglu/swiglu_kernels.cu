/* SwiGLU kernels: one elementwise template and three ops on it,
 *   SILU    t = silu(a)         the baseline's first kernel (rounded to the dtype, as eager keeps it)
 *   MUL     c = a * b           the baseline's second kernel
 *   SWIGLU  c = silu(a) * b     the fused kernel: one pass, one rounding
 * so the baseline differs from the fused kernel only in the traffic fusion removes (it writes and
 * reads back the silu tensor: 5 M*N elements moved instead of 3), not in how it loads.
 *
 * How a launch is chosen:
 *   flat     gate, up and out contiguous alike (split layout, or one row): one vector of rows * n
 *            elements, 16-byte loads and stores, UNROLL vectors of each operand in flight a thread, the
 *            last partial vector done element-wise by the last block (any length);
 *   rows     rows whose operands lie at different strides (packed layout, and the baseline's multiply
 *            reading the contiguous silu tensor beside a packed up) and whose row length is a whole
 *            number of 16-byte vectors: the same kernel, a block's tile within one row (the last tile
 *            of a row does fewer vectors a thread), the grid's y over the rows;
 *   any      everything else (a packed row that is not a whole number of vectors puts gate, up and out
 *            at different misalignments, so no 16-byte load serves all three; no model has one):
 *            element by element.
 * Small cases (decode: 1 x 14336) launch one vector a thread so they spread over more SMs. */
#include <cuda_runtime.h>
#include <stdint.h>

/* to_f, from_f and vec16 (a 16-byte vector as floats and back), shared with the row plugins */
#include "../common/row_numeric.cuh"
#include "klab/cuda.h"
#include "swiglu.h"

namespace {

constexpr int THREADS = 256;
enum { OP_SILU = 0, OP_MUL, OP_SWIGLU };

template <int OP> __device__ __forceinline__ float apply(float a, float b)
{
    if (OP == OP_SILU)
        return silu_f(a);
    if (OP == OP_MUL)
        return a * b;
    return silu_f(a) * b;
}

/* Rows of nv 16-byte vectors: row r's vector v is at r * lda + v in a, r * ldb + v in b (lda, ldb in
   vectors) and r * nv + v in c. Blocks of the grid's x cover a row in tiles of THREADS * UNROLL
   vectors, the y blocks stride over the rows: no division anywhere. A flat vector is one row; the last
   block then also does its elements [nv * PER, n_flat), fewer than a vector. */
template <int OP, typename T, int UNROLL>
__global__ void __launch_bounds__(THREADS)
    ew_vec_kernel(const T *__restrict__ a, size_t lda, const T *__restrict__ b, size_t ldb, T *__restrict__ c,
                  size_t rows, size_t nv, size_t n_flat)
{
    constexpr int PER = 16 / sizeof(T);
    const size_t v0 = (size_t)blockIdx.x * THREADS * UNROLL + threadIdx.x;
    for (size_t r = blockIdx.y; r < rows; r += gridDim.y) {
        const uint4 *a4 = reinterpret_cast<const uint4 *>(a) + r * lda;
        const uint4 *b4 = reinterpret_cast<const uint4 *>(b) + r * ldb;
        uint4 *c4 = reinterpret_cast<uint4 *>(c) + r * nv;
        uint4 va[UNROLL], vb[UNROLL];
#pragma unroll
        for (int k = 0; k < UNROLL; k++) { /* every load issued before the first use */
            size_t v = v0 + (size_t)k * THREADS;
            if (v < nv) {
                va[k] = a4[v];
                if (OP != OP_SILU)
                    vb[k] = b4[v];
            }
        }
#pragma unroll
        for (int k = 0; k < UNROLL; k++) {
            size_t v = v0 + (size_t)k * THREADS;
            if (v >= nv)
                continue;
            float fa[PER], fb[PER];
            vec16<T>::unpack(va[k], fa);
            if (OP != OP_SILU)
                vec16<T>::unpack(vb[k], fb);
#pragma unroll
            for (int e = 0; e < PER; e++)
                fa[e] = apply<OP>(fa[e], OP != OP_SILU ? fb[e] : 0.f);
            c4[v] = vec16<T>::pack(fa);
        }
    }
    if (n_flat > nv * PER && blockIdx.x == gridDim.x - 1)
        for (size_t i = nv * PER + threadIdx.x; i < n_flat; i += THREADS)
            c[i] = from_f<T>(apply<OP>(to_f(a[i]), OP != OP_SILU ? to_f(b[i]) : 0.f));
}

/* Element (r, col) of rows x n, any strides and alignments. */
template <int OP, typename T>
__global__ void __launch_bounds__(THREADS)
    ew_any_kernel(const T *__restrict__ a, size_t lda, const T *__restrict__ b, size_t ldb, T *__restrict__ c,
                  size_t rows, size_t n)
{
    const size_t total = rows * n;
    for (size_t i = (size_t)blockIdx.x * THREADS + threadIdx.x; i < total; i += (size_t)gridDim.x * THREADS) {
        size_t r = i / n, col = i - r * n;
        float fb = OP != OP_SILU ? to_f(b[r * ldb + col]) : 0.f;
        c[i] = from_f<T>(apply<OP>(to_f(a[r * lda + col]), fb));
    }
}

bool aligned16(const void *p)
{
    return ((uintptr_t)p & 15) == 0;
}

template <int OP, typename T>
int launch_vec(const T *a, size_t lda, const T *b, size_t ldb, T *c, size_t rows, size_t nv, size_t n_flat, int sms,
               cudaStream_t s)
{
    /* 4 vectors in flight a thread, as klab's copy, unless that leaves fewer than two blocks an SM */
    const bool wide = rows * nv >= (size_t)(sms > 0 ? sms : 1) * THREADS * 4 * 2;
    const size_t per_block = (size_t)THREADS * (wide ? 4 : 1);
    size_t bx = (nv + per_block - 1) / per_block;
    bx = bx ? bx : 1;
    if (bx > 0x7fffffffu)
        return (int)cudaErrorInvalidConfiguration;
    dim3 grid((unsigned)bx, (unsigned)(rows < 65535 ? rows : 65535));
    if (wide)
        ew_vec_kernel<OP, T, 4><<<grid, THREADS, 0, s>>>(a, lda, b, ldb, c, rows, nv, n_flat);
    else
        ew_vec_kernel<OP, T, 1><<<grid, THREADS, 0, s>>>(a, lda, b, ldb, c, rows, nv, n_flat);
    return (int)cudaGetLastError();
}

/* c (rows x n, contiguous) = OP(a, b), rows of a and b lda and ldb elements apart; b unused by SILU. */
template <int OP, typename T>
int ew_launch(const T *a, size_t lda, const T *b, size_t ldb, T *c, size_t rows, size_t n, int sms, cudaStream_t s)
{
    constexpr size_t PER = 16 / sizeof(T);
    if (rows == 0 || n == 0)
        return (int)cudaErrorInvalidValue;
    const bool aligned = aligned16(a) && aligned16(c) && (OP == OP_SILU || aligned16(b));
    const bool flat = rows == 1 || (lda == n && (OP == OP_SILU || ldb == n));
    if (aligned && flat) {
        size_t total = rows * n;
        return launch_vec<OP, T>(a, 0, b, 0, c, 1, total / PER, total, sms, s);
    }
    if (aligned && n % PER == 0 && lda % PER == 0 && ldb % PER == 0)
        return launch_vec<OP, T>(a, lda / PER, b, ldb / PER, c, rows, n / PER, 0, sms, s);
    size_t blocks = (rows * n + THREADS - 1) / THREADS;
    blocks = blocks < 65536 ? blocks : 65536;
    ew_any_kernel<OP, T><<<(unsigned)blocks, THREADS, 0, s>>>(a, lda, b, ldb, c, rows, n);
    return (int)cudaGetLastError();
}

} // namespace

extern "C" int swiglu_fused_launch(klab_dtype d, const void *gate, const void *up, size_t ld, void *out, size_t rows,
                                   size_t n, int sms, klab_stream s)
{
    KLAB_DISPATCH_FLOAT(d, T,
                        return ew_launch<OP_SWIGLU, T>((const T *)gate, ld, (const T *)up, ld, (T *)out, rows, n, sms, s));
    return (int)cudaErrorInvalidValue;
}

extern "C" int swiglu_baseline_launch(klab_dtype d, const void *gate, const void *up, size_t ld, void *out, void *tmp,
                                      size_t rows, size_t n, int sms, klab_stream s)
{
    KLAB_DISPATCH_FLOAT(d, T, {
        int e = ew_launch<OP_SILU, T>((const T *)gate, ld, (const T *)nullptr, n, (T *)tmp, rows, n, sms, s);
        if (e != (int)cudaSuccess)
            return e;
        return ew_launch<OP_MUL, T>((const T *)tmp, n, (const T *)up, ld, (T *)out, rows, n, sms, s);
    });
    return (int)cudaErrorInvalidValue;
}
