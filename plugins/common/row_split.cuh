/* The row skeleton's split plan (row_plan.h: split = 1), for rows past 64 KiB. Included by
 * row_kernel.cuh, whose pieces (Slot, RowSpan, row_span, reduce_group) it uses.
 *
 * Why: a cluster plan's blocks wait for each other at every row and start and end together, a cluster
 * at a time in one GPC; on an H200 every cluster plan, ring or register, ran at 62-83 % of klab's copy at
 * N = 65536..262144, while one block a row of the same size of block reached 94-96 % at N = 32768
 * (docs/notes/rmsnorm.md). Here no cluster is launched. A row is cut into S units of cta * vpt vectors;
 * unit u is the (u % S)-th part of row u / S. A persistent grid of P blocks (as many as are resident at
 * once, fewer where that evens out the units a block) walks the units: block b takes b, b + P, b + 2P.
 * For each, the block
 *   - has the unit in registers (loaded one round earlier) and loads its next unit into a second set,
 *     so an SM always has loads in flight, also while it waits;
 *   - reduces the unit (its threads, then its warps) and stores the block's partial in the workspace,
 *     each 32-bit word of it in a 64-bit slot beside the launch's tag (one single-copy-atomic store);
 *   - has one warp read the row's S slots until each carries the tag, merge the partials in unit order
 *     (a fixed tree: every block of the row gets the same total, bit for bit, every run), and writes
 *     the unit through the op's epilogue.
 * No block waits for one that is not resident: units are numbered row by row, every block walks them in
 * order and publishes a unit's partial before it waits on that unit's row, the S units of a row lie in
 * S consecutive blocks' same or next round, and S <= P; so the oldest row in flight always completes.
 * A wait that does not end (a broken invariant, another kernel holding SMs forever) traps after about
 * four seconds instead of hanging the worker.
 *
 * The workspace (row_plan_split_bytes; the plugin's own memory, zeroed once): the launch's counter of
 * finished blocks, the number of launches so far, a partial's slots a unit. A launch's tag is that
 * number + 1, so no slot written by an earlier launch carries it and nothing is cleared between
 * launches: the last block to finish (the counter of finished blocks says which; every block read the
 * number before it counted itself) moves the number on and zeroes the counter. Launches on one stream
 * therefore share one workspace; two concurrent launches must not. */
#ifndef ROW_SPLIT_CUH
#define ROW_SPLIT_CUH

#include "row_kernel.cuh"

namespace rowk {

/* A partial travels as 32-bit words, each in a 64-bit slot with the launch's tag beside it: one
   single-copy-atomic store a word, so a reader that sees the tag sees the word, with no fence, counter
   or second read (a release / acquire counter measured slower: docs/notes/rmsnorm.md). */
__device__ __forceinline__ void st_tagged(unsigned long long *p, uint32_t word, uint32_t tag)
{
    asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(p), "l"((unsigned long long)tag << 32 | word) : "memory");
}

__device__ __forceinline__ unsigned long long ld_tagged(const unsigned long long *p)
{
    unsigned long long v;
    asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}

template <typename A> struct Words;
template <> struct Words<float> {
    static constexpr int N = 1;
    __device__ static void split(float a, uint32_t (&w)[1]) { w[0] = __float_as_uint(a); }
    __device__ static float join(const uint32_t (&w)[1]) { return __uint_as_float(w[0]); }
};
template <> struct Words<float2> {
    static constexpr int N = 2;
    __device__ static void split(float2 a, uint32_t (&w)[2]) { w[0] = __float_as_uint(a.x), w[1] = __float_as_uint(a.y); }
    __device__ static float2 join(const uint32_t (&w)[2]) { return make_float2(__uint_as_float(w[0]), __uint_as_float(w[1])); }
};

/* Where the workspace's parts lie (row_plan_split_bytes has room for it): the launch's counter of
   finished blocks, the launch count (tags are it + 1), then Words<A>::N slots a unit. */
template <typename A> struct SplitSpace {
    unsigned *done, *epoch;
    unsigned long long *slot;
    __host__ __device__ explicit SplitSpace(void *ws)
    {
        done = static_cast<unsigned *>(ws);
        epoch = done + 1;
        slot = reinterpret_cast<unsigned long long *>(done + 4);
    }
};

