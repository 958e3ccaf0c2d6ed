/* matmul_h200 without a GPU: the float64 reference by hand, the sampled check finding one wrong
 * element among fresh samples (the host's sample_indices and verify_compare, as a verified run uses
 * them), the case's dims and refusals, the tuning spaces and own choices, and hopper_gemm's tile
 * scheduler covering every (tile, K range) exactly once for every raster order, cluster and split. */
#include <math.h>
#include <string.h>

#include "klab_test.h"

#include "hopper/hopper_sched.cuh"
#include "hopper/hopper_store.cuh"
#include "plugins/matmul_h200/matmul_h200.h"
#include "host/sample.h"
#include "host/verify.h"

static klab_case make_case(const char *name, const klab_dim *dims, int n)
{
    klab_case k;
    memset(&k, 0, sizeof k);
    k.struct_size = sizeof k;
    k.name = name;
    k.dtype = KLAB_BF16;
    k.nnamed = n;
    k.named = dims;
    return k;
}

static void test_reference_by_hand(void **state)
{
    (void)state;
    /* A = [1 2 3; 4 5 6], B = [1 0; 0 1; 2 -1]: C = [7 -1; 16 -1] */
    const double a[] = {1, 2, 3, 4, 5, 6}, b[] = {1, 0, 0, 1, 2, -1};
    const mm_case c = {2, 2, 3};
    double out[4];
    mm_reference(NULL, NULL, &c, a, b, NULL, 4, out);
    assert_true(out[0] == 7 && out[1] == -1 && out[2] == 16 && out[3] == -1);
    /* sampled: elements 3 and 1, in that order of the sample array */
    const size_t sample[] = {1, 3};
    mm_reference(NULL, NULL, &c, a, b, sample, 2, out);
    assert_true(out[0] == -1 && out[1] == -1);
    const size_t s2[] = {2};
    mm_reference(NULL, NULL, &c, a, b, s2, 1, out);
    assert_true(out[0] == 16);
}

/* A 96 x 80 x 64 product with one element of the "device" output wrong: sampled comparisons that draw
   it fail, naming it; those that do not pass; across fresh samples it is found. */
static void test_sampled_check_finds_one_wrong_element(void **state)
{
    (void)state;
    const mm_case c = {96, 80, 64};
    const size_t mn = 96 * 80, k = 512, wrong = 4321;
    double *a = malloc(sizeof(double) * 96 * 64), *b = malloc(sizeof(double) * 64 * 80);
    double *full = malloc(sizeof(double) * mn), *ref = malloc(sizeof(double) * k), *got = malloc(sizeof(double) * k);
    float *dev = malloc(sizeof(float) * mn);
    size_t *idx = malloc(sizeof(size_t) * k);
    assert_non_null(a && b && full && ref && got && dev && idx);
    for (size_t i = 0; i < 96 * 64; i++)
        a[i] = sin((double)i * 0.37);
    for (size_t i = 0; i < 64 * 80; i++)
        b[i] = cos((double)i * 0.11);
    mm_reference(NULL, NULL, &c, a, b, NULL, mn, full);
    for (size_t i = 0; i < mn; i++)
        dev[i] = (float)full[i];
    dev[wrong] += 3.0f;
    int found = 0, clean = 0;
    for (uint64_t run = 0; run < 64; run++) {
        assert_int_equal(sample_indices(12345, run, mn, k, idx), 0);
        mm_reference(NULL, NULL, &c, a, b, idx, k, ref);
        int drawn = 0;
        for (size_t j = 0; j < k; j++) {
            assert_true(ref[j] == full[idx[j]]); /* the same sums, in the same order */
            drawn |= idx[j] == wrong;
        }
        float *raw = malloc(sizeof(float) * k);
        for (size_t j = 0; j < k; j++)
            raw[j] = dev[idx[j]];
        verify_result r;
        verify_verdict v = verify_compare("c", ref, raw, KLAB_FP32, k, idx, 1e-5, &r);
        free(raw);
        if (drawn) {
            assert_int_equal(v, VERIFY_MISMATCH);
            assert_non_null(strstr(r.msg, "4321"));
            found++;
        } else {
            assert_int_equal(v, VERIFY_PASS);
            clean++;
        }
    }
    assert_true(found > 0 && clean > 0); /* 512 of 7680 a run: drawn about 1 run in 15 */
    free(a), free(b), free(full), free(ref), free(got), free(dev), free(idx);
}

