/* The row-kernel plans: validity, the per-shape choice and the tuning space (row_plan.h). */
#include "row/row_plan.h"

#include <stdio.h>

const row_limits row_limits_any = {ROW_PLAN_MAX_CLUSTER, 0, 1, 1, 0, 0};
const row_limits row_limits_no_ring = {ROW_PLAN_MAX_CLUSTER, 0, 1, 0, 0, 0};
const row_limits row_limits_heavy = {ROW_PLAN_MAX_CLUSTER, 0, 1, 1, 1, 0};
const row_limits row_limits_fit4 = {ROW_PLAN_MAX_CLUSTER, 0, 1, 1, 0, 1};

/* The longest row window (16-byte vectors) the per-shape choice takes a tile plan for: the rows whose
   groups are one or two threads. The tile plan against its register twin in the same process (H200 at
   4396ee7, docs/measurements/2026-11-23-h200-20.md section 1; RMSNorm with its gain staged): windows
   of 3-6 vectors won,
   65537x17 RMSNorm fp16 / bf16 / fp32 1.50 / 1.47 / 1.15x, softmax 1.63 / 1.61 / 1.10x, 100003x33 fp16
   1.28x, 1.46x; from 9 vectors it was level at best (100003x33 fp32 1.02x, 0.96x; 8192x250 fp16 1.00x,
   0.96x) and lost on longer rows (16384x100, 8192x250 fp32, 4096x1001, 1024x4093: 0.84-0.97x): the
   longer the row, the smaller its edge vectors' share, and the pass through shared memory remains. */
#define ROW_PLAN_TILE_WINDOW 8

/* a plan whose step holds more vectors than a block's registers: only a streaming one may (1024 x 8) */
static int wide_step(int cta, int vpt)
{
    return (long)cta * vpt > ROW_PLAN_MAX_VECTORS;
}

static size_t pow2ceil(size_t n)
{
    size_t p = 1;
    while (p < n)
        p <<= 1;
    return p;
}

/* The smallest of 1, 2, 4, 8 vectors a thread with which `threads` threads cover w vectors; 0: none. */
static int covering_vpt(size_t threads, size_t w)
{
    for (int vpt = 1; vpt <= 8; vpt <<= 1)
        if (threads * (size_t)vpt >= w)
            return vpt;
    return 0;
}

static int is_pow2(long n)
{
    return n > 0 && (n & (n - 1)) == 0;
}

size_t row_window(size_t cols, size_t elem)
{
    size_t bytes = cols * elem;
    if (bytes % 16 == 0)
        return bytes / 16;
    /* row r starts at byte r * bytes: an offset into its first vector that is a multiple of elem */
    size_t most = 0;
    for (size_t off = 0; off < 16; off += elem) {
        size_t n = (off + bytes - 1) / 16 + 1;
        if (n > most)
            most = n;
    }
    return most;
}

size_t row_plan_ring_bytes(const row_shape *s, const row_plan *p)
{
    size_t w = row_window(s->cols, s->elem), c = p->cluster > 0 ? (size_t)p->cluster : 1;
    return (size_t)p->ring * ((w + c - 1) / c) * 16;
}

size_t row_plan_tile_vectors(const row_shape *s, const row_plan *p)
{
    const size_t per = 16 / s->elem, rows = (size_t)(p->cta / p->tpr);
    return (rows * s->cols + per - 1) / per + 1;
}

