/* matmul_h200's `skinny` profile: M <= 16 tokens against a K x N weight B, a weight stream. It computes
 * C^T = B^T A^T on mma.sync m16n8k16: the MMA's 16 x 16 A operand is B (its "m" 16 columns of B, its "k"
 * 16 rows of K), its 16 x 8 B operand the tokens (one n8 tile, two past 8 tokens). The labels inside one
 * MMA are free: a sum over k is the same under any permutation of k applied to both operands, and m and n
 * only say which output an accumulator is. So a lane's bytes of B are already the MMA's fragments, no
 * transpose:
 *   - a warp owns 64 columns (n0 .. n0 + 63) and a K range; per k16 step at row kb, lane (g, t) =
 *     (lane / 4, lane % 4) takes 16 bytes (columns n0 + 8g .. + 7) of each of rows kb + 4t + {0, 1, 2, 3}:
 *     2 KB a warp, every 128-byte line whole;
 *   - MMA tile p (0..3) takes as its row g column 8g + 2p, as its row g + 8 column 8g + 2p + 1, and as
 *     its k labels 2t, 2t + 1, 2t + 8, 2t + 9 the real rows kb + 4t + 0, 1, 2, 3: word p of the 4 rows,
 *     paired by prmt (a0 = the rows 0, 1 low halves, a1 their high halves, a2/a3 rows 2, 3);
 *   - the tokens' fragment under the same labels is 8 bytes of A (b0 = A[g][kb+4t .. +1], b1 =
 *     A[g][kb+4t+2 .. +3]); tokens past M give 0;
 *   - the accumulators of token 8j + 2t + h are columns 8g .. 8g + 7 in order (c[h], c[h + 2] of tiles
 *     0..3): one 16-byte store a token.
 * Two mainloops move those bytes:
 *   - v1 (U > 0): U steps loaded into registers (ld.global.nc, past L1), then their MMAs: nothing is in
 *     flight while a warp computes, and at most U x 2 KB a warp before (measured short of the copy rate);
 *   - v2 (D > 0): each lane streams its own bytes through a private ring of D steps in shared memory
 *     with cp.async (4 x 16 bytes of B and 8 bytes a token tile a step, one commit group a step), waits
 *     for the oldest step, reads it back and refills that slot D steps ahead: D x 2 KB a warp always in
 *     flight, during the MMAs too, and no registers held for loads.
 * K is split over the W warps of a CTA (summed through shared memory) and the S CTAs of a cluster (summed
 * over distributed shared memory into rank 0, which converts and writes C): no workspace, no atomics,
 * one launch, deterministic. Grid: (N / 64) x S, cluster (1, S, 1). The clusters need sm_90: elsewhere it
 * traps, and the profile's archs keep it from running there. */
#include <stdio.h>

#include "klab/cuda.h"
#include "matmul_h200.h"
#include "cuda/cluster_barrier.cuh"
#include "cuda/func_attr.cuh"
#include "cuda/launch_config.cuh"
#include "cuda/mma_sync.cuh"

namespace {

constexpr int B_STEP = 2048;  /* bytes of B a warp a k16 step */
constexpr int TOK_TILE = 256; /* bytes of one n8 token tile a warp a step: 8 a lane */

/* Shared memory: each warp's own region, then the inbox, rank 0's [S][16 J][32] fp32 CTA sums of the
   cluster. v2's region is its ring, which after the mainloop holds the warp's partial sums; v1's holds
   only those. */
template <int J> __host__ __device__ constexpr int part_bytes() { return 16 * J * 32 * 4; }
template <int D, int J> __host__ __device__ constexpr int warp_bytes()
{
    return D ? D * (B_STEP + TOK_TILE * J) : part_bytes<J>();
}
template <int W, int D, int J> constexpr size_t smem_bytes(int splits)
{
    return (size_t)W * warp_bytes<D, J>() + (size_t)splits * part_bytes<J>();
}

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 /* only the kernel's sm_90 body uses them */
/* v1: 16 bytes of B: no other warp reads them, so they bypass L1 (the tokens keep it) */
__device__ __forceinline__ void ld_stream(const void *p, unsigned (&v)[4])
{
    asm("ld.global.nc.L1::no_allocate.v4.u32 {%0,%1,%2,%3}, [%4];"
        : "=r"(v[0]), "=r"(v[1]), "=r"(v[2]), "=r"(v[3])
        : "l"(p));
}

/* v1: 8 bytes of A: every CTA of the same K range reads them again, from L1 or L2 */
__device__ __forceinline__ void ld_tokens(const void *p, unsigned (&v)[2])
{
    asm("ld.global.nc.v2.u32 {%0,%1}, [%2];" : "=r"(v[0]), "=r"(v[1]) : "l"(p));
}

/* v2: 16 bytes of B into the ring past L1 (.cg); the whole 128-byte line is the warp's (8 lanes) */
__device__ __forceinline__ void cp_stream(unsigned dst, const void *src)
{
    asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], 16;" ::"r"(dst), "l"(src) : "memory");
}

