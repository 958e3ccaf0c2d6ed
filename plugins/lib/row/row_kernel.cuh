/* The row-kernel skeleton: one kernel for every op that reduces each row of an M x N matrix and then
 * (usually) writes the row again: RMSNorm (with or without the residual add), softmax, RMSNorm + RoPE,
 * the row reductions. An op is a small struct of device hooks; the skeleton owns the layout, the loads
 * and stores, and the reduction across threads, warps and thread-block clusters.
 *
 * Layout (row_plan.h; the plugin picks the plan per shape and names it in every row as `config`):
 *   - A group of tpr threads (a power of two) serves one row; a block of cta threads serves cta/tpr
 *     rows (short rows: 16 rows of 128 fp16 elements in a 256-thread block, no block barrier at all
 *     when tpr <= 32), or, with cluster > 1, the blocks of one cluster share one row: block `rank`
 *     takes the rank-th part of the row's vectors and the partial results meet in distributed shared
 *     memory (sm_90).
 *   - Each thread holds vpt 16-byte vectors in registers: vector k of a thread is the row's vector
 *     part_start + k * tpr + lane, so a warp's loads are consecutive 16-byte words. With stream = 0 the
 *     row (its part) is read once and kept for the epilogue; with stream = 1 the part is walked in
 *     steps of vpt * tpr vectors twice: reduce, then reload (from L2 where it still is) and write. A
 *     wide streaming plan (1024 x 8: one 128 KiB step a block, one block an SM) issues its step's
 *     loads all at once, asks L1 to keep them, and reads them again from L1, as torch.compile's
 *     two-pass kernel does (docs/notes/rmsnorm.md, v8).
 *   - Any length, any alignment: a row of elements [s, e) is read through the aligned 16-byte vectors
 *     that overlap it. A vector wholly inside the row is one 16-byte load; the (at most two) vectors
 *     it shares with its neighbours load only the row's elements and fill the rest with the op's
 *     neutral value (0 for a sum, -inf for a max), so the reduction needs no masks; stores write
 *     only the row's elements. No scalar fallback, no second code path for ragged rows.
 *   - With ring > 0 (long rows) the row's part lives in shared memory instead, the grid is persistent
 *     and each block's next rows load while it writes this one: row_ring.cuh.
 *   - With tile = 1 (short rows off 16-byte boundaries) the block's rows pass through shared memory in
 *     whole vectors, in and out: row_tile.cuh.
 *   - Accumulation in float, results rounded once to the output dtype.
 *
 * How an op plugs in (see rms_op.cuh, the softmax and RoPE ops for complete examples):
 *
 *   struct MyOp {
 *       typedef __half elem_t;          // the dtype of the rows (16-byte vectors of it)
 *       typedef float acc_t;            // what is reduced: float or float2
 *       static constexpr bool STREAMS = true;  // may run with stream = 1 (needs reload)
 *       static constexpr bool ROW_OUT = true;  // writes the row back (false: one value a row)
 *       __device__ void row_begin(const rowk::RowSpan &r, bool live); // the row's pointers (its window
 *                                       // starts at element r.v0 * PER), a position, ...
 *       __device__ uint4 load(const rowk::Slot &sl) const;         // prologue: the vector kept on chip
 *       __device__ uint4 reload(const rowk::Slot &sl) const;       // the same, for the streaming pass 2
 *       template <int V> __device__ acc_t partial(const uint4 (&raw)[V]) const; // a thread's share
 *       __device__ acc_t identity() const;                         // partial of nothing
 *       __device__ acc_t merge(acc_t a, acc_t b) const;            // commutative
 *       __device__ void finish(acc_t total, int64_t row, bool writer); // the row's result (writer:
 *                                                                   // the one thread that may store it)
 *       __device__ void epilogue(uint4 raw, const rowk::Slot &sl); // write one vector (ROW_OUT)
 *       static constexpr bool RING = true;     // may run ring plans: then also ring_in() and pad(),
 *                                       // and tile plans: then also rows_out() (row_tile.cuh)
 *   };
 *   // optional: rowk::four_vector_blocks<MyOp>::value = 2 bounds its aligned 4-vector on-chip kernel to
 *   // two blocks an SM where the rows fill the GPU (rms_op.cuh; see four_vector_blocks below), and
 *   // rowk::whole_epilogue<MyOp>::value = rowk::WHOLE_ALWAYS (or WHOLE_FEW: small grids) writes its
 *   // 4-vector rows in whole rows (whole_epilogue)
 *
 * load/reload/epilogue get a Slot: the vector's index i in the row's window (vector 0 holds the row's
 * first element, at position r.head of it) and the element range [lo, hi) of it that belongs to the
 * row (lo = hi = 0: none, e.g. a slot past the row's end); rowk::load_vec / store_vec do the masked
 * 16-byte access relative to the window's start. The element in column c of the row is element
 * c + r.head of the window. epilogue is called for every slot of every thread, live or not, so it may
 * use warp shuffles (RoPE's half-split partner is another lane); it must store nothing for an empty
 * slot. Indices within a row are 32-bit (a row of up to 2^31 vectors); tensors must start on 16-byte
 * boundaries (klab's start on 256-byte ones).
 *
 * Launch: rowk::launch<Op>(op, plan, rows, cols, stream). Cluster plans need sm_90 (the kernel is
 * compiled for sm_80 too, without the cluster exchange, which traps there): the plugin declines them
 * on older devices before launching. */
