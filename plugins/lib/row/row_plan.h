/* row_plan: how the row-kernel skeleton (row_kernel.cuh) lays a case out on the GPU, as one small table
 * of choices in plain C, so a plugin's klab_profile.config hook (a pure function of the case, run
 * without a GPU by `klab --validate` and `klab --tune --validate`) and its launcher agree on one thing.
 *
 * A plan is five numbers, written as a configuration string in that order, and two more, ring and
 * tile, written only where they are not 0:
 *
 *   cta=256,tpr=32,vpt=4,cluster=1,stream=0
 *   cta=256,tpr=256,vpt=8,cluster=4,stream=0,ring=2
 *   cta=256,tpr=1,vpt=4,cluster=1,stream=0,tile=1
 *
 *   cta      threads a block (32..1024)
 *   tpr      threads a row, a power of two <= cta: cta/tpr rows share a block (short rows), tpr = cta
 *            gives the block one row (or one part of one)
 *   vpt      16-byte vectors each thread holds in registers (1, 2, 4, 8)
 *   cluster  blocks a row is split across (1, 2, 4, 8, 16): a thread-block cluster whose blocks
 *            exchange their partial results through distributed shared memory (sm_90); 16 is beyond
 *            the portable size and is asked for explicitly; > 1 needs tpr = cta
 *   stream   0: the row is held on chip (cluster * tpr * vpt vectors cover it) and read once;
 *            1: each block walks its part in steps of tpr * vpt vectors twice, once to reduce and
 *            once to write (the second read mostly hits L2): rows longer than a cluster can hold;
 *            rows of 64-128 KiB, fp32 RMSNorm's at 1024 x 8 (one step, the second read from L1), 16-bit
 *            rows and softmax's at 512 x 8 (two blocks an SM); 16-bit RMSNorm rows of 128-256 KiB at
 *            1024 x 8 in two steps
 *   ring     0: the above; 2..4: the block's part of the row lives in shared memory, in a ring of that
 *            many row stages filled by bulk copies (cp.async.bulk, sm_90), and the grid is persistent:
 *            each block (cluster) walks rows, its next rows loading while it reduces and writes this
 *            one (row_ring.cuh). vpt is then the vectors a thread takes from shared memory a step.
 *            For long rows, where one block or cluster a row alternates a load phase with a store
 *            phase (docs/notes/rmsnorm.md has the bytes-in-flight budget)
 *   tile     0: the above; 1: the block's rows, one contiguous span of the tensor, are read into shared
 *            memory in whole 16-byte vectors, each row's group takes its vectors from there, and the
 *            block writes the span back from there in whole vectors (row_tile.cuh). For short rows
 *            that do not start on 16-byte boundaries, whose edge vectors the other plans read and
 *            write element by element (a row of 17 fp16: two of its three vectors). Cluster 1, on
 *            chip, at most 512 threads and 44 KiB of rows a block
 *
 * A row of N elements of E bytes spans at most row_window(N, E) 16-byte vectors: N * E / 16 when
 * every row starts on a 16-byte boundary (N * E a multiple of 16), else one or two more, because the
 * skeleton reads each row through the aligned vectors that overlap it (masking the elements of the
 * neighbouring rows) instead of falling back to scalar loads.
 *
 * row_plan_choose is the per-shape choice (docs/notes/rmsnorm.md says where its numbers come from);
 * row_plan_space enumerates the tuning space a profile offers; row_plan_check says why a plan cannot
 * do a case. Ops with limits (RoPE needs the row on chip in one block, with whole heads a thread group)
 * pass them in row_limits. */
#ifndef ROW_PLAN_H
#define ROW_PLAN_H

#include <stddef.h>

#include "klab/plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct row_plan {
    int cta, tpr, vpt, cluster, stream, ring, tile;
} row_plan;

typedef struct row_shape {
    size_t rows, cols; /* rows of cols elements */
    size_t elem;       /* bytes an element: 2 or 4 */
} row_shape;