static void test_case_dims(void **state)
{
    (void)state;
    char why[256];
    mm_case c;
    const klab_dim ok[] = {{"m", 4000}, {"n", 4000}, {"k", 4000}};
    klab_case k = make_case("odd-4000", ok, 3);
    assert_int_equal(mm_case_of(&k, &c, why, sizeof why), 0);
    assert_true(c.m == 4000 && c.n == 4000 && c.k == 4000);
    assert_int_equal(mm_tma_ok(&c, why, sizeof why), 1);

    const klab_dim no_k[] = {{"m", 64}, {"n", 64}};
    k = make_case("no-k", no_k, 2);
    assert_int_equal(mm_case_of(&k, &c, why, sizeof why), -1);
    assert_string_equal(why, "case 'no-k': dim.k is -1; it must be set, between 1 and 2^24");

    const klab_dim huge[] = {{"m", 1 << 20}, {"n", 1 << 20}, {"k", 16}};
    k = make_case("huge", huge, 3);
    assert_int_equal(mm_case_of(&k, &c, why, sizeof why), -1);
    assert_non_null(strstr(why, "past 2^31 elements"));

    const mm_case odd = {64, 64, 100};
    assert_int_equal(mm_tma_ok(&odd, why, sizeof why), 0);
    assert_non_null(strstr(why, "K = 100"));
}

static int text_ok(const char *s)
{
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || strchr("_=,.", *s)))
            return 0;
    return 1;
}

