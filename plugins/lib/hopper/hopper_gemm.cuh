/* hopper_gemm.cuh — klab's Hopper (sm_90a) GEMM mainloop: TMA loads into a multi-stage shared-memory
 * ring on mbarriers, one producer warpgroup and 1-2 consumer warpgroups (setmaxnreg), wgmma.mma_async,
 * a tile scheduler (plain grid or persistent, grouped raster order for L2, optional split-K), an
 * optional 2-CTA cluster that multicasts the B tile, and an EPILOGUE policy that receives every
 * consumer thread's fp32 accumulators. Shared by matmul_h200.so, fp8_gemm.so and fused_gated_mlp.so:
 * build on it, do not copy it. Interface changes are additive only.
 *
 * C[M x N] = A[M x K] * B, fp32 accumulation.
 *   A: row-major M x K (K contiguous), always K-major in shared memory.
 *   B: B_MN = true:  row-major K x N (N contiguous: what torch.matmul(A, B) stores), MN-major in shared
 *                    memory, read with the wgmma transpose bit. 16-bit types only.
 *      B_MN = false: row-major N x K (K contiguous: B transposed, nn.Linear's weight), K-major. Every
 *                    type; fp8 (e4m3) MUST use it (fp8 wgmma has no transpose).
 *
 * ---- configuration: hg::Config<T, BM, BN, STAGES, CONSUMERS, B_MN, CLUSTER, PINGPONG, COLSPLIT> ----
 *   T          __nv_bfloat16, __half or __nv_fp8_e4m3 (the A and B element)
 *   BK         fixed: one 128-byte swizzle atom of K (64 16-bit elements, 128 fp8 elements)
 *   BM         64 * CONSUMERS * MT: each consumer warpgroup owns MT (1 or 2) m64 row blocks
 *              (COLSPLIT: 64 * MT, every consumer all of them)
 *   BN         64, 128 or 256 (one wgmma m64nBNC per m64 block per k step, BNC = BN, or BN / CONSUMERS
 *              under COLSPLIT); MT * BNC <= 256
 *   STAGES     depth of the shared-memory ring (each stage (BM + BN) * 128 bytes)
 *   CONSUMERS  1 or 2 consumer warpgroups; threads = 128 * (CONSUMERS + 1)
 *   CLUSTER    1 or 2: CTAs of a cluster take M-adjacent tiles of the same N tile; each loads half of
 *              the B tile and multicasts it to both (B traffic from L2 halves)
 *   PINGPONG   false (default): the CONSUMERS warpgroups split each tile's rows (cooperative).
 *              true (CONSUMERS == 2): each warpgroup takes a whole tile (BM = 64 * MT), the two taking a
 *              CTA's units in turn, so one's epilogue overlaps the other's mainloop (CUTLASS's
 *              ping-pong schedule; the ring order staggers them). TileInfo.row0 is 0. Not for
 *              SerialSplitEpilogue (its tickets count a tile's splits per warpgroup).
 *   COLSPLIT   false (default): cooperative consumers split the tile's rows (each 64 * MT x BN).
 *              true (CONSUMERS == 2, not PINGPONG): they split its columns instead, each all BM rows x
 *              BN / 2 (cuBLAS's split of its 128 x 256 tile: each warpgroup 128 x 128, two m64n128 a k
 *              step), so consumer c's epilogue sees TileInfo.row0 = 0 and n0 = the tile's n0 + c * BN / 2,
 *              its fragment as a 64 * MT x BN / 2 tile. Not for SerialSplitEpilogue, nor for a policy that
 *              needs both halves of a tile's columns in one thread (fused_gated_mlp's gate and up).
 *
 * ---- the accumulator fragment (what an epilogue receives; hopper_epilogue.cuh) ----
 * Consumer warpgroup c (0..CONSUMERS-1), thread t = threadIdx.x % 128, warp w = t / 32, lane l = t % 32
 * holds float acc[MT][BNC/2]. Element acc[mt][i] is C[m0 + row][n0 + col] with
 *     row = c*MT*64 + mt*64 + 16*w + l/4 + 8*((i/2) % 2)          (hg::frag_row; COLSPLIT: no c*MT*64)
 *     col = 8*(i/4) + 2*(l%4) + (i%2)                             (hg::frag_col)
 * where (m0, n0) = (tm*BM, tn*BN) is the tile's origin (hg::TileInfo; COLSPLIT: n0 + c*BNC). So i and
 * i+1 (i even) are two
 * adjacent columns of one row, and acc[mt][i] and acc[mt][i + BN/4] are columns col and col + BN/2 of
 * the same row in the same thread: a B tile holding BN/2 gate columns then BN/2 up columns gives each
 * thread gate and up side by side for silu(gate) * up. Rows or columns past M or N hold finite values
 * (TMA fills out-of-range inputs with zero) that MUST NOT be stored: the epilogue masks them.
 *
 * ---- the epilogue policy ----
 * Any copyable struct (it is a kernel parameter, by value) with
 *     template <int MT, int R> __device__ void operator()(const hg::TileInfo &t, float (&acc)[MT][R]);
 * called once per (tile, split) by every thread of every consumer warpgroup, after the tile's K range is
 * accumulated; R = BNC/2. It MUST NOT use __syncthreads (the producer warpgroup does not join); named
 * barriers 1 and up among the consumer threads are the policy's (hg::named_barrier(id, threads);
 * SerialSplitEpilogue uses 1 + consumer over the 128 threads of its warpgroup). Given here:
 *     hg::StoreEpilogue<Out>      C as Out (bf16 / fp16 / float), row-major ldc, masked at M and N
 *     hg::PartialEpilogue         fp32 partials of split s to ws + s*M*N (split-K), masked
 * and hg::splitk_reduce() sums the partials into C (a second kernel); or, in one launch,
 *     hg::SerialSplitEpilogue<Out> the partials, then the last split of a tile (atomic tickets) sums
 *                                  them in split order and writes C
 * and, staged through shared memory and written by TMA stores (epi=tma; hopper_store.cuh),
 *     hg::TmaStoreEpilogue<Out>    C as Out (16-bit), clipped at M and N by the copy engine
 * A staging policy declares `static constexpr int stage_bytes` (its chunks a consumer warpgroup) and
 * `finish(info)`: the kernel adds CONSUMERS * stage_bytes of shared memory (smem_bytes<Cfg, Epi>),
 * hands it over in TileInfo.stage with the output map (TileInfo.out_map) and calls finish once after
 * the consumer's last unit; hopper_store.cuh's stage_store() builds such policies.
 * TileInfo also names the tile (tile: an index for per-tile state), the consumer and the split count;
 * hg::for_each_pair<MT, R>(t, f) walks the fragment's in-range column pairs, f(mt, i, row, col).
 * Optional promotion (per-128-K-block scaling, DeepGEMM style): a policy that also declares
 *     static constexpr bool promote_k_tiles = true;
 *     template <int MT, int R> __device__ void promote(const hg::TileInfo &t, int kt, float (&part)[MT][R],
 *                                                       float (&acc)[MT][R]);
 * gets each k-tile's product alone in `part` (same fragment map; complete when called) and folds it
 * into acc itself, e.g. acc += scale_a[row][kt] * scale_b[kt][col] * part; with fp8 BK = 128, k-tile
 * kt is K block kt. acc starts at zero for each unit and reaches operator() as usual. The consumer then
 * waits for every k-tile's wgmmas (no group kept in flight) and holds part as well as acc: keep
 * MT * BN <= 128 for it. Not exercised by matmul_h200 (compiled only by whoever declares it).
 *
 * ---- host side ----
 *   hg::Problem p = hg::problem<Cfg>(M, N, K, splits, group, raster_n);
 *   hg::make_maps<Cfg>(&ta, &tb, A, B, M, N, K, ldb_elems, why, len);  // TMA maps (hopper_tma.cuh)
 *   hg::launch<Cfg>(ta, tb, p, epilogue, grid_ctas, stream);
 *   hg::launch<Cfg>(ta, tb, tc, p, epilogue, grid_ctas, stream);   // staging: tc = hg::make_store_map<Out>()
 *   grid_ctas = hg::grid_of<Cfg, Epi>(p, persistent, sms): one CTA a unit, or (persistent) the cluster
 *   slots that can be resident at once (persistent_grid: cudaOccupancyMaxActiveClusters, with this
 *   epilogue's shared memory), at most the units; hg::launch_on(ta, tb, tc, p, epi, persistent, sms,
 *   stream) launches on that grid (what the plugins call)
 * A grid smaller than the work makes the kernel persistent: each cluster takes work units
 * blockIdx/CLUSTER, + gridDim/CLUSTER, ... (units = ceil(tiles_m/CLUSTER) * tiles_n * splits).
 */