#ifndef ROW_KERNEL_CUH
#define ROW_KERNEL_CUH

#include <cooperative_groups.h>
#include <cuda_runtime.h>
#include <stdint.h>

#include "cuda/func_attr.cuh"
#include "cuda/launch_config.cuh"
#include "cuda/numeric.cuh"
#include "row/row_plan.h"

/* The sm_90 pass of the compilation, the measured one. The sm_80 pass builds the same kernels without
   clusters and bulk copies, and keeps the older form of two code shapes that spilled there
   (reduce_group's butterfly, the fp32 whole-step pass 2) */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define ROWK_SM90 1
#endif

namespace rowk {

/* How long a loaded line should stay in L1: a streaming plan reads its part twice, and the second read
   is an L1 hit only while the first read's lines are kept and the second's make way. */
enum Hint { HINT_NONE, HINT_KEEP /* read again soon: L1::evict_last */, HINT_LAST /* last read: L1::evict_first */ };

/* Vector i of a row's window (the aligned 16-byte vectors that overlap the row, counted from the
   first): [lo, hi) of its elements are the row's; lo = hi = 0 for a slot that holds nothing. hint is
   a compile-time constant at every call site (the skeleton's), so a load's branch on it folds. */
struct Slot {
    int i, lo, hi;
    Hint hint;
    __device__ __forceinline__ bool full(int per) const { return lo == 0 && hi == per; }
    __device__ __forceinline__ bool empty() const { return lo >= hi; }
};

/* Where a row lies: element s = row * cols of the tensor is element `head` of the row's first vector
   v0; the window has `nwin` vectors, the last holding `tail` of the row's elements (0: all of them). */
struct RowSpan {
    int64_t row, s, v0;
    int head, nwin, tail;
    template <int PER> __device__ __forceinline__ Slot slot(int i, bool on, Hint hint = HINT_NONE) const
    {
        Slot sl;
        sl.i = i;
        sl.hint = hint;
        sl.lo = on && i == 0 ? head : 0;
        sl.hi = !on ? 0 : i == nwin - 1 && tail ? tail : PER;
        return sl;
    }
};

/* The bits of one element, to assemble and split vectors without arrays indexed at run time. */
template <typename T> struct bits;
template <> struct bits<float> {
    typedef uint32_t type;
    __device__ static __forceinline__ uint32_t of(float v) { return __float_as_uint(v); }
};
template <> struct bits<__half> {
    typedef uint16_t type;
    __device__ static __forceinline__ uint16_t of(float v) { return __half_as_ushort(__float2half_rn(v)); }
};
template <> struct bits<__nv_bfloat16> {
    typedef uint16_t type;
    __device__ static __forceinline__ uint16_t of(float v) { return __bfloat16_as_ushort(__float2bfloat16_rn(v)); }
};

/* A read-only 16-byte load with an L1 eviction priority (ld.global.nc.L1::evict_*: sm_70 and up). */
template <Hint H> __device__ __forceinline__ uint4 ldg_hint(const uint4 *p)
{
    uint4 v;
    if (H == HINT_KEEP)
        asm("ld.global.nc.L1::evict_last.v4.u32 {%0, %1, %2, %3}, [%4];"
            : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
            : "l"(p));
    else
        asm("ld.global.nc.L1::evict_first.v4.u32 {%0, %1, %2, %3}, [%4];"
            : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
            : "l"(p));
    return v;
}

/* Vector sl.i of the row whose window starts at p (16-byte aligned): one 16-byte load when the row owns
   all of it, else the row's elements one by one and `pad` for the others. NC: the tensor is not
   written by this kernel (ld.global.nc; only such loads take sl.hint). */
template <typename T, bool NC = true>
__device__ __forceinline__ uint4 load_vec(const T *p, const Slot &sl, float pad)
{
    constexpr int PER = 16 / sizeof(T);
    if (sl.full(PER)) {
        const uint4 *q = reinterpret_cast<const uint4 *>(p) + sl.i;
        if (NC && sl.hint != HINT_NONE)
            return sl.hint == HINT_KEEP ? ldg_hint<HINT_KEEP>(q) : ldg_hint<HINT_LAST>(q);
        return NC ? __ldg(q) : *q;
    }
    typedef typename bits<T>::type B;
    const B *pb = reinterpret_cast<const B *>(p) + sl.i * PER;
    const B padb = bits<T>::of(pad);
    uint32_t w[4] = {0, 0, 0, 0};
#pragma unroll
    for (int j = 0; j < PER; j++) {
        B b = padb;
        if (j >= sl.lo && j < sl.hi)
            b = NC ? __ldg(pb + j) : pb[j];
        w[j * sizeof(T) / 4] |= (uint32_t)b << (8 * ((j * sizeof(T)) % 4));
    }
    return make_uint4(w[0], w[1], w[2], w[3]);
}

/* Store the row's elements of vector sl.i of the window starting at p. */
template <typename T> __device__ __forceinline__ void store_vec(T *p, const Slot &sl, uint4 val)
{
    constexpr int PER = 16 / sizeof(T);
    if (sl.full(PER)) {
        reinterpret_cast<uint4 *>(p)[sl.i] = val;
        return;
    }
    typedef typename bits<T>::type B;
    B *pb = reinterpret_cast<B *>(p) + sl.i * PER;
    const uint32_t w[4] = {val.x, val.y, val.z, val.w};
#pragma unroll
    for (int j = 0; j < PER; j++)
        if (j >= sl.lo && j < sl.hi)
            pb[j] = (B)(w[j * sizeof(T) / 4] >> (8 * ((j * sizeof(T)) % 4)));
}

__device__ __forceinline__ float shfl_xor(float v, int o) { return __shfl_xor_sync(0xffffffffu, v, o); }
__device__ __forceinline__ float2 shfl_xor(float2 v, int o)
{
    return make_float2(__shfl_xor_sync(0xffffffffu, v.x, o), __shfl_xor_sync(0xffffffffu, v.y, o));
}

/* What every thread of a launch shares. */
struct Geom {
    int64_t rows, cols;
    int tpr, tpr_log2, cluster, cluster_log2;
};

/* The blocks of a cluster add their row partials: each block writes its partial into slot `rank` of
   every block's `peer` array (remote stores into distributed shared memory), one cluster barrier
   (release/acquire) publishes them, and every block merges the slots in rank order, so all blocks
   hold the same total. The barrier arrived at in the kernel's first lines is waited for before the
   remote stores: every block of the cluster has started (its shared memory exists) by then, and the
   wait costs nothing because the loads took far longer. */
template <class Op, typename A>
__device__ __forceinline__ A cluster_merge(const Op &o, A a, int cn, int rank, A *peer)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    cooperative_groups::cluster_group cl = cooperative_groups::this_cluster();
    if ((int)threadIdx.x < cn)
        cl.map_shared_rank(peer, (unsigned)threadIdx.x)[rank] = a;
    asm volatile("barrier.cluster.arrive.release;\n\tbarrier.cluster.wait.acquire;" ::: "memory");
    a = peer[0];
    for (int i = 1; i < cn; i++)
        a = o.merge(a, peer[i]);
#else
    (void)o, (void)cn, (void)rank, (void)peer;
    __trap(); /* cluster plans are declined before launch on devices without clusters */
#endif
    return a;
}

