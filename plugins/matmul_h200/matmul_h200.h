/* matmul_h200: C = A B as torch.matmul(A, B) computes it for row-major A (M x K) and B (K x N), bf16 or
 * fp16 in, fp32 accumulation, C (M x N) in the input's dtype. Six implementations:
 *   cublas            cublasGemmEx, the baseline (row-major C = A B is column-major C^T = B^T A^T:
 *                     op N, op N, m = N, n = M, k = K, B with ld N, A with ld K, C with ld N;
 *                     CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT)
 *   tiled             shared memory + mma.sync m16n8k16 (ldmatrix, cp.async ring): the "before"
 *   wgmma             plugins/lib/hopper/hopper_gemm.cuh, one CTA a tile (sm_90a)
 *   wgmma_persistent  the same mainloop on one CTA a resident slot (cudaOccupancyMaxActiveClusters) over
 *                     a tile scheduler: cooperative tiles, ping-pong tiles, or 2-CTA clusters that
 *                     multicast B; grouped raster order (sm_90a)
 *   wgmma_splitk      K split over CTAs into fp32 partials, then a reduction: for shapes whose tiles
 *                     leave SMs idle (16 x 4096 x 4096, 128 x 14336 x 4096) (sm_90a)
 *   skinny            M <= 16: a weight stream, C^T = B^T A^T. v1 and v2 on mma.sync m16n8k16, B's bytes
 *                     laid straight into the MMA's A fragments (no transpose): v2 (ring > 0) streams them
 *                     through a per-lane cp.async ring in shared memory, v1 (ring = 0) loads batches of
 *                     `unroll` steps into registers; K split over the warps of a CTA and the CTAs of a
 *                     cluster, summed through (distributed) shared memory (matmul_h200_skinny.cu; sm_90).
 *                     v3 (stages > 0): B through a TMA ring on mbarriers into wgmma m64n{8,16}k16, one
 *                     consumer warpgroup, K split over a cluster (lib/hopper/hopper_stream.cuh,
 *                     matmul_h200_stream.cu; sm_90a)
 * The case is dim.m, dim.n, dim.k. The tuning space (matmul_h200_config.c) is pure C: the CPU tests and
 * `klab --tune --validate` enumerate it without a GPU. */
#ifndef MATMUL_H200_H
#define MATMUL_H200_H

#include <stddef.h>
#include <stdint.h>

#include "klab/plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { MM_CUBLAS = 0, MM_TILED, MM_WGMMA, MM_PERSISTENT, MM_SPLITK, MM_SKINNY, MM_PROFILES };

typedef struct mm_case {
    int64_t m, n, k;
} mm_case;

/* dim.m, dim.n, dim.k of the case. Returns 0, or -1 with the reason (a missing or non-positive dim, a
   dimension past 2^24, or an operand past 2^31 elements). */
int mm_case_of(const klab_case *k, mm_case *c, char *why, size_t whylen);

/* The kernel variants hopper_gemm.cuh is instantiated for (matmul_h200_wgmma.cu's table follows this
   order). */
enum {
    MM_V128x256 = 0, MM_V128x128, MM_V256x128, MM_V64x128, MM_V64x256, MM_V128x256_C2, MM_V128x128_C2,
    MM_V128x128_PP, /* ping-pong: two warpgroups, each a whole tile in turn (hopper_gemm.cuh PINGPONG) */
    MM_V64x256_PP,
    MM_V256x128_C2, /* 256 x 128 in 2-CTA clusters along M that multicast B (cuBLAS's at square-4096) */
    MM_V128x256_CS, /* 128 x 256, the consumers splitting its columns (hopper_gemm.cuh COLSPLIT, as cuBLAS) */
    MM_V128x256_C2_CS,
    MM_VARIANTS
};
typedef struct mm_variant {
    int bm, bn, stages, consumers, cluster;
    int splitk; /* instantiated with the split-K partial epilogue too */
    int pingpong; /* the consumers take whole tiles in turn (else they split each tile's rows) */
    int colsplit; /* the consumers split each tile's columns, each all its rows (else its rows) */
} mm_variant;
extern const mm_variant mm_variants[MM_VARIANTS];

/* One configuration of a wgmma profile, or of skinny (which uses splits, warps, unroll and ring only). */
typedef struct mm_config {
    int variant;    /* MM_V* */
    int raster_n;   /* 0: groups of M tiles sweep N; 1: groups of N tiles sweep M */
    int group;      /* tiles a group (the L2 swizzle); 1: plain row-major order */
    int splits;     /* K ranges (wgmma_splitk); 1 elsewhere */
    int persistent; /* one CTA an SM over the tile scheduler */
    int serial;     /* splits > 1: the last split of a tile sums them (one launch), else a second kernel */
    int epi;        /* MM_EPI_*: how the consumers write C */
    int warps;      /* skinny: warps a CTA, each a K range of the CTA's (MM_SKINNY_WARPS) */
    int unroll;     /* skinny v1 (ring = 0): k16 steps whose loads a warp issues before their MMAs */
    int ring;       /* skinny: 0 = v1; else v2, the k16 steps a lane keeps in flight in its cp.async ring */
    int stages;     /* skinny: > 0 is v3, the TMA ring's stages (4, 8 or 16) of 64 rows of K (v1/v2 fields 0) */
    int prefetch;   /* skinny v3: the producer asks L2 for its whole K range once the ring is filled */
} mm_config;