#ifndef KLAB_HOPPER_GEMM_CUH
#define KLAB_HOPPER_GEMM_CUH

#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>
#include <stdint.h>

#include <type_traits>

#include "cuda/func_attr.cuh"
#include "hopper/hopper_epilogue.cuh"
#include "hopper/hopper_sched.cuh"
#include "hopper/hopper_store.cuh"
#include "hopper/hopper_tma.cuh"
#include "hopper/hopper_wgmma.cuh"

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define HG_SM90A 1
#else
#define HG_SM90A 0
#endif

namespace hg {

/* ---- element types ---- */
template <class T> constexpr hopper_tma_elem tma_elem();
template <> constexpr hopper_tma_elem tma_elem<__nv_bfloat16>() { return HOPPER_TMA_BF16; }
template <> constexpr hopper_tma_elem tma_elem<__half>() { return HOPPER_TMA_FP16; }
template <> constexpr hopper_tma_elem tma_elem<__nv_fp8_e4m3>() { return HOPPER_TMA_FP8; }

template <class T> struct Elem {
    static constexpr hopper_tma_elem tma = tma_elem<T>();
    static constexpr bool mn_major_ok = sizeof(T) == 2; /* fp8 wgmma has no transpose */
    template <int N, int TB> __device__ static void mma(float (&d)[N / 2], uint64_t a, uint64_t b)
    {
        Wgmma<T, N>::template run<TB>(d, a, b);
    }
};

template <class T_, int BM_, int BN_, int STAGES_, int CONSUMERS_, bool B_MN_, int CLUSTER_ = 1, bool PINGPONG_ = false,
          bool COLSPLIT_ = false>
struct Config {
    typedef T_ T;
    static constexpr int BM = BM_, BN = BN_, STAGES = STAGES_, CONSUMERS = CONSUMERS_, CLUSTER = CLUSTER_;
    static constexpr bool B_MN = B_MN_;
    static constexpr bool PINGPONG = PINGPONG_;
    static constexpr bool COLSPLIT = COLSPLIT_;
    /* warpgroups that share one unit's tile (all rows between them), so arrive on its stages */
    static constexpr int TILE_CONSUMERS = PINGPONG ? 1 : CONSUMERS;
    static constexpr int ATOM = 128 / (int)sizeof(T); /* elements in one 128-byte swizzle row */
    static constexpr int BK = ATOM;
    static constexpr int KI = 32 / (int)sizeof(T);    /* K of one wgmma: 16 (16-bit), 32 (fp8) */
    static constexpr int MT = COLSPLIT ? BM / 64 : BM / (64 * TILE_CONSUMERS);
    static constexpr int BNC = COLSPLIT ? BN / CONSUMERS : BN; /* N of one consumer's wgmma */
    static constexpr int THREADS = 128 * (CONSUMERS + 1);
    static constexpr int A_BYTES = BM * 128, B_BYTES = BN * 128, STAGE_BYTES = A_BYTES + B_BYTES;
    static constexpr int SMEM = STAGES * STAGE_BYTES + 1024 /* alignment */ + 2 * STAGES * 8 + 64;
    static constexpr int PRODUCER_REGS = 40;
    static constexpr int CONSUMER_REGS = 232; /* 40 + 2 * 232 = 504 = 3 * 168, the entry cap of 384 threads */
    static_assert(MT >= 1 && MT <= 2 && BM == 64 * (COLSPLIT ? 1 : TILE_CONSUMERS) * MT,
                  "BM = 64 * CONSUMERS * (1 or 2), or 64 * (1 or 2) ping-pong or column-split");
    static_assert(!PINGPONG || CONSUMERS == 2, "ping-pong alternates two consumer warpgroups");
    static_assert(!COLSPLIT || (CONSUMERS == 2 && !PINGPONG), "the column split shares a tile between two consumers");
    static_assert(BN == 64 || BN == 128 || BN == 256, "BN is 64, 128 or 256");
    static_assert(BNC == 64 || BNC == 128 || BNC == 256, "a consumer's wgmma N is 64, 128 or 256");
    static_assert(!COLSPLIT || !B_MN || BNC % ATOM == 0, "MN-major B splits at its 64-column runs");
    static_assert(MT * BNC <= 256, "accumulators past 128 registers a thread");
    static_assert(CONSUMERS == 1 || CONSUMERS == 2, "1 or 2 consumer warpgroups");
    static_assert(CLUSTER == 1 || CLUSTER == 2, "clusters of 1 or 2 CTAs");
    static_assert(!B_MN || Elem<T>::mn_major_ok, "this type's wgmma reads B K-major only");
    static_assert(CLUSTER == 1 || (B_MN ? (BN / ATOM) % CLUSTER == 0 : BN % (8 * CLUSTER) == 0),
                  "the B tile must split evenly over the cluster");
    static_assert(SMEM <= 227 * 1024, "shared memory past the 227 KB a block may have");
};

/* The work, as the kernel sees it (hopper_sched.cuh). Built on the host by problem<Cfg>(). */
typedef hg_problem Problem;

template <class Cfg> inline Problem problem(int M, int N, int K, int splits, int group, int raster_n)
{
    return hg_problem_of(M, N, K, Cfg::BM, Cfg::BN, Cfg::BK, Cfg::CLUSTER, splits, group, raster_n);
}

/* CTAs for the work: every unit its own cluster (plain), or at most one CTA per SM (persistent). */
template <class Cfg> inline int grid_for(const Problem &p, int persistent, int sms)
{
    long units = p.units;
    if (persistent) {
        long fit = sms / Cfg::CLUSTER;
        units = units < fit ? units : fit;
    }
    return (int)(units * Cfg::CLUSTER);
}

__host__ __device__ inline void unit_tile(const Problem &p, int u, int *tmc, int *tn, int *split)
{
    hg_unit_tile(&p, u, tmc, tn, split);
}
__host__ __device__ inline void split_range(const Problem &p, int s, int *kb, int *ke) { hg_split_range(&p, s, kb, ke); }

/* ---- device primitives (sm_90a) ---- */
__device__ __forceinline__ uint32_t smem_u32(const void *p) { return (uint32_t)__cvta_generic_to_shared(p); }

__device__ __forceinline__ void mbar_init(uint64_t *bar, unsigned count)
{
#if HG_SM90A
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_u32(bar)), "r"(count));
#else
    (void)bar, (void)count;