static void test_tuning_spaces(void **state)
{
    (void)state;
    const mm_case square = {4096, 4096, 4096}, decode = {16, 4096, 4096}, batch = {128, 14336, 4096};
    const int expect[MM_PROFILES] = {0, 0, 18, 56, 21, 0}; /* skinny: nothing fits M = 4096 */
    char buf[256];
    mm_config cfg;
    for (int p = 0; p < MM_PROFILES; p++) {
        int n = 0;
        while (mm_config_of(p, &square, n, &cfg)) {
            assert_true(cfg.variant >= 0 && cfg.variant < MM_VARIANTS);
            assert_true(cfg.splits >= 1 && cfg.splits <= MM_MAX_SPLITS && cfg.group >= 1);
            if (cfg.splits > 1)
                assert_true(mm_variants[cfg.variant].splitk); /* only those have the partial epilogue */
            if (cfg.epi == MM_EPI_TMA) /* only those have the staged one, and it writes whole tiles */
                assert_true(mm_epi_tma_ok(cfg.variant) && cfg.splits == 1);
            assert_true(text_ok(mm_config_format(p, &square, &cfg, buf, sizeof buf)));
            n++;
        }
        assert_int_equal(n, expect[p]);
        assert_int_equal(mm_config_of(p, &square, -1, &cfg), p >= MM_WGMMA);
        assert_true(text_ok(mm_config_format(p, &square, &cfg, buf, sizeof buf)));
    }
    /* every variant fits the 227 KB a block may have, barriers and alignment included; with epi=tma also
       a 1024-byte boundary and each consumer warpgroup's staging chunks (hg::smem_bytes) */
    for (int v = 0; v < MM_VARIANTS; v++) {
        const mm_variant *x = &mm_variants[v];
        const int smem = (x->bm + x->bn) * 128 * x->stages + 1024 + 16 * x->stages + 64;
        assert_true(smem <= 227 * 1024);
        if (mm_epi_tma_ok(v))
            assert_true(smem + 1024 + x->consumers * HG_STAGE_BUFS * HG_STAGE_BYTES <= 227 * 1024);
        assert_int_equal(x->bm % (64 * (x->pingpong || x->colsplit ? 1 : x->consumers)), 0);
        assert_true(!x->pingpong || (x->consumers == 2 && !x->splitk)); /* no serial split-K ping-pong */
        /* the column split: two consumers over one tile's columns, whole 64-column runs of MN-major B each,
           no serial split-K (its tickets count warpgroups by rows), never with ping-pong */
        assert_true(!x->colsplit || (x->consumers == 2 && !x->pingpong && !x->splitk && (x->bn / 2) % 64 == 0));
    }
    /* own choices: the square case a 128 x 256 tile, one CTA a tile; persistent, the 2-CTA cluster with the
       staged epilogue (the H200 tune's best after the cluster fence fix, 2026-11-22) */
    assert_int_equal(mm_config_of(MM_WGMMA, &square, -1, &cfg), 1);
    assert_int_equal(cfg.variant, MM_V128x256);
    assert_int_equal(mm_config_of(MM_PERSISTENT, &square, -1, &cfg), 1);
    assert_true(cfg.variant == MM_V128x256_C2 && cfg.persistent == 1 && cfg.epi == MM_EPI_TMA);
    assert_string_equal(mm_config_format(MM_PERSISTENT, &square, &cfg, buf, sizeof buf),
                        "bm=128,bn=256,stages=4,consumers=2,pingpong=0,colsplit=0,cluster=2,raster=m,group=8,splits=1,"
                        "persistent=1,"
                        "reduce=none,epi=tma,check=sampled_devfull");
    /* the staged epilogue beside the direct one at the same tile and raster (the persistent space's
       second half), and once in the one-CTA-a-tile space */
    assert_int_equal(mm_config_of(MM_PERSISTENT, &square, 28, &cfg), 1);
    assert_true(cfg.variant == MM_V128x256 && cfg.epi == MM_EPI_TMA && cfg.raster_n == 0 && cfg.group == 8);
    assert_non_null(strstr(mm_config_format(MM_PERSISTENT, &square, &cfg, buf, sizeof buf), ",epi=tma,"));
    assert_int_equal(mm_config_of(MM_WGMMA, &square, 15, &cfg), 1);
    assert_true(cfg.variant == MM_V128x256 && cfg.epi == MM_EPI_TMA);
    /* 256 x 128 in a 2-CTA cluster (cuBLAS's kernel name at square-4096 read as this tile), with each
       epilogue at the four rasters, persistent only: 4 stages (48 KB each) leave room for the staging
       chunks */
    int c2[2] = {0, 0};
    for (int i = 0; mm_config_of(MM_PERSISTENT, &square, i, &cfg); i++)
        c2[cfg.epi] += cfg.variant == MM_V256x128_C2;
    assert_true(c2[MM_EPI_DIRECT] == 4 && c2[MM_EPI_TMA] == 4);
    for (int i = 0; mm_config_of(MM_WGMMA, &square, i, &cfg); i++)
        assert_int_not_equal(cfg.variant, MM_V256x128_C2);
    assert_int_equal(mm_epi_tma_ok(MM_V256x128_C2), 1);
    assert_int_equal(mm_config_of(MM_PERSISTENT, &square, 44, &cfg), 1);
    assert_string_equal(mm_config_format(MM_PERSISTENT, &square, &cfg, buf, sizeof buf),
                        "bm=256,bn=128,stages=4,consumers=2,pingpong=0,colsplit=0,cluster=2,raster=m,group=8,splits=1,"
                        "persistent=1,reduce=none,epi=tma,check=sampled_devfull");
    /* the own tile with column-split consumers, cluster 1 and 2, staged epilogue, at the four rasters,
       persistent only (cuBLAS's split of the same tile) */
    int cs[2] = {0, 0};
    for (int i = 0; mm_config_of(MM_PERSISTENT, &square, i, &cfg); i++)
        if (mm_variants[cfg.variant].colsplit) {
            const mm_variant *v = &mm_variants[cfg.variant];
            assert_true(cfg.epi == MM_EPI_TMA && v->bm == 128 && v->bn == 256);
            cs[v->cluster - 1]++;
        }
    assert_true(cs[0] == 4 && cs[1] == 4);
    for (int i = 0; mm_config_of(MM_WGMMA, &square, i, &cfg); i++)
        assert_false(mm_variants[cfg.variant].colsplit);
    assert_int_equal(mm_config_of(MM_PERSISTENT, &square, 52, &cfg), 1);
    assert_string_equal(mm_config_format(MM_PERSISTENT, &square, &cfg, buf, sizeof buf),
                        "bm=128,bn=256,stages=4,consumers=2,pingpong=0,colsplit=1,cluster=2,raster=m,group=8,splits=1,"
                        "persistent=1,reduce=none,epi=tma,check=sampled_devfull");
    /* skinny: 16 x 4096 has 32 tiles of 64 x 128, split 4 ways to 128 units, one wave of 132 SMs (8
       ways made 256 units, two waves); 128 x 14336 has 112 of 128 x 128: 2 splits would make two
       waves, so none; the square case needs no split */
    assert_int_equal(mm_config_of(MM_SPLITK, &decode, -1, &cfg), 1);
    assert_true(cfg.variant == MM_V64x128 && cfg.splits == 4 && cfg.serial == 0); /* the H200 tune's best */
    assert_string_equal(mm_config_format(MM_SPLITK, &decode, &cfg, buf, sizeof buf),
                        "bm=64,bn=128,stages=8,consumers=1,pingpong=0,colsplit=0,cluster=1,raster=m,group=8,splits=4,"
                        "persistent=0,"
                        "reduce=kernel,epi=direct,check=sampled");
    /* the space: serial at several split counts, persistent ones, one kernel reduction a variant */
    assert_int_equal(mm_config_of(MM_SPLITK, &decode, 0, &cfg), 1);
    assert_true(cfg.serial == 1 && cfg.splits == 2 && cfg.variant == MM_V64x128 && !cfg.persistent);
    assert_int_equal(mm_config_of(MM_SPLITK, &decode, 6, &cfg), 1);
    assert_true(cfg.serial == 1 && cfg.splits == 8 && cfg.persistent == 1);
    assert_non_null(strstr(mm_config_format(MM_SPLITK, &decode, &cfg, buf, sizeof buf), "persistent=1"));
    assert_int_equal(mm_config_of(MM_SPLITK, &decode, 20, &cfg), 1);
    assert_true(cfg.serial == 0 && cfg.splits == 2 && cfg.variant == MM_V128x128);
    assert_non_null(strstr(mm_config_format(MM_SPLITK, &decode, &cfg, buf, sizeof buf), "reduce=kernel"));
    /* tickets: 2 a tile of the smallest split-K tile, 64 x 128: 16 x 4096 has 32 such tiles */
    assert_int_equal(mm_tickets(&decode), 64);
    assert_int_equal(mm_tickets(&square), 2 * 64 * 32);
    assert_int_equal(mm_config_of(MM_SPLITK, &batch, -1, &cfg), 1);
    assert_true(cfg.variant == MM_V128x128 && cfg.splits == 1);
    assert_int_equal(mm_config_of(MM_SPLITK, &square, -1, &cfg), 1);
    assert_int_equal(cfg.splits, 1);
    assert_int_equal(mm_workspace(&square, &cfg), 0);
    /* the checks each row names */
    const mm_case small = {128, 128, 128};
    assert_string_equal(mm_check_name(&small), "full");
    assert_string_equal(mm_check_name(&decode), "sampled");
    assert_string_equal(mm_check_name(&square), "sampled_devfull");
    assert_int_equal(mm_config_format(MM_CUBLAS, &small, &cfg, buf, sizeof buf) == buf, 1);
    assert_string_equal(buf, "gemmex,row_major_as_col_major_nn,compute=32f,check=full");
}