/* v2: 8 bytes of A through L1 (.ca: the other CTAs of the K range read them too); n = 0 (a token past
   M) writes zeros and reads nothing */
__device__ __forceinline__ void cp_tokens(unsigned dst, const void *src, unsigned n)
{
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;" ::"r"(dst), "l"(src), "r"(n) : "memory");
}

template <int N> __device__ __forceinline__ void cp_wait()
{
    asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
}

__device__ __forceinline__ void ld_shared4(unsigned a, unsigned (&v)[4])
{
    asm volatile("ld.shared.v4.u32 {%0,%1,%2,%3}, [%4];"
                 : "=r"(v[0]), "=r"(v[1]), "=r"(v[2]), "=r"(v[3])
                 : "r"(a)
                 : "memory");
}

__device__ __forceinline__ void ld_shared2(unsigned a, unsigned (&v)[2])
{
    asm volatile("ld.shared.v2.u32 {%0,%1}, [%2];" : "=r"(v[0]), "=r"(v[1]) : "r"(a) : "memory");
}

/* One k16 step: b[r] = the lane's 16 bytes of row kb + 4t + r, a[j] = its 8 bytes of token tile j. */
template <class T, int J>
__device__ __forceinline__ void mma_step(float (&acc)[4][J][4], const unsigned (&b)[4][4], const unsigned (&a)[J][2])
{
#pragma unroll
    for (int p = 0; p < 4; p++) {
        const unsigned fa[4] = {__byte_perm(b[0][p], b[1][p], 0x5410), __byte_perm(b[0][p], b[1][p], 0x7632),
                                __byte_perm(b[2][p], b[3][p], 0x5410), __byte_perm(b[2][p], b[3][p], 0x7632)};
#pragma unroll
        for (int j = 0; j < J; j++)
            MmaOp<T>::mma(acc[p][j], fa, a[j][0], a[j][1]);
    }
}
#endif

/* W warps, J n8 token tiles; v1 (U k16 steps loaded before their MMAs) or v2 (a ring of D steps). 32 W
   threads at <= 128 registers: 512 threads an SM. */