#endif
}

__device__ __forceinline__ void mbar_wait(uint64_t *bar, int parity)
{
#if HG_SM90A
    uint32_t done;
    do {
        asm volatile("{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}\n"
                     : "=r"(done)
                     : "r"(smem_u32(bar)), "r"(parity)
                     : "memory");
    } while (!done);
#else
    (void)bar, (void)parity;
#endif
}

__device__ __forceinline__ void mbar_expect_tx(uint64_t *bar, uint32_t bytes)
{
#if HG_SM90A
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_u32(bar)), "r"(bytes) : "memory");
#else
    (void)bar, (void)bytes;
#endif
}

/* Arrive on the barrier at the same offset in CTA `rank` of the cluster (this CTA's own included).
   Release at CTA scope, as CUTLASS's ClusterBarrier::arrive does: the arrival frees a stage, and what
   must precede it (this warpgroup's wgmma reads of the stage) is complete by wgmma.wait_group; nothing
   written is published. `.release.cluster` compiled to MEMBAR.ALL.GPU + CCTL.IVALL before every
   arrival: a GPU-scope fence, waiting for the thread's outstanding global stores (the previous tile's
   epilogue) and dropping L1, once a k-tile in each consumer warpgroup (docs/notes/matmul_h200.md). */
__device__ __forceinline__ void mbar_arrive_cluster(uint64_t *bar, uint32_t rank)
{
#if HG_SM90A
    asm volatile("{\n.reg .b32 r;\nmapa.shared::cluster.u32 r, %0, %1;\n"
                 "mbarrier.arrive.shared::cluster.b64 _, [r];\n}\n" ::"r"(smem_u32(bar)),
                 "r"(rank)
                 : "memory");
#else
    (void)bar, (void)rank;
#endif
}

