/* The gated activation's kernels (gated.h): one elementwise template and its ops,
 *   SILU    t = silu(a)         the baseline's first kernel (rounded to the dtype, as eager keeps it)
 *   MUL     c = a * b           the baseline's second kernel
 *   SWIGLU  c = silu(a) * b     the fused kernel: one pass, one rounding
 *   GEGLU   c = gelu(a) * b     the same with GELU (fused_gated_mlp's activation choice)
 * so the baseline differs from the fused kernel only in the traffic fusion removes (it writes and
 * reads back the silu tensor: 5 M*N elements moved instead of 3), not in how it loads.
 *
 * How a launch is chosen:
 *   flat     gate, up and out contiguous alike (split layout, or one row): one vector of rows * n
 *            elements, 16-byte loads and stores, the plan's unroll vectors of each operand in flight a
 *            thread, the last partial vector done element-wise by the last block (any length);
 *   rows     rows whose operands lie at different strides (packed layout, and the baseline's multiply
 *            reading the contiguous silu tensor beside a packed up) and whose row length is a whole
 *            number of 16-byte vectors: the same kernel, a block's tile within one row (the last tile
 *            of a row does fewer vectors a thread), the grid's y over the rows;
 *   any      everything else (a packed row that is not a whole number of vectors puts gate, up and out
 *            at different misalignments, so no 16-byte load serves all three; no model has one):
 *            element by element.
 * The vectorized kernel's plan (threads, vectors in flight, cache hints: swiglu_plan in gated.h) is
 * the fused profile's tuning space; the baseline and fused_gated_mlp take the own choice. */
#include <cuda_runtime.h>
#include <stdint.h>

/* to_f, from_f and vec16 (a 16-byte vector as floats and back), shared with the row kernels */
#include "cuda/numeric.cuh"
/* silu and gelu, shared with fused_gated_mlp's epilogue */
#include "cuda/activation.cuh"
#include "klab/cuda.h"
#include "gated/gated.h"