typedef struct row_limits {
    int max_cluster;  /* 1 where the op cannot split a row across blocks; else 16 */
    int no_stream;    /* the op needs the row on chip */
    int tpr_multiple; /* tpr must be a multiple of this (1: any) */
    int ring;         /* 1 where the op can take ring plans (its rows read from one tensor); 0: not */
    int heavy;        /* 1 where the op's arithmetic an element is heavy (softmax: two exponentials), so
                         one block a row takes 8 vectors a thread from rows of 1024 vectors, not 2048 */
    int fit4;         /* 1 where the op's aligned on-chip kernel of 4 vectors a thread fits two blocks of
                         1024 threads an SM (row_kernel.cuh's four_vector_blocks), so rows of exactly
                         512 x 4 or 1024 x 4 vectors that fill the GPU (row_plan_bounded4) stay at 4 */
} row_limits;

/* What every op without limits of its own takes. */
extern const row_limits row_limits_any;
/* The same without ring plans: ops that read a row from more than one tensor (RMSNorm's residual form). */
extern const row_limits row_limits_no_ring;
/* The same as row_limits_any for an op with heavy arithmetic an element (softmax). */
extern const row_limits row_limits_heavy;
/* The same as row_limits_any for an op whose 4-vector kernel fits two blocks an SM (fp16 and fp32 RMSNorm). */
extern const row_limits row_limits_fit4;

/* The SMs the per-shape choice assumes when it spreads few rows over more blocks (H100 and H200: 132). */
#define ROW_PLAN_SMS 132
/* The threads an SM holds at most (sm_80, sm_90). */
#define ROW_PLAN_SM_THREADS 2048
#define ROW_PLAN_MAX_CLUSTER 16

/* Rows of tpr threads each fill every SM's thread slots: the per-shape choice's "the rows fill the GPU". */
static inline int row_plan_fills(size_t rows, size_t tpr)
{
    return rows * tpr >= (size_t)ROW_PLAN_SMS * ROW_PLAN_SM_THREADS;
}
/* Where an op's aligned 4-vector on-chip kernel runs bounded to two blocks an SM (row_kernel.cuh's
   four_vector_blocks), and so where row_limits.fit4 plans count on it: rows of 256 threads or more
   that fill the GPU. Elsewhere ptxas's unbounded kernel was the faster: decode rows 1x4096 and 8x4096
   0.92x bounded at fp32, 0.98x at fp16; 128-thread rows of 4096x4096 fp16 0.987x (H200,
   docs/measurements/2026-11-23-h200-18.md section 4). */
static inline int row_plan_bounded4(size_t rows, int tpr)
{
    return tpr >= 256 && row_plan_fills(rows, (size_t)tpr);
}
/* Where an op's aligned 4-vector on-chip kernel writes its rows in whole rows although the op takes
   them only where the grid is small (row_kernel.cuh's whole_epilogue, FEW): at most 512 threads an SM,
   one partial wave whose rows wait on w's loads one after another, not on the SMs' share. fp16
   RMSNorm with the whole rows (H200, docs/measurements/2026-11-23-h200-21.md section 3, three processes
   each): 8x4096 1.158x, 1x4096 1.118x, 4x8192 1.101x, 128x4096 1.087x, 8192x128 1.084x, 32x8192
   1.076x; on fuller unbounded grids (4096x1024, 2048x2048: 131072 threads) 0.98-0.99x in an earlier
   run of that record, where the kernel's
   48 -> 64 registers (sm_90a) cost warps. The grid's threads are counted without the cluster: a
   tuned cluster plan of rows x tpr x cluster past the line still takes the whole rows. */
static inline int row_plan_few_threads(size_t rows, int tpr)
{
    return rows * (size_t)tpr <= (size_t)ROW_PLAN_SMS * 512;
}
/* Registers bound the vectors a block holds: cta * vpt <= 4096 (64 KiB a block), vpt 8 up to 512 threads;
   a streaming plan holds one step at a time and may take 1024 x 8 on rows of whole vectors. */