/* skinny: a warp owns MM_SKINNY_COLS columns of B; splits (1, 2, 4) is the cluster size */
#define MM_SKINNY_COLS 64
#define MM_SKINNY_MAX_M 16
#define MM_SKINNY_MAX_SPLITS 4

/* Whether skinny's configuration cfg takes the case: M <= 16; v1 and v2: N a multiple of 64, K a multiple
   of 16 warps splits; v1: 8 or 16 warps, each warp's k16 steps a multiple of unroll (2 or 4); v2: (warps,
   ring) one of (4, 4), (4, 8), (4, 16), (8, 4), (8, 8), (16, 4) (the rings fill at most 160 KB of shared
   memory); v3: N and K multiples of 8 (TMA rows of 16 bytes), stages 4, 8 or 16, splits 1, 2 or 4 and at
   most the 64-row K tiles. Returns 1, or 0 with the reason. */
int mm_skinny_fits(const mm_case *c, const mm_config *cfg, char *why, size_t whylen);

/* The epilogue (config key epi): the consumers' registers straight to global memory (direct), or staged
   through shared memory and written by TMA stores (tma: lib/hopper/hopper_store.cuh), which frees the
   consumers for their next unit while the copy engine writes. Only the variants mm_epi_tma_ok names
   have the staged instantiation. */
enum { MM_EPI_DIRECT = 0, MM_EPI_TMA = 1 };
int mm_epi_tma_ok(int variant);

#define MM_MAX_SPLITS 16
/* fp32 partials the split-K profile may keep: configurations needing more are declined */
#define MM_WORKSPACE_FLOATS ((size_t)32 << 20)
/* outputs of at least this many elements are also checked whole on the device against cuBLAS */
#define MM_FULL_CHECK_ELEMS ((int64_t)1 << 22)
/* sampled float64 elements a verified run compares when the case is too large to compare whole */
#define MM_SAMPLES 2048

/* Configuration `index` of `profile` for the case (index -1: the plugin's own choice). Returns 1 and
   fills *cfg, or 0 past the end of the space (the cublas and tiled profiles have no space; skinny's
   holds only the configurations that fit the case, none when M > 16 or N % 64). */
int mm_config_of(int profile, const mm_case *c, int index, mm_config *cfg);

/* The configuration as the rows name it: "bm=128,bn=256,stages=4,consumers=2,pingpong=0,colsplit=0,cluster=1,
   raster=m,group=8,splits=1,persistent=0,reduce=none,epi=direct,check=sampled" (reduce: none, serial or kernel;
   epi: direct or tma); skinny's "warps=8,splits=2,ring=8,check=sampled" (v2) or
   "warps=8,splits=2,unroll=4,check=sampled" (v1). The check says how verified runs are judged:
   "full" (every element against float64), "sampled" (MM_SAMPLES fresh float64 elements a verified
   run) or "sampled_devfull" (that, plus the whole output against cuBLAS's fp32-accumulate result on the
   device at setup). */
const char *mm_config_format(int profile, const mm_case *c, const mm_config *cfg, char *buf, size_t len);
const char *mm_check_name(const mm_case *c);

/* The fp32 workspace (floats) split-K needs for cfg, 0 for none. */
size_t mm_workspace(const mm_case *c, const mm_config *cfg);

/* The zeroed tickets serial split-K needs for any configuration of the case: 2 a tile (one a consumer
   warpgroup) of the smallest split-K tile. */
size_t mm_tickets(const mm_case *c);

/* Whether the TMA kernels can take the case: rows of A and B 16-byte aligned (K and N multiples of 8).
   Returns 1, or 0 with the reason. */
int mm_tma_ok(const mm_case *c, char *why, size_t whylen);

/* The float64 reference: out[j] = sum_k A[r][k] B[k][col] for element e = sample[j] (r = e / N,
   col = e % N), or for every element e = j when sample is NULL (count = M N). Elements on the host's
   threads (host and ctx: verify()'s; both NULL: this thread). */
void mm_reference(const klab_host *host, klab_ctx *ctx, const mm_case *c, const double *a, const double *b,
                  const size_t *sample, size_t count, double *out);

/* Kernels. Each returns 0, 1 (KLAB_UNSUPPORTED: the reason in why) or -1 (a CUDA error, in why). */
int mm_tiled_launch(klab_dtype d, const mm_case *c, const void *a, const void *b, void *out, klab_stream s,
                    char *why, size_t whylen);
int mm_wgmma_launch(klab_dtype d, const mm_case *c, const mm_config *cfg, const void *a, const void *b, void *out,
                    float *ws, unsigned *tickets, int sms, klab_stream s, char *why, size_t whylen);
int mm_skinny_launch(klab_dtype d, const mm_case *c, const mm_config *cfg, const void *a, const void *b, void *out,
                     klab_stream s, char *why, size_t whylen);
int mm_stream_launch(klab_dtype d, const mm_case *c, const mm_config *cfg, const void *a, const void *b, void *out,
                     klab_stream s, char *why, size_t whylen);

/* The device check: counts the elements of out (M x N of d) farther from ref (fp32) than the output
   dtype's rounding allows (see matmul_h200_check.cu), into *bad on the device; *first gets the index of
   one of them. */
int mm_check_launch(klab_dtype d, const mm_case *c, const void *out, const float *ref, unsigned *bad,
                    unsigned long long *first, klab_stream s);

#ifdef __cplusplus
}
#endif

#endif
