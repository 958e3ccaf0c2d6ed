/* matmul_h200's `skinny` profile: M <= 16 tokens against a K x N weight B, a weight stream. It computes
 * C^T = B^T A^T on mma.sync m16n8k16: the MMA's 16 x 16 A operand is B (its "m" 16 columns of B, its "k"
 * 16 rows of K), its 16 x 8 B operand the tokens (one n8 tile, two past 8 tokens). The labels inside one
 * MMA are free: a sum over k is the same under any permutation of k applied to both operands, and m and n
 * only say which output an accumulator is. So a lane loads B straight from global memory into the MMA's
 * fragments, no shared memory, no transpose:
 *   - a warp owns 64 columns (n0 .. n0 + 63) and a K range; per k16 step at row kb, lane (g, t) =
 *     (lane / 4, lane % 4) loads 16 bytes (columns n0 + 8g .. + 7) of each of rows kb + 4t + {0, 1, 2, 3}:
 *     2 KB a warp, every 128-byte line whole, 4 16-byte loads a lane in flight a step;
 *   - MMA tile p (0..3) takes as its row g column 8g + 2p, as its row g + 8 column 8g + 2p + 1, and as
 *     its k labels 2t, 2t + 1, 2t + 8, 2t + 9 the real rows kb + 4t + 0, 1, 2, 3: word p of the loaded
 *     rows, paired by prmt (a0 = the rows 0, 1 low halves, a1 their high halves, a2/a3 rows 2, 3);
 *   - the tokens' fragment under the same labels is one 8-byte load of A (b0 = A[g][kb+4t .. +1],
 *     b1 = A[g][kb+4t+2 .. +3]); tokens past M load nothing and give 0;
 *   - the accumulators of token 8j + 2t + h are columns 8g .. 8g + 7 in order (c[h], c[h + 2] of tiles
 *     0..3): one 16-byte store a token.
 * K is split over the W warps of a CTA (summed through shared memory) and the S CTAs of a cluster
 * (summed over distributed shared memory into rank 0, which converts and writes C): no workspace, no
 * atomics, one launch, deterministic. Grid: (N / 64) x S. The clusters need sm_90: elsewhere it traps, and
 * the profile's archs keep it from running there. */
#include <cooperative_groups.h>
#include <stdio.h>

#include "klab/cuda.h"
#include "matmul_h200.h"
#include "matmul_h200_mma.cuh"

namespace cg = cooperative_groups;

namespace {

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 /* only the kernel's sm_90 body uses them */
/* 16 bytes of B: no other warp reads them, so they bypass L1 (the tokens keep it) */
__device__ __forceinline__ void ld_stream(const void *p, unsigned (&v)[4])
{
    asm("ld.global.nc.L1::no_allocate.v4.u32 {%0,%1,%2,%3}, [%4];"
        : "=r"(v[0]), "=r"(v[1]), "=r"(v[2]), "=r"(v[3])
        : "l"(p));
}

/* 8 bytes of A: every CTA of the same K range reads them again, from L1 or L2 */
__device__ __forceinline__ void ld_tokens(const void *p, unsigned (&v)[2])
{
    asm("ld.global.nc.v2.u32 {%0,%1}, [%2];" : "=r"(v[0]), "=r"(v[1]) : "l"(p));
}
#endif

/* W warps, U k16 steps loaded before their MMAs, J n8 token tiles. 32 W threads at <= 128 registers: 512
   threads an SM. */
template <class T, int W, int U, int J>
__global__ void __launch_bounds__(32 * W, 16 / W) skinny_kernel(const T *__restrict__ A, const T *__restrict__ B,
                                                                T *__restrict__ C, int M, int N, int K)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    constexpr int NQ = 16 * J; /* accumulators a lane: 4 tiles x J x 4 */
    __shared__ float red[W][NQ][32]; /* [warp][accumulator][lane]: lanes on consecutive banks */
    cg::cluster_group cluster = cg::this_cluster();
    const int warp = (int)threadIdx.x / 32, lane = (int)threadIdx.x % 32, g = lane / 4, t = lane % 4;
    const int n0 = (int)blockIdx.x * MM_SKINNY_COLS;
    const int kw = K / ((int)gridDim.y * W); /* rows of K a warp: the split is the cluster's y */
    const int kbeg = ((int)cluster.block_rank() * W + warp) * kw;
    const T *bp = B + (size_t)(kbeg + 4 * t) * N + n0 + 8 * g;
    /* token 8j + g's row; a token past M reads row 0 and its fragment is zeroed */
    const T *ap = A + (size_t)(g < M ? g : 0) * K + kbeg + 4 * t;
    const size_t second = (size_t)(8 + g < M ? 8 : 0) * K; /* token tile 1 from token tile 0 */
    const bool live[2] = {g < M, 8 + g < M};
    float acc[4][J][4] = {};

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
#pragma unroll
            for (int p = 0; p < 4; p++) {
                const unsigned fa[4] = {__byte_perm(b[u][0][p], b[u][1][p], 0x5410),
                                        __byte_perm(b[u][0][p], b[u][1][p], 0x7632),
                                        __byte_perm(b[u][2][p], b[u][3][p], 0x5410),
                                        __byte_perm(b[u][2][p], b[u][3][p], 0x7632)};
#pragma unroll
                for (int j = 0; j < J; j++)
                    MmaOp<T>::mma(acc[p][j], fa, a[u][j][0], a[u][j][1]);
            }
    }

    /* the warps' K ranges summed into red[0], in warp order */