/* skinny: the space holds only what fits the case, v2's rings, v1's batches, then v3's TMA rings; the own
   choice (the H200's best, 2026-11-22) fits every decode shape it is meant for, one CTA an SM at most: v3
   where its 2-split CTAs fit one wave and K <= 4096, else v1; v2 where v1's shapes do not divide K; v3
   where N is no multiple of 64; the rest is declined with a reason. */
static void test_skinny_space(void **state)
{
    (void)state;
    char buf[256], why[256];
    mm_config cfg;
    const mm_case decode = {16, 4096, 4096};
    assert_int_equal(mm_config_of(MM_SKINNY, &decode, -1, &cfg), 1);
    /* 64 slices x 2 = 128 CTAs in one wave, 2048 rows of K a split: v3 at 8 stages */
    assert_true(cfg.stages == 8 && cfg.splits == 2 && cfg.prefetch == 0 && cfg.warps == 0);
    assert_string_equal(mm_config_format(MM_SKINNY, &decode, &cfg, buf, sizeof buf),
                        "stages=8,splits=2,prefetch=0,mma=wgmma,check=sampled");
    /* every configuration fits 16 x 4096 x 4096: 18 v2 (splits x 6 rings), 8 v1 (8 and 16 warps), then 18 v3
       (splits x stages x prefetch), each distinct */
    int n = 0, v1 = 0, v3 = 0, seen[16][3][17][5] = {{{{0}}}}, seen3[3][17][2] = {{{0}}};
    while (mm_config_of(MM_SKINNY, &decode, n, &cfg)) {
        assert_int_equal(mm_skinny_fits(&decode, &cfg, why, sizeof why), 1);
        assert_true(text_ok(mm_config_format(MM_SKINNY, &decode, &cfg, buf, sizeof buf)));
        if (cfg.stages) {
            assert_true(n >= 26 && cfg.warps == 0 && cfg.ring == 0 && cfg.unroll == 0); /* v3 last */
            assert_true(cfg.prefetch == (n >= 35));
            assert_int_equal(seen3[cfg.splits / 2][cfg.stages][cfg.prefetch]++, 0);
            v3++, n++;
            continue;
        }
        assert_true(cfg.ring ? cfg.unroll == 0 : cfg.warps == (n < 22 ? 8 : 16));
        assert_true(cfg.ring ? n < 18 : n >= 18); /* v2 first */
        assert_true(cfg.ring ? cfg.warps * cfg.ring <= 64 : 1);  /* rings within 160 KB */
        v1 += !cfg.ring;
        assert_int_equal(seen[cfg.warps - 1][cfg.splits / 2][cfg.ring][cfg.unroll]++, 0);
        n++;
    }
    assert_int_equal(n, 44);
    assert_int_equal(v1, 8);
    assert_int_equal(v3, 18);
    assert_int_equal(mm_config_of(MM_SKINNY, &decode, 26 + 4, &cfg), 1);
    assert_string_equal(mm_config_format(MM_SKINNY, &decode, &cfg, buf, sizeof buf),
                        "stages=8,splits=2,prefetch=0,mma=wgmma,check=sampled");
    assert_int_equal(mm_config_of(MM_SKINNY, &decode, 21, &cfg), 1);
    assert_string_equal(mm_config_format(MM_SKINNY, &decode, &cfg, buf, sizeof buf),
                        "warps=8,splits=2,unroll=2,check=sampled");
    /* 16 x 256 x 512, 32 k16 steps: 16 warps x 4 splits does not divide, nor v1's 2 steps a warp by 4, nor
       v1's 16 warps at 2 splits (one step a warp) */
    const mm_case small = {16, 256, 512};
    for (n = 0; mm_config_of(MM_SKINNY, &small, n, &cfg); n++)
        assert_int_equal(mm_skinny_fits(&small, &cfg, why, sizeof why), 1);
    assert_int_equal(n, 21 + 18); /* v3: 8 K tiles take every split */
    /* the own choice at M = 1, 8, 16 with N = 4096, 14336 and K = 4096, 14336: v3 at 4096 x 4096, else v1 at
       unroll 2, one wave */
    const int ms[] = {1, 8, 16}, sizes[] = {4096, 14336};
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 2; j++)
            for (int k = 0; k < 2; k++) {
                const mm_case c = {ms[i], sizes[j], sizes[k]};
                assert_int_equal(mm_config_of(MM_SKINNY, &c, -1, &cfg), 1);
                assert_int_equal(mm_skinny_fits(&c, &cfg, why, sizeof why), 1);
                if (c.n == 4096 && c.k == 4096) {
                    assert_true(cfg.stages == 8 && cfg.splits == 2);
                    continue;
                }
                /* 16 warps where the CTAs are one an SM (4096 columns at 2 splits), 8 at two an SM */
                assert_true(cfg.stages == 0 && cfg.ring == 0 && cfg.warps == (c.n == 4096 ? 16 : 8) && cfg.unroll == 2);
                const int64_t ctas = c.n / MM_SKINNY_COLS * cfg.splits;
                assert_true(cfg.splits == 1 || ctas <= 132);
                assert_true(ctas >= 128); /* every SM (all but 4) streams */
            }
    const mm_case up = {16, 14336, 4096}, down = {8, 4096, 14336};
    assert_int_equal(mm_config_of(MM_SKINNY, &up, -1, &cfg), 1);
    assert_true(cfg.warps == 8 && cfg.splits == 1 && cfg.ring == 0); /* 224 CTAs already */
    assert_int_equal(mm_config_of(MM_SKINNY, &down, -1, &cfg), 1);
    assert_true(cfg.warps == 16 && cfg.splits == 2 && cfg.ring == 0); /* 28 steps a warp */
    /* the GPU test's small cases (tests/gpu/ini/matmul_h200.ini): too few slices for 132 SMs, K <= 4096:
       v3 at 2 splits */
    const mm_case g16 = {16, 256, 512}, g5 = {5, 192, 1024}, g1 = {1, 64, 4096};
    assert_int_equal(mm_config_of(MM_SKINNY, &g16, -1, &cfg), 1);
    assert_true(cfg.stages == 8 && cfg.splits == 2 && mm_skinny_fits(&g16, &cfg, why, sizeof why));
    assert_int_equal(mm_config_of(MM_SKINNY, &g5, -1, &cfg), 1);
    assert_true(cfg.stages == 8 && cfg.splits == 2 && mm_skinny_fits(&g5, &cfg, why, sizeof why));
    assert_int_equal(mm_config_of(MM_SKINNY, &g1, -1, &cfg), 1);
    assert_true(cfg.stages == 8 && cfg.splits == 2 && mm_skinny_fits(&g1, &cfg, why, sizeof why));
    /* K = 2176 = 17 x 128 is v3's (34 K tiles, within 4096). K = 6528 = 51 x 128 is past it, and v1 does
       not divide it (51 steps a warp at 8 warps and 1 split, odd; the rest leave half steps), so v2: 8
       warps at 2 splits do not divide either, 4 warps (51 steps a warp) with twice the ring do */
    const mm_case k2176 = {16, 4096, 2176}, k6528 = {16, 4096, 6528};
    assert_int_equal(mm_config_of(MM_SKINNY, &k2176, -1, &cfg), 1);
    assert_true(cfg.stages == 8 && cfg.splits == 2);
    assert_int_equal(mm_config_of(MM_SKINNY, &k6528, -1, &cfg), 1);
    assert_true(cfg.stages == 0 && cfg.warps == 4 && cfg.splits == 2 && cfg.ring == 16);
    /* declines: the own choice stays (its row says why), the space is empty */
    const mm_case m17 = {17, 4096, 4096}, n4000 = {16, 4000, 4096};
    assert_int_equal(mm_config_of(MM_SKINNY, &m17, -1, &cfg), 1);
    assert_int_equal(mm_skinny_fits(&m17, &cfg, why, sizeof why), 0);
    assert_string_equal(why, "M = 17: skinny takes M <= 16 (one or two 8-token MMA tiles)");
    assert_int_equal(mm_config_of(MM_SKINNY, &m17, 0, &cfg), 0);
    /* N = 4000: v1 and v2 decline, v3 takes it (63 slices x 2 splits within 132 CTAs), its edge masked */
    assert_int_equal(mm_config_of(MM_SKINNY, &n4000, -1, &cfg), 1);
    assert_int_equal(mm_skinny_fits(&n4000, &cfg, why, sizeof why), 1);
    assert_string_equal(mm_config_format(MM_SKINNY, &n4000, &cfg, buf, sizeof buf),
                        "stages=8,splits=2,prefetch=0,mma=wgmma,check=sampled");
    for (n = 0; mm_config_of(MM_SKINNY, &n4000, n, &cfg); n++)
        assert_true(cfg.stages > 0);
    assert_int_equal(n, 18);
    cfg = (mm_config){.warps = 8, .splits = 2, .unroll = 2};
    assert_int_equal(mm_skinny_fits(&n4000, &cfg, why, sizeof why), 0);
    assert_string_equal(why, "N = 4000: skinny takes N a multiple of 64 (the columns a warp owns)");
    /* N = 4004: no row of 16 bytes for the copy engine either: declined, the space empty */
    const mm_case n4004 = {16, 4004, 4096};
    assert_int_equal(mm_config_of(MM_SKINNY, &n4004, -1, &cfg), 1);
    assert_int_equal(mm_skinny_fits(&n4004, &cfg, why, sizeof why), 0);
    assert_string_equal(why, "N = 4004: skinny takes N a multiple of 64 (the columns a warp owns)");
    assert_int_equal(mm_config_of(MM_SKINNY, &n4004, 0, &cfg), 0);
    cfg = (mm_config){.splits = 1, .stages = 8};
    assert_int_equal(mm_skinny_fits(&n4004, &cfg, why, sizeof why), 0);
    assert_string_equal(why, "N = 4004, K = 4096: skinny v3 takes N and K multiples of 8 (TMA rows of 16 bytes)");
    const mm_case k128 = {16, 64, 128};
    cfg = (mm_config){.splits = 4, .stages = 8};
    assert_int_equal(mm_skinny_fits(&k128, &cfg, why, sizeof why), 0);
    assert_string_equal(why, "K = 128 has 2 K tiles of 64 rows, fewer than splits=4");
    cfg = (mm_config){.splits = 1, .stages = 12};
    assert_int_equal(mm_skinny_fits(&k128, &cfg, why, sizeof why), 0);
    assert_string_equal(why, "stages=12: skinny v3 has stages 4, 8 or 16");
    cfg = (mm_config){.warps = 16, .splits = 4, .ring = 4};
    assert_int_equal(mm_skinny_fits(&small, &cfg, why, sizeof why), 0);
    assert_string_equal(why, "K = 512 is not a multiple of 16 x 16 warps x 4 splits (whole k16 steps a warp)");
    cfg = (mm_config){.warps = 8, .splits = 8, .ring = 8};
    assert_int_equal(mm_skinny_fits(&decode, &cfg, why, sizeof why), 0);
    assert_string_equal(why, "splits=8: skinny has splits 1, 2 or 4 (the cluster size)");
    cfg = (mm_config){.warps = 8, .splits = 1, .ring = 16}; /* 320 KB of rings */
    assert_int_equal(mm_skinny_fits(&decode, &cfg, why, sizeof why), 0);
    assert_non_null(strstr(why, "warps=8,ring=16: skinny v2 has (warps, ring) (8, 8), "));
    const mm_case k1536n = {16, 64, 1536};
    cfg = (mm_config){.warps = 8, .splits = 4, .unroll = 2};
    assert_int_equal(mm_skinny_fits(&k1536n, &cfg, why, sizeof why), 0);
    assert_string_equal(why, "K = 1536 gives each warp 3 k16 steps, not a multiple of unroll=2");
    cfg = (mm_config){.warps = 4, .splits = 1, .unroll = 4};
    assert_int_equal(mm_skinny_fits(&decode, &cfg, why, sizeof why), 0);
    assert_string_equal(why, "warps=4,unroll=4: skinny v1 (ring=0) has warps 8 or 16, unroll 2 or 4");
}

