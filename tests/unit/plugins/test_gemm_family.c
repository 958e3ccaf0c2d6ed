/* The GEMM-family plugins' float64 references and case shapes, by hand: fp8_gemm's TN GEMM (whole and
 * sampled) and its dimensions and refusals; fused_gated_mlp's activations (SiLU, exact GELU), its
 * reference and its refusals; both wgmma tuning spaces (names unique and well formed, the own choice one
 * of them, skinny shapes on 64-row tiles). Pure CPU. */
#include <math.h>
#include <string.h>

#include "klab_test.h"

#include "plugins/fp8_gemm/fp8_gemm.h"
#include "plugins/fused_gated_mlp/fused_gated_mlp.h"

/* A case with named dims only (rank 0), as the INI's dim.NAME keys make it, and up to one param. */
typedef struct dim_case {
    klab_case k;
    klab_dim dims[3];
    klab_param param;
} dim_case;

static const klab_case *dcase(dim_case *c, const char *n0, int64_t v0, const char *n1, int64_t v1, const char *n2,
                              int64_t v2, const char *pk, const char *pv)
{
    memset(c, 0, sizeof *c);
    c->dims[0] = (klab_dim){n0, v0};
    c->dims[1] = (klab_dim){n1, v1};
    c->dims[2] = (klab_dim){n2, v2};
    c->param = (klab_param){pk, pv};
    c->k.struct_size = sizeof(klab_case);
    c->k.name = "t";
    c->k.dtype = KLAB_FP8_E4M3;
    c->k.nnamed = n2 ? 3 : n1 ? 2 : 1;
    c->k.named = c->dims;
    c->k.nparams = pk ? 1 : 0;
    c->k.params = &c->param;
    c->k.steps = 1;
    return &c->k;
}

static void test_gemm_tn_by_hand(void **state)
{
    (void)state;
    /* X 2 x 3, W 2 x 3: D[r][c] = X row r . W row c */
    const double x[6] = {1, 2, 3, -1, 0, 2}, w[6] = {1, 0, 0, 0.5, 1, -1};
    double d[4];
    gemm_reference_tn(NULL, NULL, x, w, 2, 2, 3, NULL, 0, d);
    assert_float_equal(d[0], 1, 0);
    assert_float_equal(d[1], -0.5, 0);
    assert_float_equal(d[2], -1, 0);
    assert_float_equal(d[3], -2.5, 0);
    /* sampled: only elements 3 and 1, in that order of the sample */
    const size_t sample[2] = {1, 3};
    double s[2];
    gemm_reference_tn(NULL, NULL, x, w, 2, 2, 3, sample, 2, s);
    assert_float_equal(s[0], -0.5, 0);
    assert_float_equal(s[1], -2.5, 0);
}

static void test_fp8_gemm_shapes(void **state)
{
    (void)state;
    dim_case c;
    fp8_gemm_shape s;
    char why[512];
    assert_int_equal(fp8_gemm_shape_of(dcase(&c, "m", 64, "n", 7168, "k", 4096, NULL, NULL), &s, why, sizeof why), 0);
    assert_int_equal(s.m, 64);
    assert_int_equal(s.n, 7168);
    assert_int_equal(s.k, 4096);
    assert_int_equal(s.fast_accum, 1);
    assert_int_equal(fp8_gemm_shape_of(dcase(&c, "m", 8, "n", 8, "k", 32, "fast_accum", "0"), &s, why, sizeof why), 0);
    assert_int_equal(s.fast_accum, 0);
    assert_int_equal(fp8_gemm_shape_of(dcase(&c, "m", 8, "n", 8, NULL, 0, NULL, NULL), &s, why, sizeof why), -1);
    assert_non_null(strstr(why, "dim.k is not set"));
    assert_int_equal(fp8_gemm_shape_of(dcase(&c, "m", 8, "n", 8, "k", 40, NULL, NULL), &s, why, sizeof why), -1);
    assert_non_null(strstr(why, "dim.k is 40; it must be a multiple of 16"));
    assert_int_equal(fp8_gemm_shape_of(dcase(&c, "m", 0, "n", 8, "k", 32, NULL, NULL), &s, why, sizeof why), -1);
    assert_non_null(strstr(why, "dim.m is 0; it must be from 1"));
    assert_int_equal(fp8_gemm_shape_of(dcase(&c, "m", 8, "n", 8, "k", 32, "fast_accum", "yes"), &s, why, sizeof why),
                     -1);
    assert_non_null(strstr(why, "param.fast_accum is 'yes'"));
}

