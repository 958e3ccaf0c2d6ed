/* matmul_h200: the case's dimensions, the wgmma profiles' tuning spaces and own choices, and the
 * float64 reference. Pure C: the CPU tests (tests/unit/plugins/test_matmul_h200.c) check all of it. */
#include <stdio.h>
#include <string.h>

#include "matmul_h200.h"

/* SMs of an H100/H200 SXM: the split count and the space are functions of the case alone (docs/timing.md:
   `klab --tune --validate` enumerates without a GPU), so the SM count they aim at is a constant; run()
   reads the device's own for the persistent grid. */
#define MM_AIM_SMS 132

/* Shared memory a stage: (bm + bn) * 128 bytes; stages chosen to fill ~200 KB of the 227 KB. */
const mm_variant mm_variants[MM_VARIANTS] = {
    [MM_V128x256] = {128, 256, 4, 2, 1, 0, 0},    [MM_V128x128] = {128, 128, 6, 2, 1, 1, 0},
    [MM_V256x128] = {256, 128, 4, 2, 1, 0, 0},    [MM_V64x128] = {64, 128, 8, 1, 1, 1, 0},
    [MM_V64x256] = {64, 256, 5, 1, 1, 1, 0},      [MM_V128x256_C2] = {128, 256, 4, 2, 2, 0, 0},
    [MM_V128x128_C2] = {128, 128, 6, 2, 2, 0, 0}, [MM_V128x128_PP] = {128, 128, 6, 2, 1, 0, 1},
    [MM_V64x256_PP] = {64, 256, 5, 2, 1, 0, 1},   [MM_V256x128_C2] = {256, 128, 4, 2, 2, 0, 0},
    [MM_V128x256_CS] = {128, 256, 4, 2, 1, 0, 0, 1}, [MM_V128x256_C2_CS] = {128, 256, 4, 2, 2, 0, 0, 1},
};

int mm_case_of(const klab_case *k, mm_case *c, char *why, size_t whylen)
{
    static const char *const names[3] = {"m", "n", "k"};
    int64_t v[3];
    for (int i = 0; i < 3; i++) {
        v[i] = klab_case_dim(k, names[i], -1);
        if (v[i] < 1 || v[i] > ((int64_t)1 << 24)) {
            snprintf(why, whylen, "case '%s': dim.%s is %lld; it must be set, between 1 and 2^24", k->name, names[i],
                     (long long)v[i]);
            return -1;
        }
    }
    c->m = v[0], c->n = v[1], c->k = v[2];
    if (c->m * c->k > INT32_MAX || c->k * c->n > INT32_MAX || c->m * c->n > INT32_MAX) {
        snprintf(why, whylen, "case '%s': %lld x %lld x %lld has an operand past 2^31 elements", k->name,
                 (long long)c->m, (long long)c->n, (long long)c->k);
        return -1;
    }
    return 0;
}

int mm_tma_ok(const mm_case *c, char *why, size_t whylen)
{
    if (c->k % 8 || c->n % 8) {
        snprintf(why, whylen, "K = %lld and N = %lld must be multiples of 8: TMA and cp.async move 16-byte rows",
                 (long long)c->k, (long long)c->n);
        return 0;
    }
    return 1;
}

static int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

static int64_t tiles_of(const mm_case *c, int variant)
{
    const mm_variant *v = &mm_variants[variant];
    return cdiv(c->m, v->bm) * cdiv(c->n, v->bn);
}

/* The split count for one wave: the most splits whose units still fit the SMs at once (a second,
   partial wave would double the time of a weight-streaming shape), each split at least 4 K tiles of
   64, within the workspace. 16 x 4096 x 4096 in 64 x 128 tiles: 32 tiles, 4 splits, 128 units. */
static int own_splits(const mm_case *c, int variant)
{
    const int64_t tiles = tiles_of(c, variant), ktiles = cdiv(c->k, 64);
    int s = 1;
    while (s < MM_MAX_SPLITS && tiles * (s + 1) <= MM_AIM_SMS && ktiles / (s + 1) >= 4 &&
           (size_t)(s + 1) * (size_t)(c->m * c->n) <= MM_WORKSPACE_FLOATS)
        s++;
    return s;
}