/* A ping-pong consumer skipping the other's unit lands where stepping through it would. */
static void test_ring_advance(void **state)
{
    (void)state;
    for (int stages = 3; stages <= 8; stages++)
        for (int start = 0; start < 2 * stages; start++)
            for (int n = 1; n <= 3 * stages + 1; n++) {
                int s0 = start % stages, p0 = (start / stages) & 1, s1 = s0, p1 = p0;
                hg_ring_advance(&s0, &p0, n, stages);
                for (int i = 0; i < n; i++)
                    if (++s1 == stages)
                        s1 = 0, p1 ^= 1;
                assert_int_equal(s0, s1);
                assert_int_equal(p0, p1);
            }
}

/* Every (tile m, tile n, split) exactly once over the units, and every K tile in exactly one split. */
static void check_cover(int M, int N, int K, int bm, int bn, int cluster, int splits, int group, int raster_n)
{
    const hg_problem p = hg_problem_of(M, N, K, bm, bn, 64, cluster, splits, group, raster_n);
    assert_int_equal(p.units, p.tiles_m * p.tiles_n * p.splits);
    assert_true(p.tiles_m * cluster * bm >= M && (p.tiles_m - 1) * cluster * bm < M);
    int *seen = calloc((size_t)p.units, sizeof *seen);
    assert_non_null(seen);
    for (int u = 0; u < p.units; u++) {
        int tm, tn, s;
        hg_unit_tile(&p, u, &tm, &tn, &s);
        assert_true(tm >= 0 && tm < p.tiles_m && tn >= 0 && tn < p.tiles_n && s >= 0 && s < p.splits);
        seen[(s * p.tiles_n + tn) * p.tiles_m + tm]++;
    }
    for (int i = 0; i < p.units; i++)
        assert_int_equal(seen[i], 1);
    free(seen);
    int next = 0;
    for (int s = 0; s < p.splits; s++) {
        int kb, ke;
        hg_split_range(&p, s, &kb, &ke);
        assert_int_equal(kb, next);
        assert_true(ke >= kb);
        next = ke;
    }
    assert_int_equal(next, p.k_tiles);
}