__device__ __forceinline__ void mbar_arrive(uint64_t *bar)
{
#if HG_SM90A
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem_u32(bar)) : "memory");
#else
    (void)bar;
#endif
}

__device__ __forceinline__ uint32_t cluster_rank()
{
    uint32_t r = 0;
#if HG_SM90A
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
#endif
    return r;
}

__device__ __forceinline__ void cluster_sync()
{
#if HG_SM90A
    asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;" ::: "memory");
#endif
}

/* 2-D TMA load of the box at (c0 inner, c1 outer) into dst, completing bytes on bar; with a mask, the
   same box lands at the same offset in every CTA of the mask, each completing on its own bar. */
__device__ __forceinline__ void tma_load(void *dst, const CUtensorMap *map, uint64_t *bar, int c0, int c1)
{
#if HG_SM90A
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4}], [%2];"
                 ::"r"(smem_u32(dst)), "l"((uint64_t)map), "r"(smem_u32(bar)), "r"(c0), "r"(c1)
                 : "memory");
#else
    (void)dst, (void)map, (void)bar, (void)c0, (void)c1;
#endif
}

/* 4-D TMA load of the box at (c0 innermost .. c3) into dst, completing bytes on bar */
__device__ __forceinline__ void tma_load_4d(void *dst, const CUtensorMap *map, uint64_t *bar, int c0, int c1, int c2,
                                            int c3)
{
#if HG_SM90A
    asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4, %5, %6}], [%2];"
                 ::"r"(smem_u32(dst)), "l"((uint64_t)map), "r"(smem_u32(bar)), "r"(c0), "r"(c1), "r"(c2), "r"(c3)
                 : "memory");
#else
    (void)dst, (void)map, (void)bar, (void)c0, (void)c1, (void)c2, (void)c3;
#endif
}

__device__ __forceinline__ void tma_load_multicast(void *dst, const CUtensorMap *map, uint64_t *bar, int c0, int c1,
                                                   uint16_t mask)
{
#if HG_SM90A
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster"
                 " [%0], [%1, {%3, %4}], [%2], %5;"
                 ::"r"(smem_u32(dst)), "l"((uint64_t)map), "r"(smem_u32(bar)), "r"(c0), "r"(c1), "h"(mask)
                 : "memory");
#else
    (void)dst, (void)map, (void)bar, (void)c0, (void)c1, (void)mask;
#endif
}

/* A shared-memory matrix descriptor for wgmma, 128-byte swizzle. K-major operands: rows of 128 bytes,
   8-row groups `sbo` = 1024 bytes apart (lbo unused). MN-major: 128-byte runs along MN, `lbo` bytes
   between runs along MN, 8-row groups along K `sbo` = 1024 bytes apart. Tiles sit on 1024-byte
   boundaries, so the base-offset field stays 0. */
__device__ __forceinline__ uint64_t smem_desc(uint32_t addr, uint32_t lbo, uint32_t sbo)
{
    return (uint64_t)((addr & 0x3FFFF) >> 4) | ((uint64_t)((lbo & 0x3FFFF) >> 4) << 16) |
           ((uint64_t)((sbo & 0x3FFFF) >> 4) << 32) | (1ull << 62);
}

__device__ __forceinline__ void wgmma_fence()
{
#if HG_SM90A
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#endif
}
__device__ __forceinline__ void wgmma_commit()
{
#if HG_SM90A
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
#endif
}
template <int N> __device__ __forceinline__ void wgmma_wait()
{
#if HG_SM90A
    asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(N) : "memory");
#endif
}
/* Keeps the compiler from moving accumulator reads or writes across an asynchronous wgmma. */
template <int R> __device__ __forceinline__ void fence_regs(float (&d)[R])
{
#pragma unroll
    for (int i = 0; i < R; i++)
        asm volatile("" : "+f"(d[i])::"memory");
}

template <int REGS> __device__ __forceinline__ void setmaxnreg_inc()
{
#if HG_SM90A
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(REGS));
#endif
}
template <int REGS> __device__ __forceinline__ void setmaxnreg_dec()
{
#if HG_SM90A
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(REGS));
#endif
}