int mm_epi_tma_ok(int variant)
{
    /* the large tiles, where the epilogue is the part of a unit not yet overlapped (square-4096 against
       cuBLAS), and
       whose ring leaves room for 16 KB of chunks a consumer warpgroup; 64 x 256 ping-pong does not */
    return variant == MM_V128x256 || variant == MM_V128x256_C2 || variant == MM_V256x128 ||
           variant == MM_V128x128_PP || variant == MM_V256x128_C2 || variant == MM_V128x256_CS ||
           variant == MM_V128x256_C2_CS;
}

/* (variant, epi) */
static const int wgmma_space[][2] = {{MM_V128x256, MM_EPI_DIRECT}, {MM_V128x128, MM_EPI_DIRECT},
                                     {MM_V256x128, MM_EPI_DIRECT}, {MM_V64x128, MM_EPI_DIRECT},
                                     {MM_V64x256, MM_EPI_DIRECT},  {MM_V128x256, MM_EPI_TMA}};
/* cluster 1 first: the measured 0755 run had the 2-CTA cluster persistent kernel at 0.55-0.60x while
   the same 128 x 256 tile one CTA a tile ran at 0.94x (a fenced cross-CTA arrive, fixed since: the two
   now run level, and cluster 2 a little ahead); the tuner decides between them. Then the staged
   epilogue beside the direct one, at the same rasters, so one --tune times the two in the same rounds.
   256 x 128 c2: cuBLAS's kernel name at square-4096 (ncu) read as our tile; cuBLAS computes C^T, so
   in our frame its tile may be 128 x 256 c2 instead, which is here already: the tune tells.
   Last, the own tile with its consumers splitting columns instead of rows (COLSPLIT: cuBLAS's warpgroups
   each hold 128 x 128 of its 128 x 256 tile, two m64n128 a k step; ours 64 x 256, one m64n256), staged
   epilogue only, the own choice's epilogue. 14 points x 4 rasters = 56; with the own choice 57 of the 64
   entries --tune times a case. */
static const int persistent_space[][2] = {
    {MM_V128x256, MM_EPI_DIRECT},    {MM_V128x256_C2, MM_EPI_DIRECT}, {MM_V128x128_PP, MM_EPI_DIRECT},
    {MM_V64x256_PP, MM_EPI_DIRECT},  {MM_V128x128_C2, MM_EPI_DIRECT}, {MM_V256x128, MM_EPI_DIRECT},
    {MM_V256x128_C2, MM_EPI_DIRECT}, {MM_V128x256, MM_EPI_TMA},       {MM_V128x256_C2, MM_EPI_TMA},
    {MM_V128x128_PP, MM_EPI_TMA},    {MM_V256x128, MM_EPI_TMA},       {MM_V256x128_C2, MM_EPI_TMA},
    {MM_V128x256_CS, MM_EPI_TMA},    {MM_V128x256_C2_CS, MM_EPI_TMA},
};
static const int rasters[3][2] = {{0, 8}, {1, 8}, {0, 1}};            /* raster_n, group: wgmma */
static const int p_rasters[4][2] = {{0, 8}, {1, 8}, {0, 16}, {0, 4}}; /* persistent: 12 x 4 = 48 */
/* split-K: (variant, splits, serial, persistent). Serial (one launch) dominates now that its last
   split's sum keeps many loads in flight; the kernel reduction stays at one point a variant. */
static const int splitk_space[][4] = {
    {MM_V64x128, 2, 1, 0},  {MM_V64x128, 3, 1, 0},  {MM_V64x128, 4, 1, 0},  {MM_V64x128, 6, 1, 0},
    {MM_V64x128, 8, 1, 0},  {MM_V64x128, 16, 1, 0}, {MM_V64x128, 8, 1, 1},  {MM_V64x128, 16, 1, 1},
    {MM_V64x128, 4, 0, 0},  {MM_V64x256, 2, 1, 0},  {MM_V64x256, 4, 1, 0},  {MM_V64x256, 8, 1, 0},
    {MM_V64x256, 8, 1, 1},  {MM_V64x256, 8, 0, 0},  {MM_V128x128, 2, 1, 0}, {MM_V128x128, 3, 1, 0},
    {MM_V128x128, 4, 1, 0}, {MM_V128x128, 2, 1, 1}, {MM_V128x128, 4, 1, 1}, {MM_V128x128, 8, 1, 1},
    {MM_V128x128, 2, 0, 0},
};
#define NELEM(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* skinny v2's (warps, ring) pairs: a warp's ring is 2.5 KB a step (B and two token tiles), so warps x
   ring <= 64 keeps a CTA's rings within 160 KB (one CTA an SM at 64, two at 32) */