int row_plan_check(const row_shape *s, const row_limits *lim, const row_plan *p, char *why, size_t whylen)
{
    const char *bad = NULL;
    size_t w = row_window(s->cols, s->elem);
    const int wide = wide_step(p->cta, p->vpt);
    if (s->rows < 1 || s->cols < 1 || (s->elem != 2 && s->elem != 4))
        bad = "the skeleton takes rows >= 1 of cols >= 1 elements of 2 or 4 bytes";
    else if (p->cta < 32 || p->cta > 1024 || p->cta % 32)
        bad = "cta must be a multiple of 32 in 32..1024";
    else if (!is_pow2(p->tpr) || p->tpr > p->cta)
        bad = "tpr must be a power of two no larger than cta";
    else if (p->tpr % lim->tpr_multiple)
        bad = "tpr must hold whole heads (a multiple of the vectors a head spans)";
    else if (!is_pow2(p->vpt) || p->vpt > 8)
        bad = "vpt must be 1, 2, 4 or 8";
    else if (wide && !p->stream)
        bad = "cta * vpt must be at most 4096 (64 KiB of registers a block)";
    else if (wide && s->cols * s->elem % 16)
        bad = "a streaming step of more than 4096 vectors (1024 x 8) needs rows of whole 16-byte vectors";
    else if (wide && !lim->ring)
        bad = "a streaming step of more than 4096 vectors (1024 x 8) needs rows read from one tensor";
    else if (!is_pow2(p->cluster) || p->cluster > ROW_PLAN_MAX_CLUSTER)
        bad = "cluster must be 1, 2, 4, 8 or 16";
    else if (p->cluster > lim->max_cluster)
        bad = "this op keeps a row in one block (cluster 1)";
    else if (p->cluster > 1 && p->tpr != p->cta)
        bad = "a row split across a cluster takes whole blocks (tpr = cta)";
    else if (p->stream != 0 && p->stream != 1)
        bad = "stream must be 0 or 1";
    else if (p->stream && lim->no_stream)
        bad = "this op needs the row on chip (stream 0)";
    else if (p->stream && p->vpt < 4)
        bad = "a streaming plan reads 4 or 8 vectors a thread a step";
    else if (p->ring != 0 && (p->ring < 2 || p->ring > ROW_PLAN_MAX_RING))
        bad = "ring must be 0 or 2..4 stages";
    else if (p->ring && !lim->ring)
        bad = "this op reads its rows through registers (ring 0)";
    else if (p->ring && p->stream)
        bad = "a ring plan holds the row in shared memory (stream 0)";
    else if (p->ring && p->tpr != p->cta)
        bad = "a ring plan gives a block one row (tpr = cta)";
    else if (p->ring && p->vpt < 4)
        bad = "a ring plan takes 4 or 8 vectors a thread a step";
    else if (p->ring && row_plan_ring_bytes(s, p) > ROW_PLAN_RING_SMEM)
        bad = "ring stages of a block's part of the row past 224 KiB of shared memory: a larger cluster";
    else if (p->tile != 0 && p->tile != 1)
        bad = "tile must be 0 or 1";
    else if (p->tile && !lim->ring)
        bad = "this op reads its rows through registers (tile 0)";
    else if (p->tile && (p->cluster > 1 || p->stream || p->ring))
        bad = "a tile plan holds its block's rows in one block's shared memory (cluster 1, stream 0, ring 0)";
    else if (p->tile && s->cols * s->elem % 16 == 0)
        bad = "a tile plan is for rows that do not start on 16-byte boundaries (the others load whole vectors)";
    else if (p->tile && p->cta > ROW_PLAN_TILE_MAX_CTA)
        bad = "a tile plan takes at most 512 threads a block";
    else if (p->tile && row_plan_tile_vectors(s, p) * 16 > ROW_PLAN_TILE_SMEM)
        bad = "a tile plan's block of rows past 44 KiB of shared memory: fewer rows a block";
    else if (!p->stream && !p->ring && (size_t)p->cluster * p->tpr * p->vpt < w)
        bad = "cluster * tpr * vpt vectors do not cover the row: stream it, or hold more";
    else {
        size_t per = (size_t)(p->cta / p->tpr), blocks = (s->rows + per - 1) / per * (size_t)p->cluster;
        if (blocks > 0x7fffffffu)
            bad = "more than 2^31 - 1 blocks";
    }
    if (!bad)
        return 0;
    snprintf(why, whylen, "%s (rows %zu, cols %zu, %zu-byte elements: %zu vectors a row)", bad, s->rows, s->cols,
             s->elem, w);
    return -1;
}

