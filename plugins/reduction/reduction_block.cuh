/* What every reduction strategy shares: one block's partial over its tiles of a row, the block and
 * warp reductions, and finishing a row from its partials. The strategies differ only in how the
 * partials of a row meet (reduction_kernels.cu, reduction_cluster.cu).
 *
 * A block's share of a row: the row's 16-byte vectors in tiles of RD_TILE (RD_UNROLL vectors a
 * thread, RD_THREADS apart, all loads issued before the first is used), block j of the row's `splits`
 * taking tiles j, j + splits, ... A row that does not start on 16 bytes (rows of an odd length) has an
 * unaligned head, and any row may have a tail shorter than a vector: block 0 adds those elements. */
#ifndef REDUCTION_BLOCK_CUH
#define REDUCTION_BLOCK_CUH

#include <math.h>
#include <stdint.h>

/* to_f, from_f and vec16 (a 16-byte vector as floats and back), shared with the row plugins */
#include "cuda/numeric.cuh"
#include "reduction.h"

template <int OP> __device__ __forceinline__ float rd_identity()
{
    return OP == RD_SUM ? 0.f : -INFINITY;
}

template <int OP> __device__ __forceinline__ float rd_combine(float a, float b)
{
    return OP == RD_SUM ? a + b : fmaxf(a, b);
}

/* the shared warp reductions: the same shuffles in the same order, so the sum's error bound
   (reduction_plan.c) is unchanged */
template <int OP> __device__ __forceinline__ float rd_warp(float v)
{
    return OP == RD_SUM ? warp_sum(v) : warp_max(v);
}

/* The block's value in thread 0. `scratch` holds RD_THREADS / 32 floats; a second call needs a
   __syncthreads() between. */
template <int OP> __device__ __forceinline__ float rd_block(float v, float *scratch)
{
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    v = rd_warp<OP>(v);
    if (lane == 0)
        scratch[warp] = v;
    __syncthreads();
    v = rd_identity<OP>();
    if (warp == 0)
        v = rd_warp<OP>(lane < RD_THREADS / 32 ? scratch[lane] : rd_identity<OP>());
    return v;
}

/* The elements of one vector, as a tree: a sum's error grows with the depth, not the count. */
template <int OP, int PER> __device__ __forceinline__ float rd_vector(float *f)
{
#pragma unroll
    for (int w = PER / 2; w >= 1; w /= 2)
#pragma unroll
        for (int i = 0; i < w; i++)
            f[i] = rd_combine<OP>(f[i], f[i + w]);
    return f[0];
}

/* This thread's part of block j's share of a row of `cols` elements. */
template <typename T, int OP>
__device__ __forceinline__ float rd_thread_partial(const T *__restrict__ row, size_t cols, unsigned j, unsigned splits)
{
    constexpr int PER = 16 / sizeof(T);
    const unsigned mis = (unsigned)(((uintptr_t)row & 15) / sizeof(T));
    size_t head = mis ? PER - mis : 0;
    head = head < cols ? head : cols;
    const size_t nv = (cols - head) / PER, tail = head + nv * PER;
    const uint4 *v4 = reinterpret_cast<const uint4 *>(row + head);
    const size_t tiles = (nv + RD_TILE - 1) / RD_TILE;
    float acc = rd_identity<OP>();
    for (size_t t = j; t < tiles; t += splits) {
        const size_t base = t * RD_TILE + threadIdx.x;
        uint4 v[RD_UNROLL];
#pragma unroll
        for (int k = 0; k < RD_UNROLL; k++)
            if (base + (size_t)k * RD_THREADS < nv)
                v[k] = v4[base + (size_t)k * RD_THREADS];
#pragma unroll
        for (int k = 0; k < RD_UNROLL; k++)
            if (base + (size_t)k * RD_THREADS < nv) {
                float f[PER];
                vec16<T>::unpack(v[k], f);
                acc = rd_combine<OP>(acc, rd_vector<OP, PER>(f));
            }
    }
    if (j == 0) {
        if (threadIdx.x < head)
            acc = rd_combine<OP>(acc, to_f(row[threadIdx.x]));
        if (threadIdx.x < cols - tail)
            acc = rd_combine<OP>(acc, to_f(row[tail + threadIdx.x]));
    }
    return acc;
}

/* A row's value from its n partials, read from L2 (written by other blocks, after their fence), in a
   fixed order: two_pass and last_block give the same bits every run. Thread 0 has it. */
template <int OP> __device__ __forceinline__ float rd_finish(const float *partial, unsigned n, float *scratch)
{
    float v = rd_identity<OP>();
    for (unsigned i = threadIdx.x; i < n; i += RD_THREADS)
        v = rd_combine<OP>(v, __ldcg(partial + i));
    return rd_block<OP>(v, scratch);
}

/* Thread 0 of a block that has written its partial to partial[slot]: takes a ticket for its row;
   true in every thread of the block that takes the last of `n` tickets, which then may read all n
   partials. The last one sets the ticket back to 0 (rd_release) so the next run, or the next replay
   of a graph, starts from 0. */
__device__ __forceinline__ bool rd_take_ticket(unsigned *ticket, unsigned n, bool *last)
{
    if (threadIdx.x == 0) {
        __threadfence(); /* the partial is visible to every block before the ticket is */
        *last = atomicAdd(ticket, 1u) == n - 1;
    }
    __syncthreads();
    if (*last)
        __threadfence(); /* and the last block reads partials no older than the tickets */
    return *last;
}

__device__ __forceinline__ void rd_release(unsigned *ticket)
{
    if (threadIdx.x == 0)
        *ticket = 0;
}

#endif