/* ---- the kernel ---- */
template <class Cfg> struct Smem {
    /* A[stage]: BM rows of 128 bytes. B[stage]: B_MN: BN/ATOM runs of BK rows of 128 bytes; else BN rows
       of 128 bytes. Stage tiles are multiples of 1024 bytes, so each starts on a swizzle boundary. */
    __device__ typename Cfg::T *a(int s) { return (typename Cfg::T *)(base + (size_t)s * Cfg::A_BYTES); }
    __device__ typename Cfg::T *b(int s)
    {
        return (typename Cfg::T *)(base + (size_t)Cfg::STAGES * Cfg::A_BYTES + (size_t)s * Cfg::B_BYTES);
    }
    __device__ uint64_t *full(int s) { return (uint64_t *)(base + (size_t)Cfg::STAGES * Cfg::STAGE_BYTES) + s; }
    __device__ uint64_t *empty(int s) { return full(0) + Cfg::STAGES + s; }
    /* ping-pong: consumer c may wait on its unit's stages once this barrier says the other consumer's
       128 threads have each seen its last stage full (in the 64 spare bytes after the ring's barriers) */
    __device__ uint64_t *turn(int c) { return full(0) + 2 * Cfg::STAGES + c; }
    /* a staging epilogue's chunks (hopper_store.cuh), on the next 1024-byte boundary past the barriers */
    __device__ unsigned char *stage()
    {
        return base + (((size_t)Cfg::STAGES * Cfg::STAGE_BYTES + 2 * Cfg::STAGES * 8 + 64 + 1023) & ~(size_t)1023);
    }
    unsigned char *base;
};

template <class Cfg>
__device__ __forceinline__ void produce(const Problem &p, const CUtensorMap *ta, const CUtensorMap *tb, Smem<Cfg> &sm)
{
    const uint32_t rank = Cfg::CLUSTER > 1 ? cluster_rank() : 0;
    const int ncl = gridDim.x / Cfg::CLUSTER;
    int stage = 0, phase = 0;
    for (int u = blockIdx.x / Cfg::CLUSTER; u < p.units; u += ncl) {
        int tmc, tn, split, kb, ke;
        unit_tile(p, u, &tmc, &tn, &split);
        split_range(p, split, &kb, &ke);
        const int m0 = (tmc * Cfg::CLUSTER + (int)rank) * Cfg::BM, n0 = tn * Cfg::BN;
        for (int kt = kb; kt < ke; kt++) {
            mbar_wait(sm.empty(stage), phase ^ 1);
            mbar_expect_tx(sm.full(stage), Cfg::STAGE_BYTES);
            const int k0 = kt * Cfg::BK;
            tma_load(sm.a(stage), ta, sm.full(stage), k0, m0);
            if constexpr (Cfg::B_MN) {
                constexpr int RUNS = Cfg::BN / Cfg::ATOM, MINE = RUNS / Cfg::CLUSTER;
#pragma unroll
                for (int j = (int)rank * MINE; j < ((int)rank + 1) * MINE; j++) {
                    typename Cfg::T *dst = sm.b(stage) + (size_t)j * Cfg::BK * Cfg::ATOM;
                    if constexpr (Cfg::CLUSTER > 1)
                        tma_load_multicast(dst, tb, sm.full(stage), n0 + j * Cfg::ATOM, k0, (1u << Cfg::CLUSTER) - 1);
                    else
                        tma_load(dst, tb, sm.full(stage), n0 + j * Cfg::ATOM, k0);
                }
            } else {
                constexpr int ROWS = Cfg::BN / Cfg::CLUSTER;
                typename Cfg::T *dst = sm.b(stage) + (size_t)rank * ROWS * Cfg::ATOM;
                if constexpr (Cfg::CLUSTER > 1)
                    tma_load_multicast(dst, tb, sm.full(stage), k0, n0 + (int)rank * ROWS, (1u << Cfg::CLUSTER) - 1);
                else
                    tma_load(dst, tb, sm.full(stage), k0, n0);
            }
            if (++stage == Cfg::STAGES)
                stage = 0, phase ^= 1;
        }
    }
}

/* Frees a stage: in every CTA of the cluster, since each CTA's producer writes into all of them. */
template <class Cfg> __device__ __forceinline__ void release(Smem<Cfg> &sm, int stage)
{
    if constexpr (Cfg::CLUSTER > 1) {
#pragma unroll
        for (uint32_t r = 0; r < (uint32_t)Cfg::CLUSTER; r++)
            mbar_arrive_cluster(sm.empty(stage), r);
    } else {
        mbar_arrive(sm.empty(stage));
    }
}

/* Whether an epilogue policy asks for each k-tile's product apart (see the header: promotion). */
template <class E, class = void> struct promotes {
    static constexpr bool value = false;
};
template <class E> struct promotes<E, std::void_t<decltype(E::promote_k_tiles)>> {
    static constexpr bool value = E::promote_k_tiles;
};

/* Shared memory a consumer warpgroup's staging epilogue asks for (hopper_store.cuh), 0 for the rest. */
template <class E, class = void> struct stage_bytes_of {
    static constexpr int value = 0;
};
template <class E> struct stage_bytes_of<E, std::void_t<decltype(E::stage_bytes)>> {
    static constexpr int value = E::stage_bytes;
};

/* Dynamic shared memory of gemm_kernel<Cfg, Epi>: the ring and its barriers, then (staging policies)
   the consumers' chunks on a 1024-byte boundary. */
template <class Cfg, class Epi> __host__ __device__ constexpr int smem_bytes()
{
    return stage_bytes_of<Epi>::value == 0 ? Cfg::SMEM : Cfg::SMEM + 1024 + Cfg::CONSUMERS * stage_bytes_of<Epi>::value;
}