#pragma unroll
    for (int p = 0; p < 4; p++)
#pragma unroll
        for (int j = 0; j < J; j++)
#pragma unroll
            for (int q = 0; q < 4; q++)
                red[warp][(p * J + j) * 4 + q][lane] = acc[p][j][q];
    __syncthreads();
    float *part = &red[0][0][0];
    for (int e = (int)threadIdx.x; e < NQ * 32; e += 32 * W) {
        float sum = part[e];
#pragma unroll
        for (int w = 1; w < W; w++)
            sum += (&red[w][0][0])[e];
        part[e] = sum;
    }
    cluster.sync(); /* every CTA's sum written and visible to rank 0 */
    if (cluster.block_rank() == 0 && warp < 2 * J) {
        /* warp (j, h) writes token 8j + 2t + h: the CTAs' K ranges summed in rank order */
        const int j = warp / 2, h = warp % 2, tok = 8 * j + 2 * t + h;
        float v[8] = {0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f};
        for (unsigned r = 0; r < cluster.num_blocks(); r++) {
            const float *src = cluster.map_shared_rank(part, r);
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
    cluster.sync(); /* no CTA leaves while rank 0 may still read its shared memory */
#else
    (void)A, (void)B, (void)C, (void)M, (void)N, (void)K;
    __trap();
#endif
}

template <class T, int W, int U, int J>
cudaError_t launch(const mm_case *c, int splits, const void *a, const void *b, void *out, cudaStream_t s)
{
    cudaLaunchConfig_t lc = {};
    lc.gridDim = dim3((unsigned)(c->n / MM_SKINNY_COLS), (unsigned)splits);
    lc.blockDim = dim3(32 * W);
    lc.stream = s;
    cudaLaunchAttribute at[1];
    at[0].id = cudaLaunchAttributeClusterDimension;
    at[0].val.clusterDim.x = 1;
    at[0].val.clusterDim.y = (unsigned)splits;
    at[0].val.clusterDim.z = 1;
    lc.attrs = at;
    lc.numAttrs = 1;
    return cudaLaunchKernelEx(&lc, skinny_kernel<T, W, U, J>, (const T *)a, (const T *)b, (T *)out, (int)c->m,
                              (int)c->n, (int)c->k);
}

template <class T, int W, int U>
cudaError_t by_tokens(const mm_case *c, int splits, const void *a, const void *b, void *out, cudaStream_t s)
{
    return c->m > 8 ? launch<T, W, U, 2>(c, splits, a, b, out, s) : launch<T, W, U, 1>(c, splits, a, b, out, s);
}

template <class T>
cudaError_t by_shape(const mm_case *c, const mm_config *cfg, const void *a, const void *b, void *out, cudaStream_t s)
{
    if (cfg->warps == 8)
        return cfg->unroll == 4 ? by_tokens<T, 8, 4>(c, cfg->splits, a, b, out, s)
                                : by_tokens<T, 8, 2>(c, cfg->splits, a, b, out, s);
    return cfg->unroll == 4 ? by_tokens<T, 4, 4>(c, cfg->splits, a, b, out, s)
                            : by_tokens<T, 4, 2>(c, cfg->splits, a, b, out, s);
}

} // namespace

extern "C" int mm_skinny_launch(klab_dtype d, const mm_case *c, const mm_config *cfg, const void *a, const void *b,
                                void *out, klab_stream s, char *why, size_t whylen)
{
    if (!mm_skinny_fits(c, cfg, why, whylen))
        return 1;
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