/* The on-chip plan of one block a row group: vpt 4 (fewer for rows under 4 vectors) and the fewest
   threads that cover the row; short rows (under 128 threads) share 256-thread blocks, longer ones get
   a block each. Halving the threads for 8 vectors each keeps the slots and halves the threads: on an
   H200 it won where the rows still fill the GPU and the row leaves slots empty (4096x5120 fp16,
   640 vectors: 1.12x) and lost where they do not (1024x4093: 0.90x), and it is needed past 512
   threads (512 x 8 vectors is the most a block holds). A row that fills 512 threads x 4 exactly (2048
   vectors: fp16 16384, fp32 8192) halves too, where the rows fill the GPU: 256 x 8 beat 512 x 4 by 1.03x
   (rmsnorm) and 1.35x (softmax, 72.6 -> 98.3 % of the copy) at 2048x16384 fp16; at 1024 vectors
   (256 x 4 exactly) softmax gained 1.12x with 128 x 8 (fp16 4096x8192, 91.1 -> 101.7 %) and rmsnorm
   did not (0.99x), so there only ops with heavy arithmetic an element halve (lim->heavy).
   Where the op's 4-vector kernel takes two blocks of 1024 an SM (lim->fit4, where the rows fill the
   GPU: row_plan_bounded4), a row that fills 512 or 1024 threads x 4 exactly stays at 4: rmsnorm fp32
   2048x16384 1024 x 4 66.9 us against 512 x 8's 67.3, fp16 1024x32768 35.3 against 36.0, fp16
   2048x16384 512 x 4 33.9 against 256 x 8's 34.5, fp32 4096x8192 65.4 against 66.2 (H200 at 9a05a03,
   docs/measurements/2026-11-23-h200-18.md section 3; 74.8, 40.1, 36.4, 68.0 unbounded).
   docs/notes/rmsnorm.md and softmax.md have the tune runs. */
static void one_block(const row_shape *s, size_t w, const row_limits *lim, row_plan *p)
{
    int vpt = w >= 4 ? 4 : (int)pow2ceil(w);
    size_t tpr = pow2ceil((w + (size_t)vpt - 1) / (size_t)vpt);
    const size_t exact = lim->heavy ? 256 : 512; /* from here a row that fills tpr x 4 exactly halves too */
    const int aligned = s->cols * s->elem % 16 == 0;
    /* Short aligned rows (16-256 vectors) of tensors past 32 MiB in small blocks. Blocks of 256 threads
       holding 8-64 rows (16 KiB a block) ran 3-8 % under torch.compile's kernels, which take one to 32
       rows in blocks of 32-64 threads; so did a copy of 16 KiB blocks against one of 4 KiB past 32 MiB
       a side (klab's copy, gpu_kernels.cu), and both turn below it. RMSNorm at 2 vectors a thread in
       blocks of 64 (or one row), softmax (heavy: 2 vectors lost up to 11 %) at 4 in blocks of 64, same
       rounds (H200, docs/measurements/2026-11-23-h200-19.md section 3): at 2^25 elements RMSNorm N = 128 ..
       1024 1.015-1.045x (fp16, bf16), 1.00-1.015x (fp32), softmax 1.00-1.064x; at 2-16 MiB (8192x128,
       4096x1024, 65536x128 fp16) 0.92-1.00x, so those keep 256-thread blocks. Ragged rows, RoPE's head-aligned
       groups and ops that read a row from two tensors (RMSNorm's residual form: twice a block's bytes) keep
       them too (unmeasured). */
    const int small = aligned && w >= 16 && w <= 256 && lim->tpr_multiple == 1 &&
                      lim->ring && s->rows * s->cols * s->elem > ((size_t)32 << 20);
    const int fits = lim->fit4 && tpr * 4 == w && tpr <= 1024 && aligned && row_plan_bounded4(s->rows, (int)tpr);
    if (small && !lim->heavy) {
        vpt = 2;
        tpr = pow2ceil((w + 1) / 2);
    } else if (vpt == 4 && tpr >= 64 && !fits &&
               (tpr > 512 ||
                ((tpr * 4 > w || tpr >= exact) && row_plan_fills(s->rows, tpr / 2)))) {
        vpt = 8;
        tpr /= 2;
    }
    while (tpr % (size_t)lim->tpr_multiple)
        tpr <<= 1;
    p->tpr = (int)tpr;
    p->vpt = vpt;
    p->cta = small ? (tpr < 64 ? 64 : (int)tpr) : tpr < 128 ? 256 : (int)tpr;
    p->cluster = 1;
    p->stream = 0;
    p->ring = 0;
    /* Short rows that do not start on 16-byte boundaries: the block's rows through shared memory
       (row_tile.cuh), where each row's edge vectors were read and written element by element; where the
       tile plan's own limits allow it (row_plan_check) */
    char why[8];
    p->tile = !aligned && lim->ring && w <= ROW_PLAN_TILE_WINDOW;
    if (p->tile && row_plan_check(s, lim, p, why, sizeof why) != 0)
        p->tile = 0;
}