/* d += this stage's A tile times its B tile: BK/KI wgmma k steps for each of the MT m64 blocks, one
   commit group. */
template <class Cfg, int MT, int R>
__device__ __forceinline__ void mma_ktile(float (&d)[MT][R], uint32_t a0, uint32_t b0)
{
    constexpr uint32_t B_LBO = Cfg::B_MN ? Cfg::BK * 128 : 16, SBO = 1024;
    /* bytes one wgmma k step moves the descriptors by: along a 128-byte row (K-major), or down 16 or
       32 rows of 128 bytes (MN-major: K is the row index) */
    constexpr uint32_t A_STEP = Cfg::KI * sizeof(typename Cfg::T);
    constexpr uint32_t B_STEP = Cfg::B_MN ? Cfg::KI * 128 : A_STEP;
#pragma unroll
    for (int mt = 0; mt < MT; mt++)
        fence_regs(d[mt]);
    wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < Cfg::BK / Cfg::KI; kk++) {
        const uint64_t db = smem_desc(b0 + kk * B_STEP, B_LBO, SBO);
#pragma unroll
        for (int mt = 0; mt < MT; mt++)
            Elem<typename Cfg::T>::template mma<Cfg::BNC, Cfg::B_MN ? 1 : 0>(
                d[mt], smem_desc(a0 + mt * 64 * 128 + kk * A_STEP, 16, SBO), db);
    }
    wgmma_commit();
#pragma unroll
    for (int mt = 0; mt < MT; mt++)
        fence_regs(d[mt]);
}

template <class Cfg, class Epi>
__device__ __forceinline__ void consume(const Problem &p, Smem<Cfg> &sm, int c, Epi &epi, const CUtensorMap *tc)
{
    constexpr int MT = Cfg::MT, R = Cfg::BNC / 2;
    /* COLSPLIT: this consumer's columns of the B tile, BNC of them from c * BNC (MN-major: whole 64-column
       runs of BK rows; K-major: rows of 128 bytes) */
    constexpr uint32_t B_COLS_BYTES = Cfg::B_MN ? (Cfg::BNC / Cfg::ATOM) * Cfg::BK * 128 : Cfg::BNC * 128;
    const uint32_t b_off = Cfg::COLSPLIT ? (uint32_t)c * B_COLS_BYTES : 0;
    const uint32_t rank = Cfg::CLUSTER > 1 ? cluster_rank() : 0;
    const int ncl = gridDim.x / Cfg::CLUSTER;
    const int t = threadIdx.x % 128;
    TileInfo info;
    info.row0 = Cfg::PINGPONG || Cfg::COLSPLIT ? 0 : c * MT * 64;
    info.warp = t / 32, info.lane = t % 32, info.M = p.M, info.N = p.N;
    info.consumer = c, info.splits = p.splits;
    info.stage = stage_bytes_of<Epi>::value ? sm.stage() : nullptr, info.out_map = tc;
    int stage = 0, phase = 0;
    float acc[MT][R];
    int nth = 0; /* this CTA's units so far: ping-pong gives consumer c the units nth % 2 == c */
    int turn_phase = 0;
    for (int u = blockIdx.x / Cfg::CLUSTER; u < p.units; u += ncl, nth++) {
        int tmc, tn, kb, ke;
        unit_tile(p, u, &tmc, &tn, &info.split);
        split_range(p, info.split, &kb, &ke);
        if constexpr (Cfg::PINGPONG) {
            if ((nth & 1) != c) {
                /* the other warpgroup's unit: its k-tiles pass through the ring without us */
                hg_ring_advance(&stage, &phase, ke - kb, Cfg::STAGES);
                continue;
            }
            /* Our ring position may be many wraps past what the barriers have reached; a parity wait
               is only exact within one phase. Once the other consumer has seen every stage before ours
               full, each of our slots is at most one phase behind (CUTLASS orders its ping-pong
               warpgroups the same way), and its mainloop has been issued, so ours follows it. */
            if (nth > 0) {
                mbar_wait(sm.turn(c), turn_phase);
                turn_phase ^= 1;
            }
        }
        info.m0 = (tmc * Cfg::CLUSTER + (int)rank) * Cfg::BM;
        info.n0 = tn * Cfg::BN + (Cfg::COLSPLIT ? c * Cfg::BNC : 0);
        info.tile = (tmc * Cfg::CLUSTER + (int)rank) * p.tiles_n + tn;
#pragma unroll
        for (int mt = 0; mt < MT; mt++)
#pragma unroll
            for (int i = 0; i < R; i++)
                acc[mt][i] = 0.f;
        int prev = -1;
        for (int kt = kb; kt < ke; kt++) {
            mbar_wait(sm.full(stage), phase);
            if constexpr (Cfg::PINGPONG) {
                /* every thread, so the other's next turn also means all of ours have passed this
                   turn's wait: a single arrival let the other consumer, on units shorter than the
                   ring, arrive twice while one of our warps still waited on the first phase */
                if (kt == ke - 1)
                    mbar_arrive(sm.turn(c ^ 1));
            }
            const uint32_t a0 = smem_u32(sm.a(stage)) + (uint32_t)info.row0 * 128, b0 = smem_u32(sm.b(stage)) + b_off;
            if constexpr (promotes<Epi>::value) {
                /* the k-tile's product on its own, complete, folded in by the policy */
                float part[MT][R];
#pragma unroll
                for (int mt = 0; mt < MT; mt++)
#pragma unroll
                    for (int i = 0; i < R; i++)
                        part[mt][i] = 0.f;
                mma_ktile<Cfg>(part, a0, b0);
                wgmma_wait<0>();
#pragma unroll
                for (int mt = 0; mt < MT; mt++)
                    fence_regs(part[mt]);
                if (t == 0)
                    release<Cfg>(sm, stage);
                epi.promote(info, kt, part, acc);
            } else {
                mma_ktile<Cfg>(acc, a0, b0);
                /* one group in flight: the previous k-tile's wgmmas are done, so its stage is free */
                wgmma_wait<1>();
                if (prev >= 0 && t == 0)
                    release<Cfg>(sm, prev);
                prev = stage;
            }
            if (++stage == Cfg::STAGES)
                stage = 0, phase ^= 1;
        }
        wgmma_wait<0>();
#pragma unroll
        for (int mt = 0; mt < MT; mt++)
            fence_regs(acc[mt]);
        if (prev >= 0 && t == 0)
            release<Cfg>(sm, prev);
        epi(info, acc);
    }
    if constexpr (stage_bytes_of<Epi>::value != 0)
        epi.finish(info);
}