#define ROW_PLAN_MAX_VECTORS 4096
/* A ring plan's stages, and the shared memory its stages may take a block (of the 227 KiB an sm_90
   block may ask for, the rest left to the skeleton's own few hundred bytes). */
#define ROW_PLAN_MAX_RING 4
#define ROW_PLAN_RING_SMEM (224 * 1024)

/* The shared memory (bytes) a ring plan's stages take a block: ring * ceil(window / cluster) vectors. */
size_t row_plan_ring_bytes(const row_shape *s, const row_plan *p);

/* A tile plan's block: at most this many threads and this much shared memory (the static limit, so
   the launch needs no attribute). */
#define ROW_PLAN_TILE_MAX_CTA 512
#define ROW_PLAN_TILE_SMEM (44 * 1024) /* of 48: 4 KiB left for a column operand (row_tile.cuh) */
/* The 16-byte vectors of a tile plan's shared memory: the span of a block's cta / tpr rows, plus one
   for a span that does not start on a vector boundary. */
size_t row_plan_tile_vectors(const row_shape *s, const row_plan *p);

/* 16-byte vectors a row of `cols` elements of `elem` bytes spans at most. */
size_t row_window(size_t cols, size_t elem);

/* 0 when `p` can do the case; else -1 with the reason in why. */
int row_plan_check(const row_shape *s, const row_limits *lim, const row_plan *p, char *why, size_t whylen);

/* The per-shape choice. Returns 0, or -1 with the reason when no plan within `lim` can do the case
   (a row too long to hold on chip for an op that cannot stream). */
int row_plan_choose(const row_shape *s, const row_limits *lim, row_plan *out, char *why, size_t whylen);

/* Plan `index` of the tuning space (0, 1, ...): returns 1 and fills *out, or 0 past the last. The space
   holds first the ring plans (where the op takes them and the row is past 64 KiB: ring 2 and 3, cta 256
   and 512, vpt 4 and 8, the smallest cluster whose stages fit shared memory and the next two), so that
   `klab --tune`, which times the first 63 entries of a space, always has them beside the others; then
   every valid plan with cta in {128, 256, 512, 1024} (and on chip in one block, 32 and 64), on-chip
   plans no more than twice the smallest covering vpt, and streaming plans only where the row does not
   fit the on-chip ones. */
int row_plan_space(const row_shape *s, const row_limits *lim, int index, row_plan *out);

/* "cta=256,tpr=32,vpt=4,cluster=1,stream=0" (",ring=N", ",tile=1" where set) into buf; returns buf. */
const char *row_plan_format(const row_plan *p, char *buf, size_t len);

/* The configuration string of the plugin's choice (index < 0) or of space entry `index`, in one of a
   few rotating static buffers (a config hook's answer); NULL past the last or when no plan fits. */
const char *row_plan_config(const row_shape *s, const row_limits *lim, int index);

/* The plan a run uses: the plugin's choice for config < 0, else space entry `config`. 0, or -1 with
   the reason. */
int row_plan_for(const row_shape *s, const row_limits *lim, int config, row_plan *out, char *why, size_t whylen);

/* ---- the plugin side: plans as klab configurations ---- */

/* The rows x cols of a case whose last dimension is the row (all leading ones are rows). */
row_shape row_shape_of(const klab_case *k);

/* The plan run() uses for launch->config, remembered between calls (a space entry is found by walking
   the space). Declines (KLAB_UNSUPPORTED, the reason through host->error) a configuration past the
   space, or a cluster or ring plan on a device without clusters and bulk copies (compute capability `cc` < 9.0). */
typedef struct row_plan_cache {
    int config; /* what `plan` was made for; start with ROW_PLAN_NONE */
    row_plan plan;
} row_plan_cache;
#define ROW_PLAN_NONE (-2)
klab_status row_plan_run(const klab_host *host, klab_ctx *ctx, int cc, const row_shape *s, const row_limits *lim,
                         int config, row_plan_cache *cache, row_plan *out);

#ifdef __cplusplus
}
#endif

#endif