namespace {

constexpr int THREADS = 256;   /* the element-wise kernel's */
constexpr int MAX_THREADS = 512; /* the vectorized kernel's largest plan */
enum { OP_SILU = 0, OP_MUL, OP_SWIGLU, OP_GEGLU };

template <int OP> __device__ __forceinline__ float apply(float a, float b)
{
    if (OP == OP_SILU)
        return act_silu(a);
    if (OP == OP_MUL)
        return a * b;
    return act_gated<OP == OP_GEGLU ? ACT_GELU : ACT_SILU>(a, b);
}

/* HINT 2: ld.global.cs (read once: evict first); else the read-only path. */
template <int HINT> __device__ __forceinline__ uint4 load16(const uint4 *p)
{
    return HINT >= 2 ? __ldcs(p) : __ldg(p);
}
/* HINT 1 and 2: st.global.cs (out is not read again by this kernel). */
template <int HINT> __device__ __forceinline__ void store16(uint4 *p, uint4 v)
{
    if (HINT >= 1)
        __stcs(p, v);
    else
        *p = v;
}

/* Rows of nv 16-byte vectors: row r's vector v is at r * lda + v in a, r * ldb + v in b (lda, ldb in
   vectors) and r * nv + v in c. Blocks of the grid's x cover a row in tiles of blockDim * UNROLL
   vectors, the y blocks stride over the rows: no division anywhere. A flat vector is one row; the last
   block then also does its elements [nv * PER, n_flat), fewer than a vector. */
template <int OP, typename T, int UNROLL, int HINT>
__global__ void __launch_bounds__(MAX_THREADS)
    ew_vec_kernel(const T *__restrict__ a, size_t lda, const T *__restrict__ b, size_t ldb, T *__restrict__ c,
                  size_t rows, size_t nv, size_t n_flat)
{
    constexpr int PER = 16 / sizeof(T);
    const size_t cta = blockDim.x, v0 = (size_t)blockIdx.x * cta * UNROLL + threadIdx.x;
    for (size_t r = blockIdx.y; r < rows; r += gridDim.y) {
        const uint4 *a4 = reinterpret_cast<const uint4 *>(a) + r * lda;
        const uint4 *b4 = reinterpret_cast<const uint4 *>(b) + r * ldb;
        uint4 *c4 = reinterpret_cast<uint4 *>(c) + r * nv;
        uint4 va[UNROLL], vb[UNROLL];
#pragma unroll
        for (int k = 0; k < UNROLL; k++) { /* every load issued before the first use */
            size_t v = v0 + (size_t)k * cta;
            if (v < nv) {
                va[k] = load16<HINT>(a4 + v);
                if (OP != OP_SILU)
                    vb[k] = load16<HINT>(b4 + v);
            }
        }
#pragma unroll
        for (int k = 0; k < UNROLL; k++) {
            size_t v = v0 + (size_t)k * cta;
            if (v >= nv)
                continue;
            float fa[PER], fb[PER];
            vec16<T>::unpack(va[k], fa);
            if (OP != OP_SILU)
                vec16<T>::unpack(vb[k], fb);
#pragma unroll
            for (int e = 0; e < PER; e++)
                fa[e] = apply<OP>(fa[e], OP != OP_SILU ? fb[e] : 0.f);
            store16<HINT>(c4 + v, vec16<T>::pack(fa));
        }
    }
    if (n_flat > nv * PER && blockIdx.x == gridDim.x - 1)
        for (size_t i = nv * PER + threadIdx.x; i < n_flat; i += cta)
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

template <int OP, typename T, int UNROLL, int HINT>
int launch_vec(const T *a, size_t lda, const T *b, size_t ldb, T *c, size_t rows, size_t nv, size_t n_flat, int cta,
               cudaStream_t s)
{
    const size_t per_block = (size_t)cta * UNROLL;
    size_t bx = (nv + per_block - 1) / per_block;
    bx = bx ? bx : 1;
    if (bx > 0x7fffffffu)
        return (int)cudaErrorInvalidConfiguration;
    dim3 grid((unsigned)bx, (unsigned)(rows < 65535 ? rows : 65535));
    ew_vec_kernel<OP, T, UNROLL, HINT><<<grid, cta, 0, s>>>(a, lda, b, ldb, c, rows, nv, n_flat);
    return (int)cudaGetLastError();
}

/* The plan's kernel: every point of the space for the fused op (TUNED), the own choice's (one vector
   a thread, no hint) for the others, so the baseline's kernels are not compiled 12 times over. */
template <int OP, typename T, int HINT, bool TUNED>
int launch_unroll(const swiglu_plan &p, const T *a, size_t lda, const T *b, size_t ldb, T *c, size_t rows, size_t nv,
                  size_t n_flat, cudaStream_t s)
{
    if (p.unroll == 1)
        return launch_vec<OP, T, 1, HINT>(a, lda, b, ldb, c, rows, nv, n_flat, p.cta, s);
    if constexpr (TUNED) {
        switch (p.unroll) {
        case 2: return launch_vec<OP, T, 2, HINT>(a, lda, b, ldb, c, rows, nv, n_flat, p.cta, s);
        case 4: return launch_vec<OP, T, 4, HINT>(a, lda, b, ldb, c, rows, nv, n_flat, p.cta, s);
        case 8: return launch_vec<OP, T, 8, HINT>(a, lda, b, ldb, c, rows, nv, n_flat, p.cta, s);
        default: break;
        }
    }
    return (int)cudaErrorInvalidValue;
}

template <int OP, typename T, bool TUNED>
int launch_plan(const swiglu_plan &p, const T *a, size_t lda, const T *b, size_t ldb, T *c, size_t rows, size_t nv,
                size_t n_flat, cudaStream_t s)
{
    if (p.cta < 32 || p.cta > MAX_THREADS || p.cta % 32 != 0)
        return (int)cudaErrorInvalidValue;
    if (p.hint == 0)
        return launch_unroll<OP, T, 0, TUNED>(p, a, lda, b, ldb, c, rows, nv, n_flat, s);
    if constexpr (TUNED) {
        if (p.hint == 1)
            return launch_unroll<OP, T, 1, TUNED>(p, a, lda, b, ldb, c, rows, nv, n_flat, s);
        if (p.hint == 2)
            return launch_unroll<OP, T, 2, TUNED>(p, a, lda, b, ldb, c, rows, nv, n_flat, s);
    }
    return (int)cudaErrorInvalidValue;
}

/* c (rows x n, contiguous) = OP(a, b), rows of a and b lda and ldb elements apart; b unused by SILU.
   plan NULL: the own choice. */
template <int OP, typename T, bool TUNED = false>
int ew_launch(const T *a, size_t lda, const T *b, size_t ldb, T *c, size_t rows, size_t n, const swiglu_plan *plan,
              cudaStream_t s)
{
    constexpr size_t PER = 16 / sizeof(T);
    if (rows == 0 || n == 0)
        return (int)cudaErrorInvalidValue;
    const swiglu_plan p = plan ? *plan : swiglu_plan_choose();
    const bool aligned = aligned16(a) && aligned16(c) && (OP == OP_SILU || aligned16(b));
    const bool flat = rows == 1 || (lda == n && (OP == OP_SILU || ldb == n));
    if (aligned && flat) {
        size_t total = rows * n;
        return launch_plan<OP, T, TUNED>(p, a, 0, b, 0, c, 1, total / PER, total, s);
    }
    if (aligned && n % PER == 0 && lda % PER == 0 && ldb % PER == 0)
        return launch_plan<OP, T, TUNED>(p, a, lda / PER, b, ldb / PER, c, rows, n / PER, 0, s);
    size_t blocks = (rows * n + THREADS - 1) / THREADS;
    blocks = blocks < 65536 ? blocks : 65536;
    ew_any_kernel<OP, T><<<(unsigned)blocks, THREADS, 0, s>>>(a, lda, b, ldb, c, rows, n);
    return (int)cudaGetLastError();
}

} // namespace

extern "C" int swiglu_fused_launch(klab_dtype d, const void *gate, const void *up, size_t ld, void *out, size_t rows,
                                   size_t n, const swiglu_plan *plan, klab_stream s)
{
    KLAB_DISPATCH_FLOAT(d, T,
                        return ew_launch<OP_SWIGLU, T, true>((const T *)gate, ld, (const T *)up, ld, (T *)out, rows, n,
                                                             plan, s));
    return (int)cudaErrorInvalidValue;
}

extern "C" int geglu_fused_launch(klab_dtype d, const void *gate, const void *up, size_t ld, void *out, size_t rows,
                                  size_t n, klab_stream s)
{
    KLAB_DISPATCH_FLOAT(d, T,
                        return ew_launch<OP_GEGLU, T>((const T *)gate, ld, (const T *)up, ld, (T *)out, rows, n, NULL,
                                                      s));
    return (int)cudaErrorInvalidValue;
}

extern "C" int swiglu_baseline_launch(klab_dtype d, const void *gate, const void *up, size_t ld, void *out, void *tmp,
                                      size_t rows, size_t n, klab_stream s)
{
    KLAB_DISPATCH_FLOAT(d, T, {
        int e = ew_launch<OP_SILU, T>((const T *)gate, ld, (const T *)nullptr, n, (T *)tmp, rows, n, NULL, s);
        if (e != (int)cudaSuccess)
            return e;
        return ew_launch<OP_MUL, T>((const T *)tmp, n, (const T *)up, ld, (T *)out, rows, n, NULL, s);
    });
    return (int)cudaErrorInvalidValue;
}