template <class Cfg, class Epi>
__global__ void __launch_bounds__(Cfg::THREADS, 1)
    gemm_kernel(const __grid_constant__ CUtensorMap ta, const __grid_constant__ CUtensorMap tb,
                const __grid_constant__ CUtensorMap tc, const Problem p, Epi epi)
{
    static_assert(smem_bytes<Cfg, Epi>() <= 227 * 1024, "ring and staging chunks past the 227 KB a block may have");
#if HG_SM90A
    extern __shared__ unsigned char hg_smem_raw[];
    Smem<Cfg> sm;
    sm.base = (unsigned char *)(((uintptr_t)hg_smem_raw + 1023) & ~(uintptr_t)1023);
    const int wg = threadIdx.x / 128;
    if (threadIdx.x == 0) {
        for (int s = 0; s < Cfg::STAGES; s++) {
            mbar_init(sm.full(s), 1);
            mbar_init(sm.empty(s), Cfg::TILE_CONSUMERS * Cfg::CLUSTER);
        }
        if constexpr (Cfg::PINGPONG) {
            mbar_init(sm.turn(0), 128);
            mbar_init(sm.turn(1), 128);
        }
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
        asm volatile("prefetch.tensormap [%0];" ::"l"((uint64_t)&ta) : "memory");
        asm volatile("prefetch.tensormap [%0];" ::"l"((uint64_t)&tb) : "memory");
        if constexpr (stage_bytes_of<Epi>::value != 0)
            asm volatile("prefetch.tensormap [%0];" ::"l"((uint64_t)&tc) : "memory");
    }
    /* the peer's barriers are initialised before anyone arrives on them or multicasts to them */
    if constexpr (Cfg::CLUSTER > 1)
        cluster_sync();
    else
        __syncthreads();
    /* with one consumer the entry cap (255) already gives it all it can use: no reallocation */
    if (wg == 0) {
        if constexpr (Cfg::CONSUMERS > 1)
            setmaxnreg_dec<Cfg::PRODUCER_REGS>();
        if (threadIdx.x == 0)
            produce<Cfg>(p, &ta, &tb, sm);
    } else {
        if constexpr (Cfg::CONSUMERS > 1)
            setmaxnreg_inc<Cfg::CONSUMER_REGS>();
        consume<Cfg>(p, sm, wg - 1, epi, &tc);
    }
    /* no CTA leaves while its peer may still multicast into its shared memory or arrive on it */
    if constexpr (Cfg::CLUSTER > 1)
        cluster_sync();
#else
    (void)p, (void)epi, (void)ta, (void)tb, (void)tc;
    __trap();
#endif
}

/* ---- host side ---- */
/* A (M x K, ld K) and B (B_MN: K x N with ld ldb; else N x K with ld ldb) as tensor maps whose boxes
   are the kernel's tiles. Returns 0, or -1 with the reason. */
template <class Cfg>
inline int make_maps(CUtensorMap *ta, CUtensorMap *tb, const void *A, const void *B, int M, int N, int K, long ldb,
                     char *why, size_t whylen)
{
    const size_t es = sizeof(typename Cfg::T);
    const hopper_tma_elem e = Elem<typename Cfg::T>::tma;
    if (hopper_tma_2d(ta, A, e, (uint64_t)K, (uint64_t)M, (uint64_t)K * es, Cfg::BK, Cfg::BM, 128, why, whylen))
        return -1;
    if (Cfg::B_MN)
        return hopper_tma_2d(tb, B, e, (uint64_t)N, (uint64_t)K, (uint64_t)ldb * es, Cfg::ATOM, Cfg::BK, 128, why,
                             whylen);
    return hopper_tma_2d(tb, B, e, (uint64_t)K, (uint64_t)N, (uint64_t)ldb * es, Cfg::BK, Cfg::BN / Cfg::CLUSTER,
                         128, why, whylen);
}

/* C (M x N of Out, rows ldc elements apart) as the staging epilogue's output map: boxes of 64 rows x 64
   columns (one chunk, hopper_store.cuh), 128-byte swizzle. Returns 0, or -1 with the reason (C not
   16-byte aligned, rows not a multiple of 16 bytes). */