static void test_scheduler_covers_every_tile_once(void **state)
{
    (void)state;
    const int shapes[][3] = {{4000, 4000, 4000}, {16, 4096, 4096}, {128, 14336, 4096}, {8192, 8192, 8192},
                             {200, 136, 328}, {1, 8, 8}};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
        for (int cluster = 1; cluster <= 2; cluster++)
            for (int raster = 0; raster <= 1; raster++)
                for (int group = 1; group <= 16; group *= 4)
                    for (int splits = 1; splits <= 16; splits *= 4) {
                        check_cover(shapes[i][0], shapes[i][1], shapes[i][2], 128, 256, cluster, splits, group, raster);
                        check_cover(shapes[i][0], shapes[i][1], shapes[i][2], 64, 128, cluster, splits, group, raster);
                    }
    /* more splits than K tiles: clamped, no empty split */
    const hg_problem p = hg_problem_of(64, 64, 100, 64, 64, 64, 1, 16, 8, 0);
    assert_int_equal(p.splits, 2);
    /* grouped raster: the first `group` units walk down M in the first column of N tiles */
    const hg_problem q = hg_problem_of(1024, 1024, 64, 128, 128, 64, 1, 1, 4, 0);
    for (int u = 0; u < 4; u++) {
        int tm, tn, s;
        hg_unit_tile(&q, u, &tm, &tn, &s);
        assert_true(tm == u && tn == 0 && s == 0);
    }
    int tm, tn, s;
    hg_unit_tile(&q, 4, &tm, &tn, &s);
    assert_true(tm == 0 && tn == 1);
}