static const int skinny_rings[][2] = {{8, 8}, {8, 4}, {4, 8}, {4, 16}, {4, 4}, {16, 4}};

/* skinny v3's ring depths: 8 KB of B and up to 2 KB of tokens a stage, so 16 stages fill 160 KB (one CTA
   an SM), 8 half that (two), 4 a quarter */
static const int stream_stages[] = {4, 8, 16};

static int stream_fits(const mm_case *c, const mm_config *cfg, char *why, size_t whylen)
{
    const int s = cfg->splits, st = cfg->stages;
    if (c->n % 8 || c->k % 8) {
        snprintf(why, whylen, "N = %lld, K = %lld: skinny v3 takes N and K multiples of 8 (TMA rows of 16 bytes)",
                 (long long)c->n, (long long)c->k);
        return 0;
    }
    if (st != 4 && st != 8 && st != 16) {
        snprintf(why, whylen, "stages=%d: skinny v3 has stages 4, 8 or 16", st);
        return 0;
    }
    if (s > (c->k + 63) / 64) {
        snprintf(why, whylen, "K = %lld has %lld K tiles of 64 rows, fewer than splits=%d", (long long)c->k,
                 (long long)((c->k + 63) / 64), s);
        return 0;
    }
    return 1;
}

int mm_skinny_fits(const mm_case *c, const mm_config *cfg, char *why, size_t whylen)
{
    const int w = cfg->warps, s = cfg->splits, u = cfg->unroll, d = cfg->ring;
    if (c->m > MM_SKINNY_MAX_M) {
        snprintf(why, whylen, "M = %lld: skinny takes M <= %d (one or two 8-token MMA tiles)", (long long)c->m,
                 MM_SKINNY_MAX_M);
        return 0;
    }
    if (s != 1 && s != 2 && s != 4) {
        snprintf(why, whylen, "splits=%d: skinny has splits 1, 2 or 4 (the cluster size)", s);
        return 0;
    }
    if (cfg->stages)
        return stream_fits(c, cfg, why, whylen);
    if (c->n % MM_SKINNY_COLS) {
        snprintf(why, whylen, "N = %lld: skinny takes N a multiple of %d (the columns a warp owns)", (long long)c->n,
                 MM_SKINNY_COLS);
        return 0;
    }
    int pair = 0;
    for (int i = 0; i < NELEM(skinny_rings); i++)
        pair |= skinny_rings[i][0] == w && skinny_rings[i][1] == d;
    if (d && !pair) {
        snprintf(why, whylen,
                 "warps=%d,ring=%d: skinny v2 has (warps, ring) (8, 8), (8, 4), (4, 8), (4, 16), (4, 4) or (16, 4)", w,
                 d);
        return 0;
    }
    if (!d && ((w != 8 && w != 16) || (u != 2 && u != 4))) {
        snprintf(why, whylen, "warps=%d,unroll=%d: skinny v1 (ring=0) has warps 8 or 16, unroll 2 or 4", w, u);
        return 0;
    }
    if (c->k % (16 * w * s)) {
        snprintf(why, whylen, "K = %lld is not a multiple of 16 x %d warps x %d splits (whole k16 steps a warp)",
                 (long long)c->k, w, s);
        return 0;
    }
    const int64_t steps = c->k / (16 * w * s);
    if (!d && steps % u) {
        snprintf(why, whylen, "K = %lld gives each warp %lld k16 steps, not a multiple of unroll=%d", (long long)c->k,
                 (long long)steps, u);
        return 0;
    }
    return 1;
}