template <class Out>
inline int make_store_map(CUtensorMap *tc, const void *C, int M, int N, long ldc, char *why, size_t whylen)
{
    static_assert(sizeof(Out) == 2, "staged outputs are 16-bit");
    return hopper_tma_2d(tc, C, tma_elem<Out>(), (uint64_t)N, (uint64_t)M, (uint64_t)ldc * sizeof(Out), HG_STAGE_COLS,
                         HG_STAGE_ROWS, 128, why, whylen);
}

/* The kernel's shared-memory attribute (lib/cuda/func_attr.cuh: once an instantiation). */
template <class Cfg, class Epi> inline cudaError_t prepare()
{
    return func_attr_once<gemm_kernel<Cfg, Epi>, cudaFuncAttributeMaxDynamicSharedMemorySize>(smem_bytes<Cfg, Epi>());
}

template <class Cfg, class Epi>
inline cudaLaunchConfig_t launch_config(int grid, cudaStream_t stream, cudaLaunchAttribute *attr)
{
    cudaLaunchConfig_t lc = {};
    lc.gridDim = dim3((unsigned)grid);
    lc.blockDim = dim3(Cfg::THREADS);
    lc.dynamicSmemBytes = smem_bytes<Cfg, Epi>();
    lc.stream = stream;
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = Cfg::CLUSTER;
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    lc.attrs = attr;
    lc.numAttrs = 1;
    return lc;
}

/* The persistent grid: one CTA for each cluster slot that can be resident at once
   (cudaOccupancyMaxActiveClusters: clusters must sit inside one GPC, so sms / CLUSTER may overstate
   it, and a cluster past the resident ones would run as a second wave, doubling the time), no more
   than the work's units. Falls back to grid_for(p, 1, sms) when the query fails. Asked once an
   instantiation (one device a process). */
template <class Cfg, class Epi> inline int persistent_grid(const Problem &p, int sms)
{
    static int clusters; /* 0: not asked yet; -1: the query failed */
    if (clusters == 0) {
        cudaLaunchAttribute attr[1];
        cudaLaunchConfig_t lc = launch_config<Cfg, Epi>(sms - sms % Cfg::CLUSTER, 0, attr);
        int n = 0;
        const cudaError_t e = prepare<Cfg, Epi>();
        const cudaError_t q = e == cudaSuccess ? cudaOccupancyMaxActiveClusters(&n, gemm_kernel<Cfg, Epi>, &lc) : e;
        clusters = q == cudaSuccess && n > 0 ? n : -1;
        if (q != cudaSuccess)
            (void)cudaGetLastError(); /* the failed query's error is not the launch's to report */
    }
    if (clusters < 0)
        return grid_for<Cfg>(p, 1, sms);
    const long fit = clusters < sms / Cfg::CLUSTER ? clusters : sms / Cfg::CLUSTER;
    return (int)((p.units < fit ? p.units : fit) * Cfg::CLUSTER);
}

/* The grid of a run: one CTA a unit, or (persistent) the resident cluster slots of this instantiation
   (persistent_grid). What each plugin's persistent configurations use. */
template <class Cfg, class Epi> inline int grid_of(const Problem &p, int persistent, int sms)
{
    return persistent ? persistent_grid<Cfg, Epi>(p, sms) : grid_for<Cfg>(p, 0, sms);
}

/* Launches the kernel on `grid` CTAs (a multiple of CLUSTER; see grid_of). tc: the output map of a
   staging epilogue (make_store_map); the other policies take the overload without it. */
template <class Cfg, class Epi>
inline cudaError_t launch(const CUtensorMap &ta, const CUtensorMap &tb, const CUtensorMap &tc, const Problem &p,
                          const Epi &epi, int grid, cudaStream_t stream)
{
    cudaError_t e = prepare<Cfg, Epi>();
    if (e != cudaSuccess)
        return e;
    if (grid <= 0 || p.units <= 0)
        return cudaSuccess;
    cudaLaunchAttribute attr[1];
    const cudaLaunchConfig_t lc = launch_config<Cfg, Epi>(grid, stream, attr);
    return cudaLaunchKernelEx(&lc, gemm_kernel<Cfg, Epi>, ta, tb, tc, p, epi);
}

template <class Cfg, class Epi>
inline cudaError_t launch(const CUtensorMap &ta, const CUtensorMap &tb, const Problem &p, const Epi &epi, int grid,
                          cudaStream_t stream)
{
    static_assert(stage_bytes_of<Epi>::value == 0, "a staging epilogue needs its output map (tc)");
    const CUtensorMap none = {};
    return launch<Cfg>(ta, tb, none, p, epi, grid, stream);
}

/* Launches on grid_of(p, persistent, sms): what a plugin's configuration (persistent or not) runs.
   tc: a staging epilogue's output map; ignored (any map, e.g. zeroed) for the other policies. */
template <class Cfg, class Epi>
inline cudaError_t launch_on(const CUtensorMap &ta, const CUtensorMap &tb, const CUtensorMap &tc, const Problem &p,
                             const Epi &epi, int persistent, int sms, cudaStream_t stream)
{
    return launch<Cfg>(ta, tb, tc, p, epi, grid_of<Cfg, Epi>(p, persistent, sms), stream);
}

} // namespace hg

#endif