template <class T, int W, int U, int D, int J>
__global__ void __launch_bounds__(32 * W, 16 / W) skinny_kernel(const T *__restrict__ A, const T *__restrict__ B,
                                                                T *__restrict__ C, int M, int N, int K)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    static_assert((U == 0) != (D == 0), "v1 (U steps a batch) or v2 (a ring of D steps)");
    constexpr int NQ = 16 * J; /* accumulators a lane: 4 tiles x J x 4 */
    extern __shared__ __align__(16) unsigned char smem[];
    /* the cluster is (1, S, 1) over a grid S high: a CTA's rank in it is its blockIdx.y */
    const int S = (int)gridDim.y, rank = (int)blockIdx.y;
    if (S > 1)
        cl::arrive_relaxed(); /* phase 1: this CTA has started (waited on before any DSMEM store) */
    const int warp = (int)threadIdx.x / 32, lane = (int)threadIdx.x % 32, g = lane / 4, t = lane % 4;
    const int n0 = (int)blockIdx.x * MM_SKINNY_COLS;
    const int kw = K / (S * W); /* rows of K a warp */
    const int kbeg = (rank * W + warp) * kw;
    const T *bp = B + (size_t)(kbeg + 4 * t) * N + n0 + 8 * g;
    /* token 8j + g's row; a token past M reads a row that exists (row 0 in tile 0; in tile 1 row g, since
       tile 1 runs only at M >= 9 > g) and its fragment is zeroed */
    const T *ap = A + (size_t)(g < M ? g : 0) * K + kbeg + 4 * t;
    const size_t second = (size_t)(8 + g < M ? 8 : 0) * K; /* token tile 1 from token tile 0 */
    const bool live[2] = {g < M, 8 + g < M};
    unsigned char *mine = smem + (size_t)warp * warp_bytes<D, J>();
    float acc[4][J][4] = {};

    if constexpr (D == 0) {
        for (int s = 0; s < kw / 16; s += U) {
            unsigned b[U][4][4], a[U][J][2];
#pragma unroll
            for (int u = 0; u < U; u++)
#pragma unroll
                for (int r = 0; r < 4; r++)
                    ld_stream(bp + (size_t)(16 * u + r) * N, b[u][r]);
#pragma unroll
            for (int u = 0; u < U; u++)
#pragma unroll
                for (int j = 0; j < J; j++) {
                    ld_tokens(ap + (j ? second : 0) + 16 * u, a[u][j]);
                    if (!live[j])
                        a[u][j][0] = a[u][j][1] = 0u;
                }
            bp += (size_t)16 * U * N;
            ap += 16 * U;
#pragma unroll
            for (int u = 0; u < U; u++)
                mma_step<T, J>(acc, b[u], a[u]);
        }
    } else {
        /* ring[slot] = B [row r][lane] 16 bytes (lanes consecutive: no bank conflict), then tokens
           [tile j][lane] 8 bytes. A lane reads back only bytes it copied itself, and cp.async.wait_group
           makes a thread's own completed copies visible to it, so the loop needs no __syncwarp or
           __syncthreads. The slot refilled is the one this lane just read: its ld.shared results fed
           MMAs (asm volatile, issued in order) before the cp.async issues, so the read came first. */
        constexpr int SLOT = B_STEP + TOK_TILE * J;
        const unsigned base = (unsigned)__cvta_generic_to_shared(mine);
        const unsigned bdst = base + 16 * lane, adst = base + B_STEP + 8 * lane;
        const int steps = kw / 16;
        auto issue = [&](int i) {
            const unsigned slot = (unsigned)(i % D) * SLOT;
            const T *src = bp + (size_t)16 * i * N;
#pragma unroll
            for (int r = 0; r < 4; r++)
                cp_stream(bdst + slot + 512 * r, src + (size_t)r * N);
#pragma unroll
            for (int j = 0; j < J; j++)
                cp_tokens(adst + slot + TOK_TILE * j, ap + (j ? second : 0) + 16 * i, live[j] ? 8u : 0u);
        };
        /* one group a step, empty past the warp's last: wait_group<D - 1> then always means "step s is in" */
#pragma unroll
        for (int i = 0; i < D; i++) {
            if (i < steps)
                issue(i);
            asm volatile("cp.async.commit_group;" ::: "memory");
        }
        for (int s = 0; s < steps; s++) {
            cp_wait<D - 1>();
            const unsigned slot = (unsigned)(s % D) * SLOT;
            unsigned b[4][4], a[J][2];
#pragma unroll
            for (int r = 0; r < 4; r++)
                ld_shared4(bdst + slot + 512 * r, b[r]);
#pragma unroll
            for (int j = 0; j < J; j++)
                ld_shared2(adst + slot + TOK_TILE * j, a[j]);
            mma_step<T, J>(acc, b, a);
            if (s + D < steps)
                issue(s + D);
            asm volatile("cp.async.commit_group;" ::: "memory");
        }
        /* every real copy is in (the groups left are empty); the warp's lanes now overwrite each other's
           ring bytes with the partial sums: __syncwarp orders those stores after the copies */
        cp_wait<0>();
        __syncwarp();
    }

    /* the warps' K ranges summed, in warp order, into rank 0's inbox[rank] */
    float *part = (float *)mine;
#pragma unroll
    for (int p = 0; p < 4; p++)
#pragma unroll
        for (int j = 0; j < J; j++)
#pragma unroll
            for (int q = 0; q < 4; q++)
                part[((p * J + j) * 4 + q) * 32 + lane] = acc[p][j][q];
    __syncthreads();
    float *inbox = (float *)(smem + (size_t)W * warp_bytes<D, J>());
    float *dst = inbox + rank * NQ * 32;
    if (S > 1) {
        /* phase 1 done: every CTA of the cluster has started, so rank 0's shared memory exists. Rank 0's
           inbox is its own, apart from its ring: it may still be streaming while the others write. */
        cl::wait();
        dst = cl::rank0(dst);
    }
    for (int e = (int)threadIdx.x; e < NQ * 32; e += 32 * W) {
        float sum = 0.f;
#pragma unroll
        for (int w = 0; w < W; w++)
            sum += ((const float *)(smem + (size_t)w * warp_bytes<D, J>()))[e];
        dst[e] = sum;
    }
    if (S > 1) {
        /* phase 2, the one full barrier: the release orders each rank's DSMEM stores before its arrival,
           rank 0's acquire-wait sees them all. The other ranks leave at once: nothing reads their shared
           memory, and their stores are performed before the arrive completes, so rank 0 is the only CTA
           that must stay; an exited thread counts as arrived for later phases. */
        cl::arrive_release();
        if (rank != 0)
            return;
        cl::wait();
    } else {
        __syncthreads();
    }
    if (warp < 2 * J) {
        /* warp (j, h) writes token 8j + 2t + h: the CTAs' K ranges summed in rank order */
        const int j = warp / 2, h = warp % 2, tok = 8 * j + 2 * t + h;
        float v[8] = {0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f};
        for (int r = 0; r < S; r++) {
            const float *src = inbox + r * NQ * 32;
#pragma unroll
            for (int p = 0; p < 4; p++) {
                v[2 * p] += src[((p * J + j) * 4 + h) * 32 + lane];
                v[2 * p + 1] += src[((p * J + j) * 4 + h + 2) * 32 + lane];
            }
        }
        if (tok < M) {
            const uint4 o = {pack2<T>(v[0], v[1]), pack2<T>(v[2], v[3]), pack2<T>(v[4], v[5]), pack2<T>(v[6], v[7])};
            *(uint4 *)(C + (size_t)tok * N + n0 + 8 * g) = o;
        }
    }