int row_plan_choose(const row_shape *s, const row_limits *lim, row_plan *out, char *why, size_t whylen)
{
    size_t w = row_window(s->cols, s->elem);
    row_plan p;
    /* Past 64 KiB a row the register plans below run at 71-83 % of the copy on an H200 (load, cluster
       barrier, store: an SM's load and store phases do not overlap). The ring plans (row_ring.cuh) were
       written to overlap them and measured slower in the same rounds, 5-12 % at N = 65536..262144, fp16 and
       fp32, rmsnorm and softmax (2026-11-22, docs/measurements/2026-11-22-h200-rows-3.md): they stay in
       the tuning space, never the own choice. */
    int few = s->rows < ROW_PLAN_SMS && lim->max_cluster > 1;
    /* an op whose rows stream from one tensor, rows of whole vectors */
    const int streams = s->cols * s->elem % 16 == 0 && lim->ring && !lim->no_stream;
    if (w > ROW_PLAN_MAX_VECTORS && w <= 2 * ROW_PLAN_MAX_VECTORS && streams && s->rows >= 2 * ROW_PLAN_SMS) {
        /* rows of 64-128 KiB stream. fp32 RMSNorm: one block of 1024 x 8 a row, the whole row in flight
           in one step, then read again from L1 (torch.compile's kernel there): 92.5 % of the copy against
           the cluster plan's 85.3 % at 1024x32768 (H200, docs/measurements/2026-11-22-h200-12.md section
           4b), 93.5 % against 512 x 8's 88.9 % (docs/measurements/2026-11-23-h200-17.md section 1, one
           run). 16-bit rows and softmax: two blocks of 512 x 8 an SM, two
           steps a row, so one block's arithmetic runs beside the other's memory phases (one block an SM
           leaves its share of DRAM idle while it reduces and converts: at fp16 512x65536 the 1024 x 8
           kernel issues on 37 % of cycles at 2.79 TB/s, ncu). In that run's rounds: rmsnorm fp16
           512x65536 85.9-86.3 % against 1024 x 8's 82.4-82.8 %; softmax fp16 512x65536 84.7 % and fp32
           1024x32768 93.0 % against the cluster plan's 80.6 and 88.1 % */
        p = s->elem == 2 || lim->heavy ? (row_plan){512, 512, 8, 1, 1, 0, 0} : (row_plan){1024, 1024, 8, 1, 1, 0, 0};
    } else if (w > 2 * ROW_PLAN_MAX_VECTORS && w <= 4 * ROW_PLAN_MAX_VECTORS && streams && s->elem == 2 &&
               !lim->heavy && s->rows >= ROW_PLAN_SMS) {
        /* 16-bit RMSNorm rows of 128-256 KiB: 1024 x 8 in two steps (the first read again from L2), one
           block an SM, no cluster wait: fp16 256x131072 80.3-80.6 % against the 8-block cluster plan's
           78.2-79.5 %, bf16 80.4 against 78.3 % (docs/measurements/2026-11-23-h200-17.md section 1; an
           earlier run 80.2 against 78.7). fp32 rows of 256 KiB keep the cluster plan (82.4 against 81.2 %,
           that earlier run), and softmax's (fp16 256x131072 78.8-79.1 against 74.0-74.2 %, a later run) */
        p = (row_plan){1024, 1024, 8, 1, 1, 0, 0};
    } else if (w <= 2048 || (w <= ROW_PLAN_MAX_VECTORS && !few)) {
        /* up to 64 KiB a row in one block: one block of 512 x 8 vectors beat a 2-block cluster at
           1024x32768 fp16 (1.13x, H200) */
        one_block(s, w, lim, &p);
    } else if (lim->max_cluster > 1) {
        /* 32 KiB a block (256 threads x 8 vectors), in the smallest cluster that holds the row; 64 KiB a
           block when 16 blocks of 32 KiB do not; past 16 x 64 KiB the row streams */
        p = (row_plan){256, 256, 8, (int)pow2ceil((w + 2047) / 2048), 0, 0, 0};
        if (p.cluster > ROW_PLAN_MAX_CLUSTER)
            p = (row_plan){512, 512, 8, (int)pow2ceil((w + 4095) / 4096), 0, 0, 0};
        if (p.cluster > lim->max_cluster)
            p = (row_plan){512, 512, 8, lim->max_cluster, 1, 0, 0};
        /* few rows: spread each over more blocks so more SMs pull from memory (1x65536 ran on 1 SM) */
        while (!p.stream && s->rows * (size_t)p.cluster < ROW_PLAN_SMS && p.cluster < lim->max_cluster) {
            p.cluster *= 2;
            if (p.vpt > 2)
                p.vpt /= 2;
            else if (p.cta > 128)
                p.cta = p.tpr = p.cta / 2;
            else
                break;
        }
    } else {
        p = (row_plan){512, 512, 8, 1, 1, 0, 0};
    }
    return row_plan_check(s, lim, &p, why, whylen) == 0 ? (*out = p, 0) : -1;
}

