/* hopper_store.cuh — the staged epilogue of hopper_gemm.cuh (epi=tma): each consumer warpgroup converts
 * its accumulators to 16 bits, writes them with stmatrix into a 128-byte-swizzled chunk of shared
 * memory, and one thread stores the chunk with a TMA bulk tensor store (cp.async.bulk.tensor, shared::cta
 * -> global, bulk_group). The store runs on the copy engine while the warpgroup goes on to its next
 * unit's mainloop; the producer never waited on the epilogue (the ring's stages are freed before it),
 * so what the staged epilogue hides is the consumers' own time in stores. Rows and columns past the
 * output's edge are clipped by the copy engine: no mask, any M and N (N a multiple of 8: 16-byte rows).
 *
 * Chunks are 64 rows x 64 columns (128 bytes a row: one swizzle atom, the TMA box of the output map);
 * a consumer warpgroup owns HG_STAGE_BUFS of them (2: one filled while the other is read by the copy
 * engine). The chunk of an m64 block's columns [64 j, 64 j + 64) holds fragment indices
 * i = 32 j + 8 q + 2 r (+1) (hopper_gemm.cuh's fragment map), stored by stmatrix x4 number q, register r.
 *
 * The first part is plain C (tests/unit/plugins/test_matmul_h200.c checks it on the CPU: every fragment element lands
 * where the TMA store reads it, and each stmatrix phase hits 32 distinct banks); the device part needs
 * nvcc and hopper_epilogue.cuh.
 *
 * Device side (namespace hg):
 *   stage_store<Out, MT, COLS>(t, chunk, col0, value)  stores value(mt, i) (fragment index i < COLS / 2)
 *                                                       as the tile's COLS output columns from col0
 *   stage_finish(t)                                     waits for the warpgroup's stores (once, at exit)
 *   Staged                                              the base of a staging policy
 *   TmaStoreEpilogue<Out>                               C = acc, the policy matmul_h200 uses
 * A staging policy derives from Staged (`stage_bytes`: shared memory a consumer warpgroup,
 * HG_STAGE_BUFS * HG_STAGE_BYTES; `finish`), so the kernel gives TileInfo the region (t.stage) and the
 * output map (t.out_map, hg::launch's tc) and calls finish after the last unit; its operator() calls
 * stage_store with the values it wants written (fp8_gemm scales them, fused_gated_mlp gates them).
 * Uses named barriers HG_STAGE_BARRIER + consumer (SerialSplitEpilogue's are 1 and 2).
 */
#ifndef KLAB_HOPPER_STORE_CUH
#define KLAB_HOPPER_STORE_CUH

#ifdef __CUDACC__
#define HG_SD __host__ __device__
#else
#define HG_SD
#endif

enum {
    HG_STAGE_COLS = 64,   /* 16-bit columns a chunk: 128 bytes, one swizzle atom */
    HG_STAGE_ROWS = 64,   /* an m64 block */
    HG_STAGE_BYTES = HG_STAGE_COLS * HG_STAGE_ROWS * 2,
    HG_STAGE_BUFS = 2,    /* chunks a consumer warpgroup: one filled while the copy engine reads the other */
    HG_STAGE_BARRIER = 3, /* named barriers 3 and 4 */
};

/* Byte offset of 16-byte unit `unit` (0..7) of row `row` in a chunk as the TMA 128-byte swizzle lays it
   out (the chunk on a 1024-byte boundary): the unit index XOR the row's index within its 8-row group. */
static inline HG_SD int hg_sw128(int row, int unit)
{
    return row * 128 + ((unit ^ (row & 7)) << 4);
}

/* The row address lane `lane` of warp `warp` gives stmatrix .x4 number q (0..3) of a chunk: lanes
   8 m .. 8 m + 7 address the rows of matrix m, which is register m of every lane; matrix m is rows
   16 warp + 8 (m & 1) + (0..7), columns 16 q + 8 (m >> 1) + (0..7), i.e. fragment indices
   32 j + 8 q + 2 m and + 1 (hg_stage_frag). */
static inline HG_SD int hg_stsm_addr(int warp, int lane, int q)
{
    const int m = lane >> 3;
    return hg_sw128(16 * warp + (lane & 7) + 8 * (m & 1), 2 * q + (m >> 1));
}

/* The fragment index whose pair (i, i + 1) is register r of stmatrix q in chunk j. */
static inline HG_SD int hg_stage_frag(int j, int q, int r)
{
    return 32 * j + 8 * q + 2 * r;
}

#ifdef __CUDACC__

#include <cuda.h>
#include <stdint.h>

#include "hopper/hopper_epilogue.cuh"

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define HG_STORE_SM90A 1
#else
#define HG_STORE_SM90A 0
#endif

