/* The row skeleton's tile plan (row_plan.h: tile = 1), for short rows that do not start on 16-byte
 * boundaries. Included by row_kernel.cuh, whose pieces (RowSpan, row_span, reduce_group, step_out) it
 * uses, and row_ring.cuh's ring_vec (a vector of shared memory as the op sees it).
 *
 * Why: the register plans read a row through the aligned vectors that overlap it, and the (at most
 * two) vectors it shares with its neighbours element by element: a row of 17 fp16 elements spans three
 * vectors, two of them edges, so a thread issues ~17 two-byte loads and as many stores where a copy
 * issues four 16-byte ones, each warp-wide instruction touching 32 rows 34 bytes apart. Here the
 * block's rows, one contiguous span of the tensor, come in as whole 16-byte vectors, coalesced, into
 * shared memory; each row's group builds its vectors from there (the edges masked with the op's pad,
 * as the ring plan does), reduces and finishes as in the register plans, writes its elements back
 * into the same shared memory through the op's epilogue, and the block stores the span in whole
 * vectors again; only the span's two edge vectors, shared with the neighbouring blocks, are written
 * element by element. On an H200 (at 4396ee7) it ran 1.10-1.63x its register twin on rows of
 * 3-6 vectors, level at 9-10 and slower past them: the per-shape choice takes it up to 8
 * (row_plan.c); ncu has the RMSNorm kernel at 65537x17 fp16 5.34 us, torch.compile's 7.52.
 *
 * An op takes tile plans where it takes ring plans (RING: its rows read from one tensor, ring_in() and
 * pad()) and, if it writes rows (ROW_OUT), with one more hook:
 *   elem_t *&rows_out();  // the pointer the op writes its rows through (the skeleton points it at the tile)
 * The skeleton then gives row_begin a RowSpan counted from the block's first vector in shared memory,
 * so the op's row pointers (x's too, never read here) are offsets into the tile.
 *
 * The span's vectors are loaded whole, except the tensor's last vector where it runs past the tensor's
 * end: no read outside the tensor (unlike the ring plan), since the tile plan is an own choice and runs
 * on whatever tensors a caller hands it.
 *
 * Column operands. An op that scales each column by a vector of its own (RMSNorm's gain w) would read
 * it element by element too, since a ragged row's columns start anywhere in a vector: 24 two-byte
 * loads a thread at a row of 17 fp16 (the tile RMSNorm ran 7.46 us with them, the tile softmax 6.46;
 * staged as below, RMSNorm's tile gained 4-9 % more on its register twin: H200,
 * docs/measurements/2026-11-23-h200-20.md section 1). With
 * rowk::tile_columns<Op>::value the block stages it instead, once, in PER copies in shared memory,
 * copy h shifted by h elements (zeros outside its columns), so that a row whose first element is
 * element h of its first vector finds each of its vectors' gains as one aligned 16-byte vector of
 * copy h. Such an op provides
 *   const elem_t *columns() const;                     // the operand, cols elements
 *   void tile_columns(const uint4 *copies, int stride); // copy h is copies + h * stride (vectors)
 * The copies take PER * stride vectors (stride: the longest window) and are staged only up to
 * ROW_TILE_COLUMN_VECTORS of them; past that the op reads its operand as in the register plans. */
#ifndef ROW_TILE_CUH
#define ROW_TILE_CUH

#include "row/row_kernel.cuh"

