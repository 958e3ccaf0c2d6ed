/* hopper_epilogue.cuh — what a consumer warpgroup of hopper_gemm.cuh holds when a tile's K range is
 * done, and the epilogue policies that write it out. hopper_gemm.cuh includes this; its header says
 * the fragment map (hg::frag_row, hg::frag_col) and the policy contract. Here:
 *   hg::TileInfo, frag_row, frag_col      where acc[mt][i] lands in C
 *   hg::for_each_pair<MT, R>(t, f)        the masked walk over in-range column pairs
 *   hg::named_barrier(id, threads)        bar.sync among consumer threads (ids 1 and up)
 *   hg::StoreEpilogue<Out>                C as Out, masked
 *   hg::PartialEpilogue, splitk_reduce()  split-K partials, then a second kernel sums them
 *   hg::SerialSplitEpilogue<Out>          split-K in one launch (atomic tickets)
 * The staged epilogue (shared memory, then TMA stores: epi=tma) is hopper_store.cuh's.
 */
#ifndef KLAB_HOPPER_EPILOGUE_CUH
#define KLAB_HOPPER_EPILOGUE_CUH

#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <stdint.h>

namespace hg {

/* Where one unit of work lands: what an epilogue needs. */
struct TileInfo {
    int m0, n0;   /* the CTA tile's origin in C (COLSPLIT: n0 is this consumer's first column) */
    int split;    /* 0 .. splits-1 */
    int row0;     /* first tile row of this consumer warpgroup: c * MT * 64 (0: ping-pong, COLSPLIT) */
    int warp;     /* 0..3 within the warpgroup */
    int lane;
    int M, N;
    int tile;     /* the output tile's index, (m0 / BM) * tiles_n + n0 / BN (per-tile state: tickets) */
    int consumer; /* c, 0 .. CONSUMERS-1 */
    int splits;   /* the problem's split count */
    /* a staging policy's (hopper_store.cuh): its shared memory, every consumer's HG_STAGE_BUFS chunks,
       and the output's tensor map (a kernel parameter); NULL for the others */
    unsigned char *stage;
    const CUtensorMap *out_map;
};

__host__ __device__ inline int frag_row(const TileInfo &t, int mt, int i)
{
    return t.row0 + mt * 64 + 16 * t.warp + (t.lane >> 2) + 8 * ((i >> 1) & 1);
}
__host__ __device__ inline int frag_col(const TileInfo &t, int i) { return 8 * (i >> 2) + 2 * (t.lane & 3) + (i & 1); }

template <class Out> __device__ __forceinline__ Out hg_cvt(float v);
template <> __device__ __forceinline__ float hg_cvt<float>(float v) { return v; }
template <> __device__ __forceinline__ __nv_bfloat16 hg_cvt<__nv_bfloat16>(float v) { return __float2bfloat16_rn(v); }
template <> __device__ __forceinline__ __half hg_cvt<__half>(float v) { return __float2half_rn(v); }
__device__ __forceinline__ unsigned short hg_bits(__nv_bfloat16 v) { return __bfloat16_as_ushort(v); }
__device__ __forceinline__ unsigned short hg_bits(__half v) { return __half_as_ushort(v); }

/* f(mt, i, row, col) for each even fragment index i whose element lies inside C (M x N): acc[mt][i] is
   C[row][col] and, when col + 1 < N, acc[mt][i + 1] is C[row][col + 1]. The masked walk every
   epilogue here makes; policies of other plugins may use it too. */
template <int MT, int R, class F> __device__ __forceinline__ void for_each_pair(const TileInfo &t, F &&f)
{
#pragma unroll
    for (int mt = 0; mt < MT; mt++)
#pragma unroll
        for (int i = 0; i < R; i += 2) {
            const int row = t.m0 + frag_row(t, mt, i), col = t.n0 + frag_col(t, i);
            if (row < t.M && col < t.N)
                f(mt, i, row, col);
        }
}

/* C as Out, row-major with ldc elements a row; pairs of adjacent columns go out as one store when the
   pair is inside N and aligned. */
template <class Out> struct StoreEpilogue {
    Out *c;
    long ldc;
    template <int MT, int R> __device__ __forceinline__ void operator()(const TileInfo &t, float (&acc)[MT][R])
    {
        const bool pairs = ((ldc & 1) == 0) && (((uintptr_t)c & (2 * sizeof(Out) - 1)) == 0);
        Out *const cc = c;
        const long ld = ldc;
        for_each_pair<MT, R>(t, [&](int mt, int i, int row, int col) {
            Out *dst = cc + (long)row * ld + col;
            if (pairs && col + 1 < t.N) {
                if constexpr (sizeof(Out) == 2) {
                    *(uint32_t *)dst = (uint32_t)hg_bits(hg_cvt<Out>(acc[mt][i])) |
                                       (uint32_t)hg_bits(hg_cvt<Out>(acc[mt][i + 1])) << 16;
                } else {
                    *(float2 *)dst = make_float2(acc[mt][i], acc[mt][i + 1]);
                }
            } else {
                dst[0] = hg_cvt<Out>(acc[mt][i]);
                if (col + 1 < t.N)
                    dst[1] = hg_cvt<Out>(acc[mt][i + 1]);
            }
        });
    }
};

/* Split-K: split s writes its fp32 partial tile to ws + s * M * N (row-major, ld N). */
struct PartialEpilogue {
    float *ws;
    template <int MT, int R> __device__ __forceinline__ void operator()(const TileInfo &t, float (&acc)[MT][R])
    {
        StoreEpilogue<float> st{ws + (long)t.split * t.M * t.N, t.N};
        st(t, acc);
    }
};

__device__ __forceinline__ void named_barrier(int id, int threads)
{
    asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory");
}

/* Split-K in one launch: every split writes its fp32 partial as PartialEpilogue does; the consumer
   warpgroup that finishes its rows of a tile last (an atomic ticket a tile and warpgroup) adds the
   splits' partials in split order, its own from registers (so the sum does not depend on which split
   came last), and writes C. tickets: 2 * (tiles of the problem) zeros, left zero (the last one resets
   its ticket), so graph replays find them so. Uses named barrier 1 + consumer over 128 threads. With
   splits == 1 it is StoreEpilogue. */
template <class Out> struct SerialSplitEpilogue {
    float *ws;
    unsigned *tickets;
    Out *c;
    long ldc;
    template <int MT, int R> __device__ __forceinline__ void operator()(const TileInfo &t, float (&acc)[MT][R])
    {
        if (t.splits == 1) {
            StoreEpilogue<Out>{c, ldc}(t, acc);
            return;
        }
        PartialEpilogue{ws}(t, acc);
        __shared__ unsigned last[2];
        __threadfence(); /* this thread's partials reach L2 before the ticket says so */
        named_barrier(1 + t.consumer, 128);
        if (t.warp == 0 && t.lane == 0) {
            unsigned *ticket = tickets + 2 * (long)t.tile + t.consumer;
            last[t.consumer] = atomicAdd(ticket, 1u) == (unsigned)t.splits - 1;
            if (last[t.consumer])
                *ticket = 0; /* every split has arrived: nobody else touches it this run */
        }
        named_barrier(1 + t.consumer, 128);
        if (!last[t.consumer])
            return;
        __threadfence();
        const long mn = (long)t.M * t.N;
        const float *const w = ws;
        /* Each split step issues a chunk of CH pairs' loads before any of them is added, so a thread
           waits on `splits` L2 round trips a chunk, not one a pair: a branch between a pair's load and
           its add (this split's own / vector / edge) had kept ptxas from batching them, and each split
           cost ~8-10 us (matmul decode-16, fp8 64x7168x4096: the serial sum ran slower than a second
           kernel). The split's own partial is uniform per step, so it is tested once a step; the edge
           tests are predicates on the loads. Sums stay in split order, this split's from acc. */
        constexpr int CH = R <= 64 ? R / 2 : 16; /* past 64 accumulators, 32 more live sums stay in registers */
        const bool vec = ((t.N & 1) == 0) && (((uintptr_t)w & 7) == 0);
#pragma unroll
        for (int mt = 0; mt < MT; mt++)
#pragma unroll
            for (int i0 = 0; i0 < R; i0 += 2 * CH) {
                float sum[2 * CH];
#pragma unroll
                for (int j = 0; j < 2 * CH; j++)
                    sum[j] = 0.f;
                for (int s = 0; s < t.splits; s++) {
                    if (s == t.split) {
#pragma unroll
                        for (int j = 0; j < 2 * CH; j++)
                            sum[j] += acc[mt][i0 + j];
                        continue;
                    }
                    const float *const ps = w + s * mn;
                    float2 v[CH];
#pragma unroll
                    for (int j = 0; j < CH; j++) {
                        const int i = i0 + 2 * j;
                        const int row = t.m0 + frag_row(t, mt, i), col = t.n0 + frag_col(t, i);
                        const bool in0 = row < t.M && col < t.N, in1 = in0 && col + 1 < t.N;
                        const float *const p = ps + (long)row * t.N + col;
                        if (vec && in1)
                            v[j] = __ldcg((const float2 *)p);
                        else
                            v[j] = make_float2(in0 ? __ldcg(p) : 0.f, in1 ? __ldcg(p + 1) : 0.f);
                    }
#pragma unroll
                    for (int j = 0; j < CH; j++)
                        sum[2 * j] += v[j].x, sum[2 * j + 1] += v[j].y;
                }
#pragma unroll
                for (int j = 0; j < 2 * CH; j++)
                    acc[mt][i0 + j] = sum[j];
            }
        StoreEpilogue<Out>{c, ldc}(t, acc);
    }
};

template <class Out>
__global__ void splitk_reduce_kernel(const float *__restrict__ ws, Out *__restrict__ c, long mn, int splits)
{
    for (long i = (long)blockIdx.x * blockDim.x + threadIdx.x; i < mn; i += (long)gridDim.x * blockDim.x) {
        float s = 0.f;
        for (int k = 0; k < splits; k++)
            s += ws[(long)k * mn + i];
        c[i] = hg_cvt<Out>(s);
    }
}

/* C = the sum over splits of ws (M x N each), in split order (deterministic). */
template <class Out> inline cudaError_t splitk_reduce(const float *ws, Out *c, int M, int N, int splits, cudaStream_t s)
{
    const long mn = (long)M * N;
    long blocks = (mn + 255) / 256;
    blocks = blocks > 4096 ? 4096 : blocks;
    splitk_reduce_kernel<Out><<<(unsigned)blocks, 256, 0, s>>>(ws, c, mn, splits);
    return cudaGetLastError();
}

} // namespace hg

#endif