/* The ring plans of the space (row_plan.h says which): counts them in *n, and returns 1 with entry
   `index` in *out when it is one of them. */
static int ring_space(const row_shape *s, const row_limits *lim, int index, int *n, row_plan *out)
{
    static const int rings[] = {2, 3}, ctas[] = {256, 512}, vpts[] = {4, 8};
    char why[8];
    if (!lim->ring || row_window(s->cols, s->elem) <= ROW_PLAN_MAX_VECTORS)
        return 0;
    for (int ri = 0; ri < 2; ri++)
        for (int ai = 0; ai < 2; ai++)
            for (int vi = 0; vi < 2; vi++) {
                row_plan p = {ctas[ai], ctas[ai], vpts[vi], 1, 0, rings[ri], 0};
                while (p.cluster < lim->max_cluster && row_plan_ring_bytes(s, &p) > ROW_PLAN_RING_SMEM)
                    p.cluster *= 2;
                for (int k = 0; k < 3 && p.cluster <= lim->max_cluster; k++, p.cluster *= 2) {
                    if (row_plan_check(s, lim, &p, why, sizeof why) != 0)
                        continue;
                    if ((*n)++ == index) {
                        *out = p;
                        return 1;
                    }
                }
            }
    return 0;
}

/* The tile plans of the space (row_plan.h says which), as ring_space. */
static int tile_space(const row_shape *s, const row_limits *lim, int index, int *n, row_plan *out)
{
    static const int ctas[] = {64, 128, 256, 512};
    const size_t w = row_window(s->cols, s->elem);
    char why[8];
    if (!lim->ring || s->cols * s->elem % 16 == 0)
        return 0;
    for (int ai = 0; ai < 4; ai++)
        for (int tpr = 1; tpr <= ctas[ai] && (size_t)tpr <= pow2ceil(w); tpr <<= 1) {
            const row_plan p = {ctas[ai], tpr, covering_vpt((size_t)tpr, w), 1, 0, 0, 1};
            if (!p.vpt || row_plan_check(s, lim, &p, why, sizeof why) != 0)
                continue;
            if ((*n)++ == index) {
                *out = p;
                return 1;
            }
        }
    return 0;
}