template <class Op, typename A>
__device__ __forceinline__ A cluster_reduce(const Op &o, A a, int cn, int rank, A *peer)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("barrier.cluster.wait;" ::: "memory");
#endif
    return cluster_merge(o, a, cn, rank, peer);
}

/* The row's total in every thread of its group: lanes (shuffles), then the group's warps, in one of two ways.
   Every thread merging the wpr partials in turn put 32 LDS and 31 FADDs a thread on the 1024-thread kernels'
   path between the two passes (SASS, docs/measurements/2026-11-23-h200-17.md section 6); there, and for
   merges that cost an exponential (softmax's (max, sum) pairs), each warp reads the partials one a lane and
   shuffles them together: 1.03x at rmsnorm fp32 1024x32768, softmax 1.00-1.04x. For RMSNorm's float sums in
   smaller groups the loads in turn, issued together, were the faster (the butterfly's five dependent
   shuffles: fp16 128x262144 0.94x, 1024x32768 0.985x; H200, calls 9-10). The butterfly gives every lane the
   same bits (each step adds a pair in both orders, and merge is commutative). reduce_row adds the cluster's
   blocks. */
template <class Op, typename A>
__device__ __forceinline__ A reduce_group(const Op &o, A a, const Geom &g, A *warp_part)
{
    const int width = g.tpr < 32 ? g.tpr : 32;
    for (int off = width >> 1; off > 0; off >>= 1)
        a = o.merge(a, shfl_xor(a, off));
    if (g.tpr > 32) {
        const int warp = (int)(threadIdx.x >> 5), wpr = g.tpr >> 5, first = warp & ~(wpr - 1);
        if ((threadIdx.x & 31) == 0)
            warp_part[warp] = a;
        __syncthreads();
#ifdef ROWK_SM90
        if (sizeof(A) > sizeof(float) || wpr == 32) {
            a = warp_part[first + (int)(threadIdx.x & (unsigned)(wpr - 1))];
            for (int off = 1; off < wpr; off <<= 1)
                a = o.merge(a, shfl_xor(a, off));
            return a;
        }
#endif /* sm_80: ptxas gave the butterfly's fp16 256 x 4 kernel 32 registers and a 16-byte spill */
        a = warp_part[first];
        for (int i = 1; i < wpr; i++)
            a = o.merge(a, warp_part[first + i]);
    }
    return a;
}

