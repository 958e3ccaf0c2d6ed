/* The row skeleton's ring plan (row_plan.h: ring = 2..4), written to bring long rows to the copy rate.
 * Included by row_kernel.cuh, whose pieces (Slot, RowSpan, row_span, reduce_group, cluster_merge) it
 * uses. Measured on an H200 (2026-11-22, docs/measurements/2026-11-22-h200-rows-3.md) it ran 4-14 %
 * slower than the register plans at N = 65536..262144: it stays in the tuning space, never the own choice.
 *
 * Why: a register plan loads a block's part of a row, waits for the whole cluster at the reduction,
 * then stores, and ends; an SM's load and store phases alternate and the DRAM idles between them
 * (72-81 % of the copy for rows of 64 KiB and more on an H200). Here the grid is persistent: block
 * `rank` of cluster `c` serves its part of rows c, c + clusters, c + 2 clusters, ..., and keeps that
 * part in a ring of `ring` stages of shared memory filled by bulk copies (cp.async.bulk, one thread
 * issues them, a transaction mbarrier a stage says when a stage has landed). While it reduces and
 * writes row i, rows i + 1 .. i + ring - 1 are in flight: docs/notes/rmsnorm.md has the bytes-in-flight
 * budget this is sized from.
 *
 * Per row: wait for the stage's barrier; pass 1 reduces the stage (shared memory, vpt vectors a thread
 * a step, the online merge of the streaming plan); the row's total over the block and the cluster
 * (partials exchanged through distributed shared memory in one of two slot sets by row parity: a block
 * can be one row ahead of another, never two, because each row's cluster barrier waits for all); the
 * op's finish; pass 2 writes every vector through the op's epilogue from shared memory; then every
 * thread's reads of the stage are ordered before the bulk copy that refills it (proxy fence, block
 * barrier). The copies move whole aligned vectors of the row's window (the edge vectors hold elements
 * of the neighbouring rows, as the register plans' loads would): the skeleton masks them with the op's
 * pad value when it reads them, and the epilogue stores only the row's elements. So a ragged last row
 * reads up to 15 bytes past the tensor's end: inside the allocation for klab's tensors, which a red
 * zone of 256 bytes and more follows (reads only; nothing is written there).
 *
 * An op takes ring plans with `static constexpr bool RING = true` and two hooks:
 *   const elem_t *ring_in() const;  // the tensor its rows are read from (what load() reads)
 *   float pad() const;              // the value of an element outside the row (load()'s pad)
 */
#ifndef ROW_RING_CUH
#define ROW_RING_CUH

#include "row/row_kernel.cuh"

namespace rowk {

__device__ __forceinline__ uint32_t smem_u32(const void *p) { return (uint32_t)__cvta_generic_to_shared(p); }

/* The row's `n` vectors from global `src` into shared `dst`, completing on barrier `bar`: one thread. */
__device__ __forceinline__ void ring_fill(uint4 *dst, const uint4 *src, int n, uint64_t *bar)
{
#ifdef ROWK_SM90
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_u32(bar)), "r"(n * 16)
                 : "memory");
    /* pieces of 16 KiB: several copies in flight through the SM's copy engine at once */
    for (int off = 0; off < n; off += 1024) {
        const int m = n - off < 1024 ? n - off : 1024;
        asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                         smem_u32(dst + off)),
                     "l"(src + off), "r"(m * 16), "r"(smem_u32(bar))
                     : "memory");
    }
#else
    (void)dst, (void)src, (void)n, (void)bar;
#endif
}

__device__ __forceinline__ void ring_wait(uint64_t *bar, uint32_t parity)
{
#ifdef ROWK_SM90
    uint32_t done = 0;
    while (!done)
        asm volatile("{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\tselp.u32 %0, 1, 0, p;\n\t}"
                     : "=r"(done)
                     : "r"(smem_u32(bar)), "r"(parity)
                     : "memory");
#else
    (void)bar, (void)parity;
#endif
}

/* Vector j of a stage as the op sees it: elements outside the row (sl.lo, sl.hi) and slots past the
   block's part read as `pad`. */