namespace hg {

__device__ __forceinline__ void stmatrix_x4(uint32_t addr, uint32_t r0, uint32_t r1, uint32_t r2, uint32_t r3)
{
#if HG_STORE_SM90A
    asm volatile("stmatrix.sync.aligned.x4.m8n8.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(addr), "r"(r0), "r"(r1),
                 "r"(r2), "r"(r3)
                 : "memory");
#else
    (void)addr, (void)r0, (void)r1, (void)r2, (void)r3;
#endif
}

/* this thread's shared-memory writes become visible to the copy engine (the async proxy) */
__device__ __forceinline__ void fence_async_smem()
{
#if HG_STORE_SM90A
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
#endif
}

__device__ __forceinline__ void tma_store(const CUtensorMap *map, uint32_t src, int c0, int c1)
{
#if HG_STORE_SM90A
    asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];" ::"l"((uint64_t)map),
                 "r"(src), "r"(c0), "r"(c1)
                 : "memory");
#else
    (void)map, (void)src, (void)c0, (void)c1;
#endif
}

__device__ __forceinline__ void bulk_commit()
{
#if HG_STORE_SM90A
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
#endif
}

/* at most N of this thread's bulk groups still reading shared memory */
template <int N> __device__ __forceinline__ void bulk_wait_read()
{
#if HG_STORE_SM90A
    asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(N) : "memory");
#endif
}

/* every bulk group of this thread complete: its writes done */
__device__ __forceinline__ void bulk_wait_all()
{
#if HG_STORE_SM90A
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
#endif
}

template <class Out> __device__ __forceinline__ uint32_t stage_pack(float a, float b)
{
    return (uint32_t)hg_bits(hg_cvt<Out>(a)) | (uint32_t)hg_bits(hg_cvt<Out>(b)) << 16;
}

/* Stores COLS output columns of this consumer warpgroup's rows, starting at column col0 of the output
   map, row t.m0 + t.row0: value(mt, i) for fragment index i < COLS / 2 is the output at
   (frag_row(t, mt, i), col0 + frag_col(t, i)). chunk: the warpgroup's running chunk count (each thread
   keeps its own copy, all equal), which picks the buffer. Every thread of the warpgroup calls it. */
template <class Out, int MT, int COLS, class F>
__device__ __forceinline__ void stage_store(const TileInfo &t, int &chunk, int col0, F &&value)
{
    static_assert(sizeof(Out) == 2, "staged chunks hold 16-bit outputs (64 columns: one 128-byte atom)");
    static_assert(COLS % HG_STAGE_COLS == 0, "whole 64-column chunks");
    const bool leader = t.warp == 0 && t.lane == 0;
    const int bar = HG_STAGE_BARRIER + t.consumer;
    unsigned char *const mine = t.stage + t.consumer * HG_STAGE_BUFS * HG_STAGE_BYTES;
#pragma unroll
    for (int mt = 0; mt < MT; mt++)
#pragma unroll
        for (int j = 0; j < COLS / HG_STAGE_COLS; j++) {
            const uint32_t buf = (uint32_t)__cvta_generic_to_shared(mine + (chunk % HG_STAGE_BUFS) * HG_STAGE_BYTES);
            /* the copy engine has finished reading this buffer's previous chunk */
            if (leader)
                bulk_wait_read<HG_STAGE_BUFS - 1>();
            named_barrier(bar, 128);
#pragma unroll
            for (int q = 0; q < 4; q++) {
                uint32_t r[4];
#pragma unroll
                for (int m = 0; m < 4; m++) {
                    const int i = hg_stage_frag(j, q, m);
                    r[m] = stage_pack<Out>(value(mt, i), value(mt, i + 1));
                }
                stmatrix_x4(buf + (uint32_t)hg_stsm_addr(t.warp, t.lane, q), r[0], r[1], r[2], r[3]);
            }
            fence_async_smem();
            named_barrier(bar, 128);
            if (leader) {
                tma_store(t.out_map, buf, col0 + j * HG_STAGE_COLS, t.m0 + t.row0 + mt * HG_STAGE_ROWS);
                bulk_commit();
            }
            chunk++;
        }
}

/* The warpgroup's stores complete before the CTA exits (its shared memory must outlive the reads). */
__device__ __forceinline__ void stage_finish(const TileInfo &t)
{
    if (t.warp == 0 && t.lane == 0)
        bulk_wait_all();
}

/* The base of a staging policy: what the kernel looks for (stage_bytes, finish) and the chunk count
   stage_store() keeps. Value-initialise the policy (Policy{} or {{}, ...}): the count starts at 0. */
struct Staged {
    static constexpr int stage_bytes = HG_STAGE_BUFS * HG_STAGE_BYTES;
    int chunk;
    __device__ __forceinline__ void finish(const TileInfo &t) { stage_finish(t); }
};

/* C = acc as Out (bf16 / fp16) through staged chunks and TMA stores: StoreEpilogue's function. The
   output map is hg::make_store_map's. */
template <class Out> struct TmaStoreEpilogue : Staged {
    template <int MT, int R> __device__ __forceinline__ void operator()(const TileInfo &t, float (&acc)[MT][R])
    {
        stage_store<Out, MT, 2 * R>(t, chunk, t.n0, [&](int mt, int i) { return acc[mt][i]; });
    }
};

} // namespace hg

#endif /* __CUDACC__ */

#endif