template <class Op, typename A>
__device__ __forceinline__ A reduce_row(const Op &o, A a, const Geom &g, int rank, A *warp_part, A *peer)
{
    a = reduce_group(o, a, g, warp_part);
    if (g.cluster > 1)
        a = cluster_reduce(o, a, g.cluster, rank, peer);
    return a;
}

/* Where row `row` lies (RowSpan); ALIGNED: cols * sizeof(T) is a multiple of 16. UNSIGNED: the row's
   arithmetic unsigned (an aligned row's window from shifts), where signed 64-bit divisions by PER put
   sign fix-ups on the way to the first load; the kernels that take it say why. */
template <int PER, bool ALIGNED, bool UNSIGNED = false> __device__ __forceinline__ RowSpan row_span(int64_t row, const Geom &g)
{
    RowSpan r;
    r.row = row;
    r.s = r.row * g.cols;
    if constexpr (ALIGNED && UNSIGNED) {
        r.v0 = (int64_t)((uint64_t)r.s / PER);
        r.head = 0;
        r.nwin = (int)((uint64_t)g.cols / PER);
        r.tail = 0;
    } else {
        r.v0 = r.s / PER;
        r.head = ALIGNED ? 0 : (int)(r.s - r.v0 * PER);
        r.nwin = (int)((r.head + g.cols + PER - 1) / PER);
        r.tail = ALIGNED ? 0 : (int)((r.head + g.cols) % PER);
    }
    return r;
}

/* Registers bound a block: 512 threads at 8 vectors where the row is held to the epilogue; a streaming
   step's vectors die after its reduction, so an aligned streaming plan of an op that reads its rows
   from one tensor (Op::RING) takes 1024 threads at 8 vectors (ragged rows' element-wise edges, and the
   residual form's x, r and h, would spill under the 64 registers that leaves). */
template <int VPT, bool WIDE> constexpr int max_threads() { return VPT >= 8 && !WIDE ? 512 : 1024; }