template <typename T, bool ALIGNED>
__device__ __forceinline__ uint4 ring_vec(const uint4 *stage, int j, const Slot &sl, float pad)
{
    constexpr int PER = 16 / sizeof(T);
    typedef typename bits<T>::type B;
    const B pb = bits<T>::of(pad);
    const uint32_t pw = sizeof(T) == 4 ? (uint32_t)pb : (uint32_t)pb | (uint32_t)pb << 16;
    if (sl.empty())
        return make_uint4(pw, pw, pw, pw);
    const uint4 v = stage[j];
    if (ALIGNED || sl.full(PER))
        return v;
    const uint32_t in[4] = {v.x, v.y, v.z, v.w};
    uint32_t w[4] = {0, 0, 0, 0};
#pragma unroll
    for (int e = 0; e < PER; e++) {
        const int sh = 8 * ((e * (int)sizeof(T)) % 4), k = e * (int)sizeof(T) / 4;
        const B b = e >= sl.lo && e < sl.hi ? (B)(in[k] >> sh) : pb;
        w[k] |= (uint32_t)b << sh;
    }
    return make_uint4(w[0], w[1], w[2], w[3]);
}

template <class Op, int VPT, bool ALIGNED>
__global__ void __launch_bounds__(max_threads<VPT, false>()) ring_kernel(Op op, Geom g, int ring, int stage_vecs)
{
    typedef typename Op::acc_t A;
    extern __shared__ __align__(128) uint4 stages[];
    __shared__ A warp_part[32];
    __shared__ A peer[2][ROW_PLAN_MAX_CLUSTER];
    __shared__ __align__(8) uint64_t full[ROW_PLAN_MAX_RING];
#ifdef ROWK_SM90
    typedef typename Op::elem_t T;
    constexpr int PER = 16 / sizeof(T);
    const int cn = g.cluster, rank = (int)(blockIdx.x % (unsigned)cn), tid = (int)threadIdx.x, cta = (int)blockDim.x;
    const int64_t cid = blockIdx.x / (unsigned)cn, ncl = gridDim.x / (unsigned)cn;
    const int64_t nrows = cid < g.rows ? (g.rows - 1 - cid) / ncl + 1 : 0;
    if (cn > 1) /* waited for before the first remote store: every block's shared memory exists then */
        asm volatile("barrier.cluster.arrive.relaxed;" ::: "memory");
    const Op o0 = op;
    const float pad = o0.pad();
    const uint4 *in = reinterpret_cast<const uint4 *>(o0.ring_in());
    /* the part of row number k (of this cluster's) that this block holds: [c0, c1) of its window */
    auto fill = [&](int64_t k) {
        const RowSpan r = row_span<PER, ALIGNED>(cid + k * ncl, g);
        const int part = (r.nwin + cn - 1) / cn, c0 = rank * part, c1 = min(c0 + part, r.nwin);
        const int s = (int)(k % ring);
        ring_fill(stages + (size_t)s * stage_vecs, in + r.v0 + c0, max(c1 - c0, 0), &full[s]);
    };
    if (tid == 0) {
        for (int s = 0; s < ring; s++)
            asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_u32(&full[s])) : "memory");
        asm volatile("fence.mbarrier_init.release.cluster;\n\tfence.proxy.async.shared::cta;" ::: "memory");
        for (int64_t k = 0; k < ring - 1 && k < nrows; k++)
            fill(k);
    }
    __syncthreads();
    if (cn > 1)
        asm volatile("barrier.cluster.wait;" ::: "memory");

    for (int64_t k = 0; k < nrows; k++) {
        if (tid == 0 && k + ring - 1 < nrows) /* into the stage row k - 1 left: freed at its end */
            fill(k + ring - 1);
        const RowSpan r = row_span<PER, ALIGNED>(cid + k * ncl, g);
        const int part = (r.nwin + cn - 1) / cn, c0 = rank * part, c1 = min(c0 + part, r.nwin), n = c1 - c0;
        const int s = (int)(k % ring);
        const uint4 *stage = stages + (size_t)s * stage_vecs;
        Op o = op;
        o.row_begin(r, true);
        ring_wait(&full[s], (uint32_t)((k / ring) & 1));

        A acc = o.identity();
        for (int b = 0; b < n; b += VPT * cta) {
            uint4 raw[VPT];
#pragma unroll
            for (int v = 0; v < VPT; v++) {
                const int j = b + v * cta + tid;
                raw[v] = ring_vec<T, ALIGNED>(stage, j, r.slot<PER>(c0 + j, j < n), pad);
            }
            acc = o.merge(acc, o.partial(raw));
        }
        acc = reduce_group(o, acc, g, warp_part);
        if (cn > 1)
            acc = cluster_merge(o, acc, cn, rank, peer[k & 1]);
        o.finish(acc, r.row, tid == 0 && rank == 0);
        if constexpr (Op::ROW_OUT) {
            for (int b = 0; b < n; b += VPT * cta) {
#pragma unroll
                for (int v = 0; v < VPT; v++) {
                    const int j = b + v * cta + tid;
                    const Slot sl = r.slot<PER>(c0 + j, j < n);
                    o.epilogue(ring_vec<T, ALIGNED>(stage, j, sl, pad), sl);
                }
            }
        }
        /* this thread's reads of the stage before the bulk copy that refills it (another proxy) */
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
        __syncthreads();
    }