static void test_activations_by_hand(void **state)
{
    (void)state;
    assert_float_equal(gated_mlp_act(GM_SILU, 0, 5), 0, 0);
    assert_float_equal(gated_mlp_act(GM_SILU, 1, 2), 2 / (1 + exp(-1.0)), 1e-15);
    assert_float_equal(gated_mlp_act(GM_SILU, -800, 1), 0, 1e-300); /* e^800 is inf: -800 / inf */
    /* GELU(1) = Phi(1) = 0.8413447460685429; GELU(-1) = -(1 - Phi(1)) */
    assert_float_equal(gated_mlp_act(GM_GELU, 1, 1), 0.8413447460685429, 1e-15);
    assert_float_equal(gated_mlp_act(GM_GELU, -1, 2), -2 * (1 - 0.8413447460685429), 1e-15);
    assert_int_equal(gated_mlp_activation("silu"), GM_SILU);
    assert_int_equal(gated_mlp_activation("gelu"), GM_GELU);
    assert_int_equal(gated_mlp_activation("relu"), -1);
}

static void test_gated_mlp_reference(void **state)
{
    (void)state;
    /* m 1, k 2, f 2: gate = [1, -1], up = [2, 3] */
    const double x[2] = {1, 1}, wg[4] = {0.5, 0.5, -1, 0}, wu[4] = {1, 1, 1, 2};
    gated_mlp_shape s = {.m = 1, .k = 2, .f = 2, .act = GM_SILU};
    double out[2];
    assert_int_equal(gated_mlp_reference(NULL, NULL, &s, x, wg, wu, NULL, 0, out), 0);
    assert_float_equal(out[0], 2 / (1 + exp(-1.0)), 1e-15);
    assert_float_equal(out[1], 3 * -1 / (1 + exp(1.0)), 1e-15);
    s.act = GM_GELU;
    const size_t sample[1] = {1};
    assert_int_equal(gated_mlp_reference(NULL, NULL, &s, x, wg, wu, sample, 1, out), 0);
    assert_float_equal(out[0], 3 * -(1 - 0.8413447460685429), 1e-15);
}

static void test_gated_mlp_shapes(void **state)
{
    (void)state;
    dim_case c;
    gated_mlp_shape s;
    char why[512];
    assert_int_equal(gated_mlp_shape_of(dcase(&c, "m", 1, "k", 4096, "f", 14336, NULL, NULL), &s, why, sizeof why), 0);
    assert_int_equal(s.m, 1);
    assert_int_equal(s.f, 14336);
    assert_int_equal(s.act, GM_SILU);
    assert_int_equal(
        gated_mlp_shape_of(dcase(&c, "m", 3, "k", 16, "f", 24, "activation", "gelu"), &s, why, sizeof why), 0);
    assert_int_equal(s.act, GM_GELU);
    assert_int_equal(gated_mlp_shape_of(dcase(&c, "m", 3, "k", 16, "f", 20, NULL, NULL), &s, why, sizeof why), -1);
    assert_non_null(strstr(why, "dim.f is 20; it must be a multiple of 8"));
    assert_int_equal(gated_mlp_shape_of(dcase(&c, "m", 3, "k", 16, NULL, 0, NULL, NULL), &s, why, sizeof why), -1);
    assert_non_null(strstr(why, "dim.f is not set"));
    assert_int_equal(
        gated_mlp_shape_of(dcase(&c, "m", 3, "k", 16, "f", 24, "activation", "relu"), &s, why, sizeof why), -1);
    assert_non_null(strstr(why, "param.activation is 'relu'; it must be silu or gelu"));
}

/* Names of [a-z0-9=,.] only, unique; NULL past the last. Returns the space's size. */
static int check_names(const char *(*hook)(const klab_case *, int), const klab_case *k)
{
    int n = 0;
    while (hook(k, n))
        n++;
    for (int i = 0; i < n; i++) {
        const char *a = hook(k, i);
        assert_int_equal(strspn(a, "abcdefghijklmnopqrstuvwxyz0123456789=,."), strlen(a));
        for (int j = 0; j < i; j++)
            assert_string_not_equal(a, hook(k, j));
    }
    return n;
}