/* Blocks of max_threads an SM that an op's aligned on-chip kernel of 4 vectors a thread is bounded to,
   where its rows fill the GPU (row_plan_bounded4); 0: no bound, ptxas's choice. Unbounded, ptxas gave
   RMSNorm's fp16 and fp32 kernel 48 registers, one block of 1024 an SM; bounded to two (32 registers,
   no spill) a row of 1024 x 4 vectors ran 1.12-1.14x faster, and rows of 2048 and 4096 vectors overtook the
   8-vector plans (H200 at 9a05a03, docs/measurements/2026-11-23-h200-18.md section 3). An op opts in
   (rms_op.cuh) where its kernel fits 32 registers without a spill (bf16's RMSNorm spilled 38 bytes,
   softmax's sm_80 code 12); the sm_80 pass keeps ptxas's choice (sm90_only). */
template <class Op> struct four_vector_blocks {
    static constexpr int value = 0;
};
constexpr int sm90_only(int b)
{
#ifdef ROWK_SM90
    return b;
#else
    (void)b;
    return 0;
#endif
}
template <class Op, bool STREAM, bool ALIGNED> constexpr bool wide_stream = STREAM && ALIGNED && Op::RING;

/* Ops whose aligned unbounded on-chip kernel of 4 vectors a thread writes a live row's vectors in whole
   rows (every slot full at compile time: the op's per-slot tests fold and its epilogue's loads go out
   together). bf16 RMSNorm gained 1.0-1.8 % with it (N = 128 .. 8192, H200,
   docs/measurements/2026-11-23-h200-19.md section 4; -0.3 .. +1.2 % in a repeat); fp16 and fp32 RMSNorm
   moved -1.3 .. +1.2 %, softmax lost up to 1.9 % (its kernel 44 -> 64 registers).
   Other widths: 8 vectors took bf16's kernel 64 -> 128 registers, the bounded kernels spilled, 2 went
   32 -> 52 (untimed). An op opts in (rms_op.cuh): ALWAYS, or FEW where the grid is small
   (row_plan_few_threads: launch_one then runs the kernel instance MINB = 1, a bound that constrains
   nothing, as the whole-row one). */
enum { WHOLE_NEVER, WHOLE_ALWAYS, WHOLE_FEW }; /* ALWAYS is 1: a `bool value = true` still means it */
template <class Op> struct whole_epilogue {
    static constexpr int value = WHOLE_NEVER;
};

/* Every vector of a step in flight before any is used. ptxas reorders a step's loads to save registers:
   it gave the fp32 RMSNorm step at 1024 x 8 32 registers by interleaving each load with the FFMAs of
   the one before, two loads in flight a thread (SASS, docs/measurements/2026-11-22-h200-12.md section 4b),
   where torch.compile's kernel issues all eight first. A data dependency is what it cannot reorder: each
   vector takes an XOR of all of them ANDed with a zero it cannot see (the sign of g.rows, which launch()
   checks is >= 1). */
template <int V> __device__ __forceinline__ void all_in_flight(uint4 (&v)[V], int64_t rows)
{
    uint32_t x = 0;
#pragma unroll
    for (int k = 0; k < V; k++)
        x ^= v[k].x ^ v[k].y ^ v[k].z ^ v[k].w;
    x &= (uint32_t)(rows >> 63);
#pragma unroll
    for (int k = 0; k < V; k++)
        v[k].x ^= x;
}

/* One streaming step's vectors into raw, all in flight in the wide kernels: AGAIN false, pass 1 (load,
   kept in L1 for pass 2); true, pass 2 (reload, the last read). WHOLE: the step lies inside the part,
   and rows are aligned (the wide kernels'), so every slot is full at compile time and the op's per-slot
   tests fold. With them, ptxas put each of fp16 RMSNorm's pass-2 epilogues (w's load, the math, the
   store) behind a branch of its own, one w load in flight a thread (SASS,
   docs/measurements/2026-11-23-h200-15.md section 1); fp32's whole-step form spilled 8 bytes at 64
   registers until reduce_group's butterfly freed them (docs/measurements/2026-11-23-h200-17.md section
   6): it runs whole steps in the sm_90 pass. In pass 1 the slot tests and zero fills were a third of
   the instructions before the last load (docs/measurements/2026-11-23-h200-18.md section 1). */