#else
    (void)op, (void)g, (void)ring, (void)stage_vecs, (void)warp_part, (void)peer, (void)full, (void)stages;
    __trap(); /* ring plans are declined before launch on devices without bulk copies */
#endif
}

/* The persistent grid: as many clusters as are resident at once with this plan's shared memory (asked
   of the occupancy calculator once per kernel, cta, cluster and size), no more than there are rows. */
template <class Op, int VPT, bool ALIGNED>
cudaError_t launch_ring_kernel(const Op &op, const Geom &g, const row_plan &p, int stage_vecs, cudaStream_t st)
{
    void (*kern)(Op, Geom, int, int) = ring_kernel<Op, VPT, ALIGNED>;
    const size_t smem = (size_t)p.ring * (size_t)stage_vecs * 16;
    cudaError_t e = func_attr_once<ring_kernel<Op, VPT, ALIGNED>, cudaFuncAttributeMaxDynamicSharedMemorySize>(
        ROW_PLAN_RING_SMEM);
    if (e == cudaSuccess)
        e = func_attr_once<ring_kernel<Op, VPT, ALIGNED>, cudaFuncAttributeNonPortableClusterSizeAllowed>(1);
    if (e != cudaSuccess)
        return e;
    LaunchConfig lc(dim3((unsigned)p.cluster), dim3((unsigned)p.cta), smem, st);
    if (p.cluster > 1) /* one block a row: a plain launch, no cluster to schedule */
        lc.cluster(dim3((unsigned)p.cluster));
    cudaLaunchConfig_t &cfg = lc.cfg;
    static struct {
        size_t smem;
        int cta, cluster, fit;
    } fits[16];
    static int nfits;
    int fit = 0;
    for (int i = 0; i < nfits && !fit; i++)
        if (fits[i].smem == smem && fits[i].cta == p.cta && fits[i].cluster == p.cluster)
            fit = fits[i].fit;
    if (!fit) {
        cudaError_t e = cudaSuccess;
        if (p.cluster > 1) {
            e = cudaOccupancyMaxActiveClusters(&fit, kern, &cfg);
        } else {
            int dev = 0, sms = 0, per = 0;
            e = cudaGetDevice(&dev);
            if (e == cudaSuccess)
                e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
            if (e == cudaSuccess)
                e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, kern, p.cta, smem);
            fit = sms * per;
        }
        if (e != cudaSuccess)
            return e;
        if (fit < 1)
            return cudaErrorInvalidConfiguration; /* the plan's shared memory does not fit an SM */
        if (nfits < 16)
            fits[nfits++] = {smem, p.cta, p.cluster, fit};
    }
    const int64_t clusters = g.rows < fit ? g.rows : fit;
    cfg.gridDim = dim3((unsigned)(clusters * p.cluster));
    return cudaLaunchKernelEx(&cfg, kern, op, g, p.ring, stage_vecs);
}

template <class Op>
cudaError_t launch_ring(const Op &op, const row_plan &p, const Geom &g, int64_t window, cudaStream_t st)
{
    const int stage_vecs = (int)((window + p.cluster - 1) / p.cluster);
    const bool aligned = g.cols * (int64_t)sizeof(typename Op::elem_t) % 16 == 0;
    if (p.stream || p.tpr != p.cta || p.ring < 2 || p.ring > ROW_PLAN_MAX_RING ||
        (size_t)p.ring * (size_t)stage_vecs * 16 > ROW_PLAN_RING_SMEM)
        return cudaErrorInvalidValue;
    switch (p.vpt) {
    case 4: return aligned ? launch_ring_kernel<Op, 4, true>(op, g, p, stage_vecs, st)
                           : launch_ring_kernel<Op, 4, false>(op, g, p, stage_vecs, st);
    case 8: return aligned ? launch_ring_kernel<Op, 8, true>(op, g, p, stage_vecs, st)
                           : launch_ring_kernel<Op, 8, false>(op, g, p, stage_vecs, st);
    default: return cudaErrorInvalidValue;
    }
}

} // namespace rowk

#endif