/* skinny's own choice: v1 (registers) wherever it fits, v2 (the per-lane cp.async ring) only where v1's
   shapes do not divide K. The H200 timed both in the same rounds (2026-11-22, 7fd8626, bf16, cold L2;
   docs/notes/matmul_h200.md): v1 at 8 warps and unroll 2 was the best of the space at 16 x 4096 x 4096
   (15.42 us, cuBLAS 15.33), 1 x 4096 x 4096 (14.27, cuBLAS 15.26), 16 x 14336 x 4096 (32.03, 31.84) and
   within 0.6 % of it at 16 x 4096 x 14336 (37.12 against 36.90), while every v2 configuration took 1.4x to
   2.4x as long as v1's best. v1's splits: the most of {2, 1} that leave one CTA an SM at most (64 column
   slices x 2 = 128 CTAs at 4096 columns; 224 slices x 1 at 14336), fewer splits being cheaper (a cluster,
   a barrier).
   v2's rule, kept for the shapes v1 declines: the fewest splits that give (nearly) every SM a CTA, then
   the ring that puts ~128 KB of B in flight an SM (8 warps x 8 steps x 2 KB at one CTA an SM, 8 x 4 at
   two); where K does not divide, 4 warps with twice the ring, then fewer splits. v1's warps: 16 where its
   CTAs are one an SM at most (102 registers: one CTA of 16 warps an SM) and K divides, else 8; the
   H200 (ec16c49, same rounds): 16 warps 14.24 us against 8's 15.39 at 16 x 4096 x 4096 bf16, 33.22 against
   37.50 at 16 x 4096 x 14336, level at 1 x 4096 x 4096; at 16 x 14336 x 4096 (224 CTAs) 8 warps 32.38
   against 16's 36.86.
   v3 (the TMA ring, 8 stages, 2 splits) first where its 2-split CTAs fit one wave and each split's K
   range is at most 2048 rows: the H200 (2026-11-22, f5d4d8d, same rounds) timed it the fastest of the
   whole space at 16 x 4096 x 4096 and 1 x 4096 x 4096, both dtypes: plain 13.90-14.08 us against v1's
   14.27-14.38 and cuBLAS's 15.30-16.19; batched (fp16) 11.44 and 11.13 against v1's 11.75 and 11.64 and
   cuBLAS's 14.14 and 13.80. With the longer K range of 16 x 4096 x 14336 v1 stays ahead (32.86 against
   33.70 us), and at 16 x 14336 x 4096 (224 slices) too (32.42 against 33.04+). */
static void skinny_own(const mm_case *c, mm_config *cfg)
{
    const int64_t slices = c->n / MM_SKINNY_COLS;
    char why[160];
    if (c->n % MM_SKINNY_COLS == 0 && slices * 2 <= MM_AIM_SMS && c->k <= 4096) {
        *cfg = (mm_config){.splits = 2, .stages = 8, .group = 8};
        if (mm_skinny_fits(c, cfg, why, sizeof why))
            return;
    }
    for (int v1s = 2; v1s >= 1; v1s--) {
        if (v1s > 1 && slices * v1s > MM_AIM_SMS)
            continue;
        for (int w = slices * v1s <= MM_AIM_SMS ? 16 : 8; w >= 8; w /= 2)
            for (int u = 2; u <= 4; u += 2) {
                *cfg = (mm_config){.warps = w, .splits = v1s, .unroll = u, .group = 8};
                if (mm_skinny_fits(c, cfg, why, sizeof why))
                    return;
            }
    }
    int s = 1;
    while (s < MM_SKINNY_MAX_SPLITS && slices * s < MM_AIM_SMS - MM_AIM_SMS / 16) /* 128 of 132 will do */
        s *= 2;
    for (; s >= 1; s /= 2)
        for (int w = 8; w >= 4; w /= 2) {
            const int ring = (slices * s > MM_AIM_SMS ? 4 : 8) * 8 / w; /* two CTAs an SM: half the ring each */
            *cfg = (mm_config){.warps = w, .splits = s, .ring = ring, .group = 8};
            if (mm_skinny_fits(c, cfg, why, sizeof why))
                return;
        }
    /* v3 where neither divides (N not a multiple of 64): splits as v2's rule, 8 stages */
    for (s = 4; s >= 1; s /= 2) {
        *cfg = (mm_config){.splits = s, .stages = 8, .group = 8};
        if ((c->n + 63) / 64 * s <= MM_AIM_SMS && mm_skinny_fits(c, cfg, why, sizeof why))
            return;
    }
    *cfg = (mm_config){.warps = 8, .splits = 1, .ring = 8, .group = 8};
}