template <int VPT, int PER, bool WIDE, bool WHOLE, bool AGAIN, class Op>
__device__ __forceinline__ void step_in(const Op &o, const RowSpan &r, uint4 (&raw)[VPT], int b, const Geom &g, int lane, int c1)
{
    constexpr Hint H = !WIDE ? HINT_NONE : AGAIN ? HINT_LAST : HINT_KEEP;
    const bool live = r.row < g.rows;
#pragma unroll
    for (int k = 0; k < VPT; k++) {
        const int i = b + k * g.tpr + lane;
        const Slot sl = r.slot<PER>(i, WHOLE || (live && i < c1), H);
        raw[k] = AGAIN ? o.reload(sl) : o.load(sl);
    }
    if constexpr (WIDE)
        all_in_flight(raw, g.rows);
}

/* Pass 1 of a streaming step: the thread's share of it. */
template <int VPT, int PER, bool WIDE, bool WHOLE, class Op>
__device__ __forceinline__ typename Op::acc_t lstep(const Op &o, const RowSpan &r, uint4 (&raw)[VPT], int b, const Geom &g, int lane, int c1)
{
    step_in<VPT, PER, WIDE, WHOLE, false>(o, r, raw, b, g, lane, c1);
    return o.partial(raw);
}

/* Write a step's vectors (the op's epilogue), WHOLE as in step_in. */
template <int VPT, int PER, bool WHOLE, Hint H, class Op>
__device__ __forceinline__ void step_out(const Op &o, const RowSpan &r, const uint4 (&raw)[VPT], int b, const Geom &g, int lane, int c1)
{
    const bool live = r.row < g.rows;
#pragma unroll
    for (int k = 0; k < VPT; k++) {
        const int i = b + k * g.tpr + lane;
        o.epilogue(raw[k], r.slot<PER>(i, WHOLE || (live && i < c1), H));
    }
}

/* Pass 2 of a streaming step: reload it, then write it. */
template <int VPT, int PER, bool WIDE, bool WHOLE, class Op>
__device__ __forceinline__ void restep(const Op &o, const RowSpan &r, uint4 (&raw)[VPT], int b, const Geom &g, int lane, int c1)
{
    step_in<VPT, PER, WIDE, WHOLE, true>(o, r, raw, b, g, lane, c1);
    step_out<VPT, PER, WHOLE, WIDE ? HINT_LAST : HINT_NONE>(o, r, raw, b, g, lane, c1);
}

/* ALIGNED: every row starts on a vector boundary and is a whole number of vectors (cols * sizeof(T) a
   multiple of 16), so a slot is full or empty and the element-wise code vanishes: 20-30 registers
   fewer, more blocks an SM. */