static int index_of(const char *(*hook)(const klab_case *, int), const klab_case *k, const char *name)
{
    for (int i = 0; hook(k, i); i++)
        if (!strcmp(hook(k, i), name))
            return i;
    return -1;
}

static void test_fp8_wgmma_space(void **state)
{
    (void)state;
    dim_case c;
    const klab_case *big = dcase(&c, "m", 8192, "n", 8192, "k", 8192, NULL, NULL);
    assert_int_equal(check_names(fw_config_hook, big), 22);
    /* the own choice: the H200 tune's best, the 2-CTA cluster, persistent, with the staged epilogue */
    assert_string_equal(fw_config_hook(big, -1), "tile=128x256,cluster=2,persistent=1,splits=1,epi=tma");
    /* the staged epilogue: 128 x 256 per-tensor tiles without split-K, last in the space */
    assert_string_equal(fw_config_hook(big, 13), "tile=128x256,cluster=1,persistent=1,splits=1,epi=tma");
    /* D's rows not whole 16-byte vectors (n not a multiple of 8): no TMA store map, so the own choice is
       the same tiles writing directly, never a configuration fp8_gemm_wgmma.cu would decline */
    dim_case c3;
    const klab_case *odd_n = dcase(&c3, "m", 4096, "n", 4100, "k", 4096, NULL, NULL);
    assert_string_equal(fw_config_hook(odd_n, -1), "tile=128x256,cluster=2,persistent=1,splits=1,epi=direct");
    for (long n = 4088; n <= 4104; n++) {
        const fp8_gemm_shape o = {.m = 4096, .n = n, .k = 4096, .fast_accum = 1};
        fw_config of;
        assert_int_equal(fw_config_of(&o, FW_TENSOR, -1, &of), 0);
        assert_int_equal(of.epi, n % 8 == 0);
        assert_int_equal(of.variant, FW_128x256_C2);
        assert_int_equal(of.persistent, 1);
    }
    fp8_gemm_shape sh = {.m = 64, .n = 7168, .k = 4096, .fast_accum = 1};
    fw_config fc;
    assert_int_equal(fw_config_of(&sh, FW_TENSOR, -1, &fc), 0);
    /* 112 tiles of 64 x 64 fill most of 132 SMs without a split: the H200 tune's best there */
    assert_int_equal(fc.variant, FW_64x64);
    assert_int_equal(fc.splits, 1);
    assert_int_equal(fc.persistent, 1);
    assert_int_equal(fw_tickets(&sh), 2 * 56);
    const klab_case *skinny = dcase(&c, "m", 64, "n", 7168, "k", 4096, NULL, NULL);
    assert_string_equal(fw_config_hook(skinny, -1), "tile=64x64,cluster=1,persistent=1,splits=1,epi=direct");
    assert_int_equal(index_of(fw_config_hook, skinny, fw_config_hook(skinny, -1)), 21);
    assert_string_equal(fw_config_hook(skinny, 11),
                        "tile=64x128,cluster=1,persistent=0,splits=4,epi=direct,reduce=kernel");
    assert_string_equal(fw_config_hook(skinny, 15),
                        "tile=64x128,cluster=1,persistent=0,splits=2,epi=direct,reduce=serial");
    /* fewer tiles: 64 x 128 split 4 ways while they stay in one wave and keep 4 K tiles a split, the
       partials summed by a second kernel; 2 ways, then none, as K shortens */
    const fp8_gemm_shape narrow = {.m = 64, .n = 4096, .k = 4096, .fast_accum = 1};
    assert_int_equal(fw_config_of(&narrow, FW_TENSOR, -1, &fc), 0);
    assert_int_equal(fc.variant, FW_64x128);
    assert_int_equal(fc.splits, 4);
    assert_int_equal(fc.serial, 0);
    assert_int_equal(fw_workspace_bytes(&narrow, &fc), 4 * 64 * 4096 * sizeof(float));
    const fp8_gemm_shape mid_k = {.m = 64, .n = 4096, .k = 1024, .fast_accum = 1};
    assert_int_equal(fw_config_of(&mid_k, FW_TENSOR, -1, &fc), 0);
    assert_int_equal(fc.splits, 2);
    const fp8_gemm_shape short_k = {.m = 64, .n = 4096, .k = 512, .fast_accum = 1};
    assert_int_equal(fw_config_of(&short_k, FW_TENSOR, -1, &fc), 0);
    assert_int_equal(fc.splits, 1);
    const fp8_gemm_shape wide = {.m = 128, .n = 8192, .k = 4096, .fast_accum = 1};
    assert_int_equal(fw_config_of(&wide, FW_TENSOR, -1, &fc), 0);
    assert_int_equal(fc.variant, FW_64x64); /* 256 tiles of 64 x 64 */
    assert_int_equal(fw_config_of(&sh, FW_TENSOR, 22, &fc), -1);
    /* the table's tiles are the instantiated ones (fp8_gemm_wgmma.cu checks each against its Config) */
    for (int sc = FW_TENSOR; sc <= FW_BLOCK; sc++)
        for (int i = 0; fw_config_of(&sh, (fw_scaling)sc, i, &fc) == 0; i++) {
            const fw_variant *v = &fw_variants[fc.variant];
            assert_int_equal(v->bm, 64 * v->consumers * (v->bm / (64 * v->consumers)));
            assert_true(fc.splits == 1 || (v->consumers == 1 && !v->block));
            assert_true(fc.splits <= FW_MAX_SPLITS);
            assert_true(!fc.serial || fc.splits > 1);
            /* the tickets count the tiles of the smallest split tile */
            assert_true(fc.splits == 1 || (v->bm == 64 && v->bn >= 128));
            /* block scales: the space holds only block variants, 128-column tiles (one W block across) */
            assert_int_equal(v->block, sc == FW_BLOCK);
            assert_true(!v->block || v->bn == 128);
            /* fp8_gemm_wgmma.cu instantiates the staged epilogue for these alone */
            assert_true(!fc.epi || ((fc.variant == FW_128x256 || fc.variant == FW_128x256_C2) && fc.splits == 1));
        }
    /* the block space: 4 configurations, 128-row tiles unless M is skinny */
    dim_case c2;
    big = dcase(&c2, "m", 8192, "n", 8192, "k", 8192, NULL, NULL);
    assert_int_equal(check_names(fw_block_config_hook, big), 4);
    assert_string_equal(fw_block_config_hook(big, -1), "tile=128x128,cluster=1,persistent=0,splits=1,epi=direct");
    assert_string_equal(fw_block_config_hook(skinny, -1), "tile=64x128,cluster=1,persistent=0,splits=1,epi=direct");
}