int mm_config_of(int profile, const mm_case *c, int index, mm_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->splits = 1, cfg->group = 8;
    switch (profile) {
    case MM_WGMMA:
        if (index < 0) {
            cfg->variant = c->m <= 64 ? MM_V64x128 : c->m <= 128 ? MM_V128x128 : MM_V128x256;
            return 1;
        }
        if (index >= NELEM(wgmma_space) * 3)
            return 0;
        cfg->variant = wgmma_space[index / 3][0], cfg->epi = wgmma_space[index / 3][1];
        cfg->raster_n = rasters[index % 3][0], cfg->group = rasters[index % 3][1];
        return 1;
    case MM_PERSISTENT:
        cfg->persistent = 1;
        if (index < 0) {
            /* the tiles the one-CTA-a-tile profile runs fastest, one CTA a resident slot; past 128 rows the
               2-CTA cluster with the staged TMA-store epilogue, the H200 tune's best at square-4096 and
               mlp-up-4096 (2026-11-22: 179.1 and 618.8 us against 200.0 and 701.5 for cluster 1 direct,
               docs/measurements/2026-11-22-h200-gemm-2.md) */
            cfg->variant = c->m <= 64 ? MM_V64x128 : c->m <= 128 ? MM_V128x128 : MM_V128x256_C2;
            cfg->epi = cfg->variant == MM_V128x256_C2 ? MM_EPI_TMA : MM_EPI_DIRECT;
            return 1;
        }
        if (index >= NELEM(persistent_space) * NELEM(p_rasters))
            return 0;
        cfg->variant = persistent_space[index / NELEM(p_rasters)][0];
        cfg->epi = persistent_space[index / NELEM(p_rasters)][1];
        cfg->raster_n = p_rasters[index % NELEM(p_rasters)][0], cfg->group = p_rasters[index % NELEM(p_rasters)][1];
        return 1;
    case MM_SPLITK:
        cfg->serial = 1;
        if (index < 0) {
            cfg->variant = c->m <= 64 ? MM_V64x128 : MM_V128x128;
            cfg->splits = own_splits(c, cfg->variant);
            /* the partials summed by a second kernel: the H200 tune's best at decode-16, 18.8 us against
               44.1 for the serial sum of the same 4 splits (2026-11-22, docs/measurements/2026-11-22-h200-gemm-2.md) */
            cfg->serial = cfg->splits > 1 ? 0 : 1;
            return 1;
        }
        if (index >= NELEM(splitk_space))
            return 0;
        cfg->variant = splitk_space[index][0], cfg->splits = splitk_space[index][1];
        cfg->serial = splitk_space[index][2], cfg->persistent = splitk_space[index][3];
        return 1;
    case MM_SKINNY:
        if (index < 0) {
            skinny_own(c, cfg);
            return 1;
        }
        /* the configurations that fit the case (a tune has no rows that only say "declined"): v2 at
           splits {1, 2, 4} x its 6 (warps, ring) pairs, then v1 at 8 warps x splits {1, 2} x unroll {4, 2}
           (its best on the H200, cf73a16), then v1 at 16 warps the same (twice the loads in flight an SM
           at one CTA an SM: ncu found v1 latency-bound at 8, 2026-11-22 -7b.md call 13), then v3 at splits
           {1, 2, 4} x stages {4, 8, 16} without and with the L2 prefetch: 44 at most */
        for (int i = 0, fit = 0; i < 3 * NELEM(skinny_rings) + 8 + 6 * NELEM(stream_stages); i++) {
            char why[160];
            cfg->stages = cfg->prefetch = 0;
            if (i >= 3 * NELEM(skinny_rings) + 8) {
                /* v3 (the TMA ring, wgmma): splits {1, 2, 4} x stages {4, 8, 16}, then the same with the
                   L2 prefetch */
                const int v = i - 3 * NELEM(skinny_rings) - 8, u = v % (3 * NELEM(stream_stages));
                cfg->warps = 0, cfg->ring = 0, cfg->unroll = 0, cfg->prefetch = v >= 3 * NELEM(stream_stages);
                cfg->splits = 1 << (u / NELEM(stream_stages)), cfg->stages = stream_stages[u % NELEM(stream_stages)];
            } else if (i < 3 * NELEM(skinny_rings)) {
                cfg->splits = 1 << (i / NELEM(skinny_rings)), cfg->unroll = 0;
                cfg->warps = skinny_rings[i % NELEM(skinny_rings)][0];
                cfg->ring = skinny_rings[i % NELEM(skinny_rings)][1];
            } else {
                const int v = i - 3 * NELEM(skinny_rings);
                cfg->warps = v < 4 ? 8 : 16, cfg->ring = 0, cfg->splits = 1 << (v / 2 % 2), cfg->unroll = v % 2 ? 2 : 4;
            }
            if (mm_skinny_fits(c, cfg, why, sizeof why) && fit++ == index)
                return 1;
        }
        return 0;
    default:
        return 0;
    }
}