template <class Op, int VPT, bool STREAM, bool ALIGNED, int MINB = 0>
__global__ void __launch_bounds__(max_threads<VPT, wide_stream<Op, STREAM, ALIGNED>>(), sm90_only(MINB))
row_kernel(Op op, Geom g)
{
    constexpr bool WIDE = wide_stream<Op, STREAM, ALIGNED>; /* may run 1024 x 8 */
    typedef typename Op::elem_t T;
    typedef typename Op::acc_t A;
    constexpr int PER = 16 / sizeof(T);
#ifdef ROWK_SM90
    constexpr bool WHOLE_STEPS = WIDE; /* both passes in whole steps where a step is full (lstep, restep) */
    constexpr bool SHORT = WIDE || (ALIGNED && !STREAM && VPT <= 2); /* the short prologue, below */
#else
    constexpr bool WHOLE_STEPS = WIDE && PER > 4; /* fp32's spilled with sm_80's reduction */
    constexpr bool SHORT = false;
#endif
    constexpr int WE = whole_epilogue<Op>::value;
    constexpr bool WHOLE_ROWS = ALIGNED && VPT == 4 && ((MINB == 0 && WE == WHOLE_ALWAYS) || (MINB == 1 && WE == WHOLE_FEW)); /* below */
    __shared__ A warp_part[32];
    __shared__ A peer[ROW_PLAN_MAX_CLUSTER];
    int rank = 0;
    int64_t blk = blockIdx.x;
    if (g.cluster > 1) {
        rank = (int)(blockIdx.x % (unsigned)g.cluster);
        blk = blockIdx.x / (unsigned)g.cluster;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
        asm volatile("barrier.cluster.arrive.relaxed;" ::: "memory");
#endif
    }
    const int lane = (int)threadIdx.x & (g.tpr - 1);
    /* SHORT: a shift where a division by g.cluster (every plan's, cluster 1 too) and row_span's signed
       arithmetic were most of the instructions before the first load (ncu on an H200 at 86d4d5c: 94 a
       warp where torch.compile's kernel has 21). The wide kernels take it: one block an SM, whose
       DRAM share idles until the loads go out; so do the aligned on-chip kernels of 1-2 vectors,
       whose short rows' warps each carry only a few vectors (fp16 2-vector kernel: 100 -> 70
       instructions to the first load, registers unchanged). Elsewhere ptxas scheduled the shorter
       prologue into spills (the bf16 residual streaming and RoPE kernels, sm_80's fp16 4-vector kernel). */
    const RowSpan r = row_span<PER, ALIGNED, SHORT>(blk * (int64_t)(blockDim.x >> g.tpr_log2) + (threadIdx.x >> g.tpr_log2), g);
    const bool live = r.row < g.rows;
    const int part = SHORT ? (r.nwin + g.cluster - 1) >> g.cluster_log2 : (r.nwin + g.cluster - 1) / g.cluster;
    const int c0 = rank * part, c1 = min(c0 + part, r.nwin);
    const int step = VPT * g.tpr;
    Op o = op;
    o.row_begin(r, live);

    uint4 raw[VPT];
    A acc;
    if (!STREAM) {
#pragma unroll
        for (int k = 0; k < VPT; k++) {
            const int i = c0 + k * g.tpr + lane;
            raw[k] = o.load(r.slot<PER>(i, live && i < c1));
        }
        acc = o.partial(raw);
    } else {
        acc = o.identity();
        for (int b = c0; b < c1; b += step) {
            if constexpr (WHOLE_STEPS) {
                if (live && b + step <= c1) {
                    acc = o.merge(acc, lstep<VPT, PER, WIDE, true>(o, r, raw, b, g, lane, c1));
                    continue;
                }
            }
            acc = o.merge(acc, lstep<VPT, PER, WIDE, false>(o, r, raw, b, g, lane, c1));
        }
    }
    acc = reduce_row(o, acc, g, rank, warp_part, peer);
    o.finish(acc, r.row, live && lane == 0 && rank == 0);
    if constexpr (Op::ROW_OUT) {
        if (!STREAM) {
            /* A live aligned row whose part the plan covers exactly (the usual plan): every slot full at
               compile time (WHOLE_ROWS: whole_epilogue). With per-slot tests ptxas put each of RMSNorm's
               VPT epilogues (w's load, the math, the store) behind a branch of its own, VPT round trips
               for w one after another, where torch.compile's kernel has its w loads in flight together
               (ncu source counters, fp16 32768x1024 on an H200: 13 % of klab's stall samples) */
            if (WHOLE_ROWS && live && c0 + step <= c1)
                step_out<VPT, PER, true, HINT_NONE>(o, r, raw, c0, g, lane, c1);
            else
                step_out<VPT, PER, false, HINT_NONE>(o, r, raw, c0, g, lane, c1);
        } else {
            for (int b = c0; b < c1; b += step) {
                if constexpr (WHOLE_STEPS) {
                    if (live && b + step <= c1) {
                        restep<VPT, PER, WIDE, true>(o, r, raw, b, g, lane, c1);
                        continue;
                    }
                }
                restep<VPT, PER, WIDE, false>(o, r, raw, b, g, lane, c1);
            }
        }
    }
}

template <class Op, int VPT, bool STREAM, bool ALIGNED, int MINB = 0>
cudaError_t launch_kernel(const Op &op, const Geom &g, unsigned blocks, int cta, int cluster, cudaStream_t st)
{
    void (*kern)(Op, Geom) = row_kernel<Op, VPT, STREAM, ALIGNED, MINB>;
    if (cluster == 1) {
        kern<<<blocks, cta, 0, st>>>(op, g);
        return cudaGetLastError();
    }
    if (cluster > 8) {
        const cudaError_t e = func_attr_once<row_kernel<Op, VPT, STREAM, ALIGNED, MINB>, cudaFuncAttributeNonPortableClusterSizeAllowed>(1);
        if (e != cudaSuccess)
            return e;
    }
    LaunchConfig lc(dim3(blocks), dim3((unsigned)cta), 0, st);
    lc.cluster(dim3((unsigned)cluster));
    return cudaLaunchKernelEx(&lc.cfg, kern, op, g);
}