int row_plan_space(const row_shape *s, const row_limits *lim, int index, row_plan *out)
{
    /* 32 and 64 last and on chip only: short rows in small blocks (torch.compile's RMSNorm runs a row of
       1024 fp16 in a block of one warp) */
    static const int ctas[] = {128, 256, 512, 1024, 32, 64}, clusters[] = {1, 2, 4, 8, 16}, vpts[] = {1, 2, 4, 8};
    size_t w = row_window(s->cols, s->elem);
    int n = 0;
    char why[8];
    if (ring_space(s, lim, index, &n, out) || tile_space(s, lim, index, &n, out))
        return 1;
    for (int stream = 0; stream <= 1; stream++)
        for (int ci = 0; ci < 5; ci++)
            for (int ai = 0; ai < 6; ai++)
                for (int tpr = 1; tpr <= ctas[ai]; tpr <<= 1) {
                    int cl = clusters[ci], cta = ctas[ai];
                    if ((cl > 1 && tpr != cta) || (cta < 128 && (cl > 1 || stream)))
                        continue;
                    if ((size_t)cl * (size_t)tpr > pow2ceil(w) && !(cl == 1 && tpr == 1))
                        continue; /* threads that would hold nothing */
                    const int vmin = covering_vpt((size_t)cl * (size_t)tpr, w);
                    for (int vi = 0; vi < 4; vi++) {
                        row_plan p = {cta, tpr, vpts[vi], cl, stream, 0, 0};
                        if (!stream && p.vpt != vmin && p.vpt != 2 * vmin)
                            continue;
                        if (stream && (size_t)cl * (size_t)tpr * (size_t)p.vpt >= w && !wide_step(cta, p.vpt))
                            continue; /* the row fits: the on-chip plan is the one to time */
                        if (row_plan_check(s, lim, &p, why, sizeof why) != 0)
                            continue;
                        if (n++ == index) {
                            *out = p;
                            return 1;
                        }
                    }
                }
    return 0;
}

const char *row_plan_format(const row_plan *p, char *buf, size_t len)
{
    int k = snprintf(buf, len, "cta=%d,tpr=%d,vpt=%d,cluster=%d,stream=%d", p->cta, p->tpr, p->vpt, p->cluster,
                     p->stream);
    if (p->ring && k >= 0 && (size_t)k < len)
        k += snprintf(buf + k, len - (size_t)k, ",ring=%d", p->ring);
    if (p->tile && k >= 0 && (size_t)k < len)
        snprintf(buf + k, len - (size_t)k, ",tile=%d", p->tile);
    return buf;
}

const char *row_plan_config(const row_shape *s, const row_limits *lim, int index)
{
    static char ring[8][64];
    static unsigned next;
    row_plan p;
    char why[8];
    if (index < 0 ? row_plan_choose(s, lim, &p, why, sizeof why) != 0 : !row_plan_space(s, lim, index, &p))
        return NULL;
    return row_plan_format(&p, ring[next++ % 8], sizeof ring[0]);
}

int row_plan_for(const row_shape *s, const row_limits *lim, int config, row_plan *out, char *why, size_t whylen)
{
    if (config < 0)
        return row_plan_choose(s, lim, out, why, whylen);
    if (!row_plan_space(s, lim, config, out)) {
        snprintf(why, whylen, "configuration %d is past the end of the tuning space", config);
        return -1;
    }
    return 0;
}

row_shape row_shape_of(const klab_case *k)
{
    row_shape s = {1, k->rank > 0 ? (size_t)k->dims[k->rank - 1] : 1, klab_dtype_size(k->dtype)};
    for (int i = 0; i < k->rank - 1; i++)
        s.rows *= (size_t)k->dims[i];
    return s;
}

klab_status row_plan_run(const klab_host *host, klab_ctx *ctx, int cc, const row_shape *s, const row_limits *lim,
                         int config, row_plan_cache *cache, row_plan *out)
{
    char why[300];
    if (config != cache->config) {
        if (row_plan_for(s, lim, config, &cache->plan, why, sizeof why) != 0) {
            host->error(ctx, "%s", why);
            return KLAB_UNSUPPORTED;
        }
        cache->config = config;
    }
    if (cache->plan.cluster > 1 && cc < 90) {
        host->error(ctx, "cluster=%d needs thread-block clusters (compute capability 9.0); this device is %d.%d",
                    cache->plan.cluster, cc / 10, cc % 10);
        return KLAB_UNSUPPORTED;
    }
    if (cache->plan.ring && cc < 90) {
        host->error(ctx, "ring=%d needs bulk copies and transaction barriers (compute capability 9.0); this device is %d.%d",
                    cache->plan.ring, cc / 10, cc % 10);
        return KLAB_UNSUPPORTED;
    }
    *out = cache->plan;
    return KLAB_OK;
}