template <class Op, int VPT, bool ALIGNED> struct SplitUnit {
    typedef typename Op::elem_t T;
    typedef typename Op::acc_t A;
    static constexpr int PER = 16 / sizeof(T);

    /* the unit's row and its vectors [c0, c1) of the row's window */
    __device__ __forceinline__ static RowSpan span(int64_t u, int S, const Geom &g, int &c0, int &c1)
    {
        const int64_t row = u / S;
        const RowSpan r = row_span<PER, ALIGNED>(row, g);
        c0 = (int)(u - row * S) * (VPT * g.tpr);
        c1 = min(c0 + VPT * g.tpr, r.nwin);
        return r;
    }

    __device__ __forceinline__ static void load(int64_t u, int S, const Geom &g, Op &o, uint4 (&raw)[VPT])
    {
        int c0, c1;
        const RowSpan r = span(u, S, g, c0, c1);
        o.row_begin(r, true);
#pragma unroll
        for (int k = 0; k < VPT; k++) {
            const int i = c0 + k * g.tpr + (int)threadIdx.x;
            raw[k] = o.load(r.slot<PER>(i, i < c1));
        }
    }

    /* Reduce unit u, publish its partial, wait for its row's, finish, write. */
    __device__ __forceinline__ static void finish(int64_t u, int S, const Geom &g, Op &o, const uint4 (&raw)[VPT],
                                                  const SplitSpace<A> &ws, uint32_t tag, A *warp_part, A *total)
    {
        int c0, c1;
        const RowSpan r = span(u, S, g, c0, c1);
        const int tid = (int)threadIdx.x;
        A a = reduce_group(o, o.partial(raw), g, warp_part); /* ends with every thread past a block barrier */
        typedef Words<A> W;
        if (tid == 0) {
            uint32_t w[W::N];
            W::split(a, w);
#pragma unroll
            for (int k = 0; k < W::N; k++)
                st_tagged(ws.slot + u * W::N + k, w[k], tag);
        }
        if (tid < 32) {
            /* lane j gathers units j and j + 32 of the row, in unit order, then a fixed tree */
            const unsigned long long *row = ws.slot + (u - (u % S)) * W::N;
            a = o.identity();
            for (int j = tid; j < S; j += 32) {
                uint32_t w[W::N];
#pragma unroll
                for (int k = 0; k < W::N; k++) {
                    unsigned long long v;
                    for (long n = 0; (uint32_t)((v = ld_tagged(row + j * W::N + k)) >> 32) != tag; n++) {
                        if (n > (1L << 25))
                            __trap(); /* ~4 s: a unit of this row never came (row_split.cuh's first comment) */
                        if (n > 64)
                            __nanosleep(100);
                    }
                    w[k] = (uint32_t)v;
                }
                a = o.merge(a, W::join(w));
            }
            for (int off = 16; off > 0; off >>= 1)
                a = o.merge(a, shfl_xor(a, off));
            if (tid == 0)
                *total = a;
        }
        __syncthreads();
        o.finish(*total, r.row, tid == 0 && c0 == 0);
        if constexpr (Op::ROW_OUT) {
#pragma unroll
            for (int k = 0; k < VPT; k++) {
                const int i = c0 + k * g.tpr + tid;
                o.epilogue(raw[k], r.slot<PER>(i, i < c1));
            }
        }
    }
};

/* Two units of VPT vectors a thread in registers: 512 threads (128 registers each) up to VPT 4, 256 at VPT 8. */
template <int VPT> constexpr int split_max_threads() { return ROW_PLAN_SPLIT_VECTORS / VPT < 512 ? ROW_PLAN_SPLIT_VECTORS / VPT : 512; }