static void test_fused_mlp_space(void **state)
{
    (void)state;
    dim_case c;
    const klab_case *prefill = dcase(&c, "m", 4096, "k", 4096, "f", 14336, NULL, NULL);
    assert_int_equal(check_names(gv_config_hook, prefill), 9);
    assert_string_equal(gv_config_hook(prefill, -1), "tile=128x256,cluster=2,persistent=1,epi=tma");
    const klab_case *decode = dcase(&c, "m", 8, "k", 4096, "f", 14336, NULL, NULL);
    assert_string_equal(gv_config_hook(decode, -1), "tile=64x256,cluster=1,persistent=0,epi=direct");
    gated_mlp_shape sh = {.m = 8, .k = 4096, .f = 14336};
    gv_config g;
    assert_int_equal(gv_config_of(&sh, -1, &g), 0);
    assert_int_equal(g.variant, GV_64x256);
    assert_int_equal(gv_config_of(&sh, 9, &g), -1);
    /* the staged epilogue: 128 x 256 tiles only (fused_gated_mlp_fused.cu's instantiations), named so */
    for (int i = 0; gv_config_of(&sh, i, &g) == 0; i++) {
        assert_true(!g.epi || g.variant == GV_128x256 || g.variant == GV_128x256_C2);
        assert_non_null(strstr(gv_config_hook(prefill, i), g.epi ? ",epi=tma" : ",epi=direct"));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gemm_tn_by_hand),     cmocka_unit_test(test_fp8_gemm_shapes),
        cmocka_unit_test(test_activations_by_hand), cmocka_unit_test(test_gated_mlp_reference),
        cmocka_unit_test(test_gated_mlp_shapes),   cmocka_unit_test(test_fp8_wgmma_space),
        cmocka_unit_test(test_fused_mlp_space),
    };
    KLAB_RUN_TESTS(tests);
}