#else
    (void)A, (void)B, (void)C, (void)M, (void)N, (void)K;
    __trap();
#endif
}

template <class T, int W, int U, int D, int J>
cudaError_t launch(const mm_case *c, int splits, const void *a, const void *b, void *out, cudaStream_t s)
{
    static_assert(smem_bytes<W, D, J>(MM_SKINNY_MAX_SPLITS) <= 227 * 1024, "a CTA's shared memory on sm_90");
    /* the shared memory attribute for the most splits */
    const cudaError_t e = func_attr_once<skinny_kernel<T, W, U, D, J>, cudaFuncAttributeMaxDynamicSharedMemorySize>(
        (int)smem_bytes<W, D, J>(MM_SKINNY_MAX_SPLITS));
    if (e != cudaSuccess)
        return e;
    LaunchConfig lc(dim3((unsigned)(c->n / MM_SKINNY_COLS), (unsigned)splits), dim3(32 * W), smem_bytes<W, D, J>(splits),
                    s);
    if (splits > 1) /* one split: a plain launch, no cluster */
        lc.cluster(dim3(1, (unsigned)splits, 1));
    return cudaLaunchKernelEx(&lc.cfg, skinny_kernel<T, W, U, D, J>, (const T *)a, (const T *)b, (T *)out, (int)c->m,
                              (int)c->n, (int)c->k);
}

template <class T, int W, int U, int D>
cudaError_t by_tokens(const mm_case *c, int splits, const void *a, const void *b, void *out, cudaStream_t s)
{
    return c->m > 8 ? launch<T, W, U, D, 2>(c, splits, a, b, out, s) : launch<T, W, U, D, 1>(c, splits, a, b, out, s);
}

/* mm_skinny_fits has checked (warps, unroll) and (warps, ring) against what is instantiated here */
template <class T>
cudaError_t by_shape(const mm_case *c, const mm_config *cfg, const void *a, const void *b, void *out, cudaStream_t s)
{
    const int S = cfg->splits, W = cfg->warps, D = cfg->ring;
    if (!D && W == 16)
        return cfg->unroll == 4 ? by_tokens<T, 16, 4, 0>(c, S, a, b, out, s) : by_tokens<T, 16, 2, 0>(c, S, a, b, out, s);
    if (!D)
        return cfg->unroll == 4 ? by_tokens<T, 8, 4, 0>(c, S, a, b, out, s) : by_tokens<T, 8, 2, 0>(c, S, a, b, out, s);
    if (W == 16)
        return by_tokens<T, 16, 0, 4>(c, S, a, b, out, s);
    if (W == 8)
        return D == 8 ? by_tokens<T, 8, 0, 8>(c, S, a, b, out, s) : by_tokens<T, 8, 0, 4>(c, S, a, b, out, s);
    return D == 16  ? by_tokens<T, 4, 0, 16>(c, S, a, b, out, s)
           : D == 8 ? by_tokens<T, 4, 0, 8>(c, S, a, b, out, s)
                    : by_tokens<T, 4, 0, 4>(c, S, a, b, out, s);
}

} // namespace

extern "C" int mm_skinny_launch(klab_dtype d, const mm_case *c, const mm_config *cfg, const void *a, const void *b,
                                void *out, klab_stream s, char *why, size_t whylen)
{
    if (!mm_skinny_fits(c, cfg, why, whylen))
        return 1;
    if (cfg->stages)
        return mm_stream_launch(d, c, cfg, a, b, out, s, why, whylen); /* v3: matmul_h200_stream.cu */
    cudaError_t e;
    if (d == KLAB_BF16)
        e = by_shape<__nv_bfloat16>(c, cfg, a, b, out, (cudaStream_t)s);
    else if (d == KLAB_FP16)
        e = by_shape<__half>(c, cfg, a, b, out, (cudaStream_t)s);
    else {
        snprintf(why, whylen, "dtype %d: bf16 and fp16 only", (int)d);
        return 1;
    }
    if (e != cudaSuccess) {
        snprintf(why, whylen, "skinny_kernel: CUDA error %d %s", (int)e, cudaGetErrorString(e));
        return -1;
    }
    return 0;
}