template <class Op, int VPT, bool ALIGNED>
__global__ void __launch_bounds__(split_max_threads<VPT>()) split_kernel(Op op, Geom g, int S, void *wsp)
{
    typedef typename Op::acc_t A;
    typedef SplitUnit<Op, VPT, ALIGNED> U;
    __shared__ A warp_part[32];
    __shared__ A total;
    const SplitSpace<A> ws(wsp);
    const uint32_t tag = __ldcg(ws.epoch) + 1; /* the last block of the previous launch moved it on */
    const int64_t units = g.rows * S, P = gridDim.x;
    Op oa = op, ob = op;
    uint4 ra[VPT], rb[VPT];
    int64_t u = blockIdx.x;
    if (u < units)
        U::load(u, S, g, oa, ra);
    /* two rounds a turn, so that each set of registers keeps its name */
    while (u < units) {
        if (u + P < units)
            U::load(u + P, S, g, ob, rb);
        U::finish(u, S, g, oa, ra, ws, tag, warp_part, &total);
        u += P;
        if (u >= units)
            break;
        if (u + P < units)
            U::load(u + P, S, g, oa, ra);
        U::finish(u, S, g, ob, rb, ws, tag, warp_part, &total);
        u += P;
    }
    /* every thread read the launch count before its block counts itself finished: the last moves it on */
    __syncthreads();
    if (threadIdx.x == 0 && atomicAdd(ws.done, 1u) == (unsigned)(P - 1)) {
        *ws.done = 0;
        *ws.epoch = tag;
    }
}

/* The persistent grid: the blocks resident at once (asked of the occupancy calculator once per kernel
   and cta), then as few as carry the same most units a block. */
template <class Op, int VPT, bool ALIGNED>
cudaError_t launch_split_kernel(const Op &op, const Geom &g, int cta, int S, void *ws, cudaStream_t st)
{
    void (*kern)(Op, Geom, int, void *) = split_kernel<Op, VPT, ALIGNED>;
    static int fit_cta[4], fit[4], nfit;
    int resident = 0;
    for (int i = 0; i < nfit && !resident; i++)
        if (fit_cta[i] == cta)
            resident = fit[i];
    if (!resident) {
        int dev = 0, sms = 0, per = 0;
        cudaError_t e = cudaGetDevice(&dev);
        if (e == cudaSuccess)
            e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
        if (e == cudaSuccess)
            e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, kern, cta, 0);
        if (e != cudaSuccess)
            return e;
        resident = sms * per;
        if (nfit < 4)
            fit_cta[nfit] = cta, fit[nfit++] = resident;
    }
    const int64_t units = g.rows * S;
    if (resident < S)
        return cudaErrorInvalidConfiguration; /* a row's units would not all be resident at once */
    const int64_t rounds = (units + resident - 1) / resident, blocks = (units + rounds - 1) / rounds;
    kern<<<(unsigned)blocks, (unsigned)cta, 0, st>>>(op, g, S, ws);
    return cudaGetLastError();
}

template <class Op>
cudaError_t launch_split(const Op &op, const row_plan &p, const Geom &g, int64_t window, void *ws, cudaStream_t st)
{
    const int64_t unit = (int64_t)p.cta * p.vpt, S = (window + unit - 1) / unit;
    const bool aligned = g.cols * (int64_t)sizeof(typename Op::elem_t) % 16 == 0;
    if (!ws || p.cluster != 1 || p.tpr != p.cta || p.stream || p.ring || S > ROW_PLAN_MAX_SPLIT || p.cta > 512 ||
        (int64_t)p.cta * p.vpt > ROW_PLAN_SPLIT_VECTORS)
        return cudaErrorInvalidValue;
    switch (p.vpt) {
    case 2: return aligned ? launch_split_kernel<Op, 2, true>(op, g, p.cta, (int)S, ws, st)
                           : launch_split_kernel<Op, 2, false>(op, g, p.cta, (int)S, ws, st);
    case 4: return aligned ? launch_split_kernel<Op, 4, true>(op, g, p.cta, (int)S, ws, st)
                           : launch_split_kernel<Op, 4, false>(op, g, p.cta, (int)S, ws, st);
    case 8: return aligned ? launch_split_kernel<Op, 8, true>(op, g, p.cta, (int)S, ws, st)
                           : launch_split_kernel<Op, 8, false>(op, g, p.cta, (int)S, ws, st);
    default: return cudaErrorInvalidValue;
    }
}

} // namespace rowk

#endif