namespace rowk {

/* Ops with a column operand to stage (see above); an op opts in. */
template <class Op> struct tile_columns {
    static constexpr bool value = false;
};
/* The most vectors the shifted copies of a column operand take (4 KiB: rows of windows up to 32
   vectors of 16-bit elements, 64 of fp32) */
#define ROW_TILE_COLUMN_VECTORS 256

/* Vectors of the copies for rows of `cols` elements of `elem` bytes, 0 where they are not staged. */
__host__ __device__ inline int tile_column_vectors(int64_t cols, int elem)
{
    const int64_t per = 16 / elem, stride = (cols + 2 * per - 2) / per, n = per * stride;
    return n <= ROW_TILE_COLUMN_VECTORS ? (int)n : 0;
}

/* Vector v of tensor `in` of `total` elements: one 16-byte load, or the elements that exist. */
template <typename T> __device__ __forceinline__ uint4 tile_load(const uint4 *in, int64_t v, int64_t total)
{
    constexpr int PER = 16 / sizeof(T);
    const int64_t left = total - v * PER;
    if (left >= PER)
        return __ldg(in + v);
    Slot sl;
    sl.i = 0, sl.lo = 0, sl.hi = (int)left, sl.hint = HINT_NONE;
    return load_vec<T>(reinterpret_cast<const T *>(in + v), sl, 0.f);
}

/* The column operand's shifted copies into `at` (the block's threads; read after the next barrier):
   element e of vector v of copy h is column v * PER + e - h */
template <class Op> __device__ __forceinline__ void stage_columns(Op &o, const Geom &g, uint4 *at)
{
    typedef typename Op::elem_t T;
    constexpr int PER = 16 / sizeof(T);
    const int ncv = tile_column_vectors(g.cols, (int)sizeof(T));
    if (!ncv)
        return;
    const int stride = ncv / PER;
    const T *c = o.columns();
    T *copies = reinterpret_cast<T *>(at);
    for (int x = (int)threadIdx.x; x < ncv * PER; x += (int)blockDim.x) {
        const int h = x / (stride * PER), col = x % (stride * PER) - h;
        copies[x] = col >= 0 && col < g.cols ? c[col] : T(0.f);
    }
    o.tile_columns(at, stride);
}

template <class Op, int VPT>
__global__ void __launch_bounds__(ROW_PLAN_TILE_MAX_CTA) tile_kernel(Op op, Geom g, int span_vectors)
{
    typedef typename Op::elem_t T;
    typedef typename Op::acc_t A;
    constexpr int PER = 16 / sizeof(T);
    extern __shared__ __align__(16) uint4 tile[];
    __shared__ A warp_part[32];
    const int tid = (int)threadIdx.x, cta = (int)blockDim.x;
    const int64_t row0 = (int64_t)blockIdx.x * (cta >> g.tpr_log2);
    const int64_t nrows = min((int64_t)(cta >> g.tpr_log2), g.rows - row0);
    const int64_t total = g.rows * g.cols, e0 = row0 * g.cols, e1 = e0 + nrows * g.cols; /* the span */
    const int64_t t0 = e0 / PER;
    const int n = (int)((e1 + PER - 1) / PER - t0);
    Op o = op;

    /* the span in: at most VPT + 1 vectors a thread (its rows' windows cover at most cta * VPT
       vectors of elements, plus one where the span starts inside a vector), all in flight */
    {
        const uint4 *in = reinterpret_cast<const uint4 *>(o.ring_in());
        uint4 v[VPT + 1];
#pragma unroll
        for (int k = 0; k <= VPT; k++) {
            const int j = tid + k * cta;
            if (j < n)
                v[k] = tile_load<T>(in, t0 + j, total);
        }
        if constexpr (tile_columns<Op>::value)
            stage_columns(o, g, tile + span_vectors);
#pragma unroll
        for (int k = 0; k <= VPT; k++) {
            const int j = tid + k * cta;
            if (j < n)
                tile[j] = v[k];
        }
    }
    __syncthreads();

    const int lane = tid & (g.tpr - 1);
    const RowSpan r = row_span<PER, false>(row0 + (tid >> g.tpr_log2), g);
    const bool live = r.row < g.rows;
    const uint4 *rt = tile + (r.v0 - t0); /* the row's window in the tile (not read when not live) */
    const float pad = o.pad();
    uint4 raw[VPT];
#pragma unroll
    for (int k = 0; k < VPT; k++) {
        const int i = k * g.tpr + lane;
        raw[k] = ring_vec<T, false>(rt, i, r.slot<PER>(i, live && i < r.nwin), pad);
    }
    A acc = o.partial(raw);
    acc = reduce_group(o, acc, g, warp_part);
    if constexpr (Op::ROW_OUT) {
        T *&rows = o.rows_out();
        T *out = rows;
        rows = reinterpret_cast<T *>(tile);
        RowSpan lr = r;
        lr.v0 = r.v0 - t0;
        o.row_begin(lr, live);
        o.finish(acc, r.row, live && lane == 0);
        __syncthreads(); /* every row is in registers: the tile takes the outputs in place */
        step_out<VPT, PER, false, HINT_NONE>(o, lr, raw, 0, g, lane, r.nwin);
        __syncthreads();
        uint4 *dst = reinterpret_cast<uint4 *>(out);
#pragma unroll
        for (int k = 0; k <= VPT; k++) {
            const int j = tid + k * cta;
            if (j >= n)
                continue;
            const int64_t b = (t0 + j) * PER; /* the vector's first element */
            Slot sl;
            sl.i = 0, sl.hint = HINT_NONE;
            sl.lo = (int)max(e0 - b, (int64_t)0);
            sl.hi = (int)min(e1 - b, (int64_t)PER);
            store_vec<T>(reinterpret_cast<T *>(dst + t0 + j), sl, tile[j]);
        }
    } else {
        o.row_begin(r, live);
        o.finish(acc, r.row, live && lane == 0);
    }
}

template <class Op>
cudaError_t launch_tile(const Op &op, const row_plan &p, const Geom &g, unsigned blocks, cudaStream_t st)
{
    typedef typename Op::elem_t T;
    const row_shape s = {(size_t)g.rows, (size_t)g.cols, sizeof(T)};
    const int span = (int)row_plan_tile_vectors(&s, &p);
    const size_t smem = ((size_t)span + (tile_columns<Op>::value ? tile_column_vectors(g.cols, (int)sizeof(T)) : 0)) * 16;
    if (smem > 48 * 1024) /* the plan is row_plan_check's; this is the launch's limit without an attribute */
        return cudaErrorInvalidValue;
    switch (p.vpt) {
    case 1: tile_kernel<Op, 1><<<blocks, p.cta, smem, st>>>(op, g, span); break;
    case 2: tile_kernel<Op, 2><<<blocks, p.cta, smem, st>>>(op, g, span); break;
    case 4: tile_kernel<Op, 4><<<blocks, p.cta, smem, st>>>(op, g, span); break;
    case 8: tile_kernel<Op, 8><<<blocks, p.cta, smem, st>>>(op, g, span); break;
    default: return cudaErrorInvalidValue;
    }
    return cudaGetLastError();
}

} // namespace rowk

#endif