/* The staged epilogue's map (hopper_store.cuh), as the device code uses it: for every thread of a
   consumer warpgroup and every fragment pair of a 64-column chunk, stmatrix puts the pair at the byte
   where the TMA store, reading the chunk with its 128-byte swizzle, takes output (row, col) from — the
   fragment's own (row, col) (hopper_gemm.cuh's map, written out here apart from the code) — and every
   8-lane phase of an stmatrix writes 8 rows of 16 bytes on 32 distinct banks. */
static void test_staged_epilogue_map(void **state)
{
    (void)state;
    static unsigned char hit[HG_STAGE_BYTES];
    memset(hit, 0, sizeof hit);
    for (int j = 0; j < 2; j++) /* two chunks of one tile: the same layout, other fragment indices */
        for (int warp = 0; warp < 4; warp++)
            for (int lane = 0; lane < 32; lane++)
                for (int q = 0; q < 4; q++)
                    for (int r = 0; r < 4; r++) {
                        const int i = hg_stage_frag(j, q, r);
                        /* the fragment pair (i, i + 1) of this thread */
                        const int row = 16 * warp + lane / 4 + 8 * ((i / 2) % 2);
                        const int col = 8 * (i / 4) + 2 * (lane % 4) - 64 * j;
                        assert_true(row >= 0 && row < HG_STAGE_ROWS && col >= 0 && col + 1 < HG_STAGE_COLS);
                        /* stmatrix: register r of every lane is matrix r, whose row lane/4 lane 8 r + lane/4
                           addresses; the lane's pair is bytes 4 (lane % 4) .. + 3 of that row */
                        const int at = hg_stsm_addr(warp, 8 * r + lane / 4, q) + 4 * (lane % 4);
                        /* where the TMA store reads (row, col): the 16-byte unit col / 8 XOR row % 8 */
                        const int tma = row * 128 + ((((col * 2) / 16) ^ (row % 8)) * 16) + (col * 2) % 16;
                        assert_int_equal(at, tma);
                        if (j == 0) {
                            hit[at]++;
                            hit[at + 2]++;
                        }
                    }
    for (int b = 0; b < HG_STAGE_BYTES; b += 2) /* each 16-bit element of the chunk written once */
        assert_int_equal(hit[b], 1);
    for (int warp = 0; warp < 4; warp++)
        for (int q = 0; q < 4; q++)
            for (int m = 0; m < 4; m++) {
                unsigned banks = 0; /* 4-byte banks: a 16-byte row covers 4 of the 32 */
                for (int k = 0; k < 8; k++) {
                    const int a = hg_stsm_addr(warp, 8 * m + k, q);
                    assert_int_equal(a % 16, 0);
                    const unsigned bits = 0xfu << ((a / 4) % 32);
                    assert_int_equal(banks & bits, 0);
                    banks |= bits;
                }
                assert_int_equal(banks, 0xffffffffu);
            }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reference_by_hand),
        cmocka_unit_test(test_sampled_check_finds_one_wrong_element),
        cmocka_unit_test(test_case_dims),
        cmocka_unit_test(test_tuning_spaces),
        cmocka_unit_test(test_skinny_space),
        cmocka_unit_test(test_scheduler_covers_every_tile_once),
        cmocka_unit_test(test_ring_advance),
        cmocka_unit_test(test_staged_epilogue_map),
    };
    KLAB_RUN_TESTS(tests);
}