template <class Op, int VPT, bool STREAM>
cudaError_t launch_one(const Op &op, const Geom &g, unsigned blocks, int cta, int cluster, cudaStream_t st)
{
    if (g.cols * (int64_t)sizeof(typename Op::elem_t) % 16 == 0) {
        constexpr int B = four_vector_blocks<Op>::value;
        if constexpr (VPT == 4 && !STREAM && B > 0) {
            if (row_plan_bounded4((size_t)g.rows, g.tpr))
                return launch_kernel<Op, VPT, STREAM, true, B>(op, g, blocks, cta, cluster, st);
        }
        if constexpr (VPT == 4 && !STREAM && whole_epilogue<Op>::value == WHOLE_FEW) {
            if (row_plan_few_threads((size_t)g.rows, g.tpr))
                return launch_kernel<Op, VPT, STREAM, true, 1>(op, g, blocks, cta, cluster, st);
        }
        return launch_kernel<Op, VPT, STREAM, true>(op, g, blocks, cta, cluster, st);
    }
    return launch_kernel<Op, VPT, STREAM, false>(op, g, blocks, cta, cluster, st);
}

/* The ring plan (row_ring.cuh, included below): a persistent grid, rows in shared memory. */
template <class Op>
cudaError_t launch_ring(const Op &op, const row_plan &p, const Geom &g, int64_t window, cudaStream_t st);
/* The tile plan (row_tile.cuh, included below): a block's short rows through shared memory. */
template <class Op>
cudaError_t launch_tile(const Op &op, const row_plan &p, const Geom &g, unsigned blocks, cudaStream_t st);

/* log2 of a power of two (a plan's tpr and cluster: row_plan_check) */
inline int log2_pow2(int n)
{
    int lg = 0;
    while ((1 << lg) < n)
        lg++;
    return lg;
}

/* Launch `op` over rows x cols with plan p (checked by row_plan_check). */
template <class Op> cudaError_t launch(const Op &op, const row_plan &p, int64_t rows, int64_t cols, cudaStream_t st)
{
    const Geom g = {rows, cols, p.tpr, log2_pow2(p.tpr), p.cluster, log2_pow2(p.cluster)};
    const int64_t per = p.cta / p.tpr, blocks64 = (rows + per - 1) / per * p.cluster;
    if (rows < 1 || cols < 1 || blocks64 > 0x7fffffff)
        return cudaErrorInvalidValue;
    const unsigned blocks = (unsigned)blocks64;
    if (p.ring) {
        if constexpr (Op::RING)
            return launch_ring(op, p, g, (int64_t)row_window((size_t)cols, sizeof(typename Op::elem_t)), st);
        return cudaErrorInvalidValue;
    }
    if (p.tile) {
        if constexpr (Op::RING)
            return launch_tile(op, p, g, blocks, st);
        return cudaErrorInvalidValue;
    }
    if (!p.stream) {
        switch (p.vpt) {
        case 1: return launch_one<Op, 1, false>(op, g, blocks, p.cta, p.cluster, st);
        case 2: return launch_one<Op, 2, false>(op, g, blocks, p.cta, p.cluster, st);
        case 4: return launch_one<Op, 4, false>(op, g, blocks, p.cta, p.cluster, st);
        case 8: return launch_one<Op, 8, false>(op, g, blocks, p.cta, p.cluster, st);
        default: return cudaErrorInvalidValue;
        }
    }
    if constexpr (Op::STREAMS) {
        switch (p.vpt) {
        case 4: return launch_one<Op, 4, true>(op, g, blocks, p.cta, p.cluster, st);
        case 8: return launch_one<Op, 8, true>(op, g, blocks, p.cta, p.cluster, st);
        default: break;
        }
    }
    return cudaErrorInvalidValue;
}

} // namespace rowk

#include "row/row_ring.cuh"
#include "row/row_tile.cuh"

#endif