size_t mm_workspace(const mm_case *c, const mm_config *cfg)
{
    return cfg->splits > 1 ? (size_t)cfg->splits * (size_t)(c->m * c->n) : 0;
}

size_t mm_tickets(const mm_case *c)
{
    size_t most = 0;
    for (int v = 0; v < MM_VARIANTS; v++)
        if (mm_variants[v].splitk && 2 * (size_t)tiles_of(c, v) > most)
            most = 2 * (size_t)tiles_of(c, v);
    return most;
}

const char *mm_check_name(const mm_case *c)
{
    if (c->m * c->n * c->k <= ((int64_t)1 << 27))
        return "full";
    return c->m * c->n >= MM_FULL_CHECK_ELEMS ? "sampled_devfull" : "sampled";
}

const char *mm_config_format(int profile, const mm_case *c, const mm_config *cfg, char *buf, size_t len)
{
    if (profile == MM_CUBLAS)
        snprintf(buf, len, "gemmex,row_major_as_col_major_nn,compute=32f,check=%s", mm_check_name(c));
    else if (profile == MM_TILED)
        snprintf(buf, len, "bm=128,bn=128,bk=32,stages=3,mma=m16n8k16,check=%s", mm_check_name(c));
    else if (profile == MM_SKINNY && cfg->stages)
        snprintf(buf, len, "stages=%d,splits=%d,prefetch=%d,mma=wgmma,check=%s", cfg->stages, cfg->splits,
                 cfg->prefetch, mm_check_name(c));
    else if (profile == MM_SKINNY && cfg->ring)
        snprintf(buf, len, "warps=%d,splits=%d,ring=%d,check=%s", cfg->warps, cfg->splits, cfg->ring, mm_check_name(c));
    else if (profile == MM_SKINNY)
        snprintf(buf, len, "warps=%d,splits=%d,unroll=%d,check=%s", cfg->warps, cfg->splits, cfg->unroll,
                 mm_check_name(c));
    else {
        const mm_variant *v = &mm_variants[cfg->variant];
        snprintf(buf, len,
                 "bm=%d,bn=%d,stages=%d,consumers=%d,pingpong=%d,colsplit=%d,cluster=%d,raster=%s,group=%d,"
                 "splits=%d,persistent=%d,reduce=%s,epi=%s,check=%s",
                 v->bm, v->bn, v->stages, v->consumers, v->pingpong, v->colsplit, v->cluster,
                 cfg->raster_n ? "n" : "m", cfg->group,
                 cfg->splits, cfg->persistent, cfg->splits == 1 ? "none" : cfg->serial ? "serial" : "kernel",
                 cfg->epi == MM_EPI_TMA ? "tma" : "direct", mm_check_name(c));
    }
    return buf;
}

typedef struct mm_ref_job {
    const double *a, *b;
    size_t n, k;
    const size_t *sample;
    double *out;
} mm_ref_job;

static void mm_ref_elements(void *arg, size_t j0, size_t j1)
{
    const mm_ref_job *m = arg;
    const size_t n = m->n, k = m->k;
    for (size_t j = j0; j < j1; j++) {
        const size_t e = m->sample ? m->sample[j] : j, r = e / n, col = e % n;
        const double *ar = m->a + r * k;
        double s = 0.0;
        for (size_t i = 0; i < k; i++)
            s += ar[i] * m->b[i * n + col];
        m->out[j] = s;
    }
}

/* Output elements on the host's threads, each its own dot product in k order (the same bits at any
   thread count); a chunk holds about 2^16 multiply-adds. */
void mm_reference(const klab_host *host, klab_ctx *ctx, const mm_case *c, const double *a, const double *b,
                  const size_t *sample, size_t count, double *out)
{
    mm_ref_job m = {a, b, (size_t)c->n, (size_t)c->k, sample, out};
    klab_parallel_for(host, ctx, count, m.k >= 65536 ? 1 : 65536 / (m.k ? m.k : 1), mm_ref_elements, &m);
}
