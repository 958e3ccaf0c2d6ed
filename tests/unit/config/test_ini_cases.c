/* ini_case: what a loaded case holds. Good files load with [defaults] inherited into cases, a case's
 * own keys winning; shapes, named dimensions, steps and config; and one key set outside a file. */
#include "klab_test.h"

#include <string.h>

#include "ini_fixture.h"

/* ---- good files ---- */

static void test_good_full_experiment(void **state)
{
    (void)state;
    load_ok(INI_DIR "good_full.ini");
    assert_string_equal(cfg.path, INI_DIR "good_full.ini");
    assert_string_equal(cfg.plugin, "rmsnorm");
    assert_int_equal(cfg.plugin_line, 3);
    assert_string_equal(cfg.question, "Does one fused pass reach the copy rate?");
    assert_int_equal(cfg.ncases, 4);

    const cfg_case *d = &cfg.defaults;
    assert_int_equal(d->ndtypes, 3);
    assert_int_equal(d->dtypes[0], KLAB_FP32);
    assert_int_equal(d->dtypes[1], KLAB_FP16);
    assert_int_equal(d->dtypes[2], KLAB_BF16);
    assert_int_equal(d->nprofiles, 2);
    assert_string_equal(d->profiles[0], "baseline");
    assert_string_equal(d->profiles[1], "fused");
    assert_int_equal(d->warmup, 7);
    assert_int_equal(d->stop.min_reps, 30);
    assert_int_equal(d->stop.max_reps, 4000);
    assert_true(d->stop.precision == 0.01); /* the inline comment is not part of the value */
    assert_true(d->stop.budget_ms == 2500);
    assert_int_equal(d->nparams, 1);
    assert_string_equal(d->param_key[0], "eps");
    assert_string_equal(d->param_val[0], "1e-6");
    assert_int_equal(d->param_line[0], 14);
}

static void test_good_full_inherits_defaults(void **state)
{
    (void)state;
    load_ok(INI_DIR "good_full.ini");
    const cfg_case *c = &cfg.cases[0];
    assert_string_equal(c->name, "4096x8192");
    assert_int_equal(c->line, 16);
    /* no shape key: the name is the shape */
    assert_string_equal(c->shape, "4096x8192");
    assert_int_equal(c->rank, 2);
    assert_int_equal(c->dims[0], 4096);
    assert_int_equal(c->dims[1], 8192);
    assert_int_equal(c->dims[2], 1);
    assert_int_equal(c->dims[3], 1);
    /* everything else from [defaults] */
    assert_int_equal(c->ndtypes, 3);
    assert_int_equal(c->dtypes[0], KLAB_FP32);
    assert_int_equal(c->dtypes[1], KLAB_FP16);
    assert_int_equal(c->dtypes[2], KLAB_BF16);
    assert_int_equal(c->nprofiles, 2);
    assert_string_equal(c->profiles[0], "baseline");
    assert_string_equal(c->profiles[1], "fused");
    assert_int_equal(c->warmup, 7);
    assert_int_equal(c->stop.min_reps, 30);
    assert_int_equal(c->stop.max_reps, 4000);
    assert_true(c->stop.precision == 0.01);
    assert_true(c->stop.budget_ms == 2500);
    assert_int_equal(c->nparams, 1);
    assert_string_equal(c->param_key[0], "eps");
    assert_string_equal(c->param_val[0], "1e-6");
    assert_int_equal(c->param_line[0], 14); /* where the inherited value was written */
}

static void test_good_full_case_overrides(void **state)
{
    (void)state;
    load_ok(INI_DIR "good_full.ini");
    const cfg_case *c = &cfg.cases[1];
    assert_string_equal(c->name, "big");
    assert_int_equal(c->line, 18);
    assert_string_equal(c->shape, "2^28");
    assert_int_equal(c->rank, 1);
    assert_int_equal(c->dims[0], (int64_t)1 << 28);
    assert_int_equal(c->dims[1], 1);
    assert_int_equal(c->ndtypes, 1);
    assert_int_equal(c->dtypes[0], KLAB_FP16);
    assert_int_equal(c->nprofiles, 1);
    assert_string_equal(c->profiles[0], "fused");
    assert_int_equal(c->warmup, 3);
    /* not overridden: inherited */
    assert_int_equal(c->stop.min_reps, 30);
    assert_int_equal(c->stop.max_reps, 4000);
    assert_true(c->stop.precision == 0.01);
    assert_true(c->stop.budget_ms == 2500);
    /* its own eps wins; the inherited one is not added a second time */
    assert_int_equal(c->nparams, 2);
    assert_string_equal(c->param_key[0], "eps");
    assert_string_equal(c->param_val[0], "1e-5");
    assert_int_equal(c->param_line[0], 23);
    assert_string_equal(c->param_key[1], "extra");
    assert_string_equal(c->param_val[1], "yes");
    assert_int_equal(c->param_line[1], 24);

    c = &cfg.cases[2];
    assert_string_equal(c->name, "cube");
    assert_int_equal(c->line, 26);
    assert_string_equal(c->shape, "2x3X4");
    assert_int_equal(c->rank, 3);
    assert_int_equal(c->dims[0], 2);
    assert_int_equal(c->dims[1], 3);
    assert_int_equal(c->dims[2], 4);
    assert_int_equal(c->dims[3], 1);
    assert_true(c->stop.precision == 0.02);
    assert_int_equal(c->stop.min_reps, 5);
    assert_int_equal(c->stop.max_reps, 5);
    assert_true(c->stop.budget_ms == 0.5);
    assert_int_equal(c->warmup, 7);
    assert_int_equal(c->ndtypes, 3);
    assert_int_equal(c->nparams, 1);
    assert_string_equal(c->param_val[0], "1e-6");

    c = &cfg.cases[3];
    assert_string_equal(c->name, "2^10");
    assert_int_equal(c->line, 33);
    assert_string_equal(c->shape, "2^10");
    assert_int_equal(c->rank, 1);
    assert_int_equal(c->dims[0], 1024);
    assert_int_equal(c->ndtypes, 2);
    assert_int_equal(c->dtypes[0], KLAB_BF16);
    assert_int_equal(c->dtypes[1], KLAB_FP32); /* "float32" is fp32 */
    assert_int_equal(c->nprofiles, 2);
}

static void test_good_minimal_builtin_defaults(void **state)
{
    (void)state;
    load_ok(INI_DIR "good_minimal.ini");
    assert_string_equal(cfg.plugin, "vector_add");
    assert_string_equal(cfg.question, "");
    assert_int_equal(cfg.ncases, 1);
    const cfg_case *c = &cfg.cases[0];
    assert_string_equal(c->name, "copy");
    assert_string_equal(c->shape, "1000");
    assert_int_equal(c->rank, 1);
    assert_int_equal(c->dims[0], 1000);
    assert_int_equal(c->ndtypes, 1);
    assert_int_equal(c->dtypes[0], KLAB_FP32);
    assert_int_equal(c->nprofiles, 0); /* every profile the plugin has */
    assert_int_equal(c->warmup, 10);
    assert_int_equal(c->stop.min_reps, 20);
    assert_int_equal(c->stop.max_reps, 5000);
    assert_true(c->stop.precision == 0.005);
    assert_true(c->stop.budget_ms == 1500);
    assert_int_equal(c->nparams, 0);
}

/* The INI files the lab ships must stay loadable. */
static void test_shipped_ini_files_load(void **state)
{
    (void)state;
    load_ok(KLAB_TEST_DATA "/../ini/rmsnorm.ini");
    assert_string_equal(cfg.plugin, "rmsnorm");
    assert_true(cfg.ncases > 0);
    load_ok(KLAB_TEST_DATA "/../ini/vector_add.ini");
    assert_string_equal(cfg.plugin, "vector_add");
    assert_true(cfg.ncases > 0);
    for (int i = 0; i < cfg.ncases; i++)
        if (strcmp(cfg.cases[i].shape, "2^28") == 0)
            assert_int_equal(cfg.cases[i].dims[0], (int64_t)1 << 28);
}

/* ---- dim.NAME, steps, config ---- */

static void test_good_dims_steps_config(void **state)
{
    (void)state;
    load_ok(INI_DIR "good_dims.ini");
    assert_int_equal(cfg.ncases, 3);

    const cfg_case *c = &cfg.cases[0]; /* no shape: its dimensions alone */
    assert_string_equal(c->name, "gemm");
    assert_int_equal(c->rank, 0);
    assert_string_equal(c->shape, "");
    assert_int_equal(c->ndims_named, 3);
    assert_string_equal(c->dim_key[0], "m");
    assert_int_equal(c->dim_val[0], 8192);
    assert_int_equal(c->dim_line[0], 11);
    assert_string_equal(c->dim_key[1], "n");
    assert_int_equal(c->dim_val[1], 2048);
    assert_int_equal(c->dim_line[1], 12);
    assert_string_equal(c->dim_key[2], "k"); /* inherited, with the line it was written on */
    assert_int_equal(c->dim_val[2], 4096);
    assert_int_equal(c->dim_line[2], 6);
    assert_int_equal(c->steps, 50);
    assert_string_equal(c->config, "bm=128,bn=256,stages=4");

    c = &cfg.cases[1]; /* a shape by its name, and its own k, steps and config */
    assert_int_equal(c->rank, 2);
    assert_string_equal(c->shape, "64x64");
    assert_int_equal(c->ndims_named, 1);
    assert_string_equal(c->dim_key[0], "k");
    assert_int_equal(c->dim_val[0], (int64_t)1 << 40);
    assert_int_equal(c->dim_line[0], 15);
    assert_int_equal(c->steps, 1000000);
    assert_string_equal(c->config, "split_k=2");

    c = &cfg.cases[2];
    assert_string_equal(c->shape, "100");
    assert_int_equal(c->ndims_named, 1);
    assert_int_equal(c->steps, 50);

    /* not given anywhere: 0 steps (the plugin's own) and no configuration */
    load_ok(INI_DIR "good_minimal.ini");
    assert_int_equal(cfg.cases[0].steps, 0);
    assert_string_equal(cfg.cases[0].config, "");
    assert_int_equal(cfg.cases[0].ndims_named, 0);
}

/* ---- cfg_parse_shape ---- */

static void shape_ok(const char *s, int rank, int64_t d0, int64_t d1, int64_t d2, int64_t d3)
{
    int64_t dims[KLAB_MAX_RANK] = {-7, -7, -7, -7};
    char why[256] = "";
    int r = cfg_parse_shape(s, dims, why, sizeof why);
    if (r != rank)
        fail_msg("cfg_parse_shape(\"%s\") = %d (%s), want %d", s, r, why, rank);
    assert_int_equal(dims[0], d0);
    assert_int_equal(dims[1], d1);
    assert_int_equal(dims[2], d2);
    assert_int_equal(dims[3], d3);
}

static void shape_bad(const char *s, const char *want)
{
    int64_t dims[KLAB_MAX_RANK];
    char why[256] = "";
    int r = cfg_parse_shape(s, dims, why, sizeof why);
    if (r != -1)
        fail_msg("cfg_parse_shape(\"%s\") = %d, want -1 (%s)", s, r, want);
    assert_string_equal(why, want);
}

static void test_parse_shape_good(void **state)
{
    (void)state;
    shape_ok("4096x8192", 2, 4096, 8192, 1, 1);
    shape_ok("2^28", 1, (int64_t)1 << 28, 1, 1, 1);
    shape_ok("7x1000", 2, 7, 1000, 1, 1);
    shape_ok("1", 1, 1, 1, 1, 1);
    shape_ok("2X3x4x5", 4, 2, 3, 4, 5);
    shape_ok("2^10x3", 2, 1024, 3, 1, 1);
    shape_ok("2^0", 1, 1, 1, 1, 1);
    shape_ok("2^40", 1, (int64_t)1 << 40, 1, 1, 1);
    shape_ok("2^20x2^20", 2, 1 << 20, 1 << 20, 1, 1); /* exactly 2^40 elements */
}

static void test_parse_shape_bad(void **state)
{
    (void)state;
    shape_bad("", "empty shape");
    shape_bad("4096y8192", "'4096y8192' is not a shape like 4096x8192 or 2^28");
    shape_bad("0x5", "'0x5': dimensions must be positive whole numbers");
    shape_bad("5x0", "'5x0': dimensions must be positive whole numbers");
    shape_bad("3^4", "'3^4': only powers of two up to 2^40 are written with ^");
    shape_bad("2^41", "'2^41': only powers of two up to 2^40 are written with ^");
    shape_bad("4096x", "'4096x' ends with 'x'");
    shape_bad("x4096", "'x4096' is not a shape like 4096x8192 or 2^28");
    shape_bad("-4", "'-4' is not a shape like 4096x8192 or 2^28");
    shape_bad("4096 x 8192", "'4096 x 8192' is not a shape like 4096x8192 or 2^28");
    shape_bad("1x2x3x4x5", "'1x2x3x4x5' has more than 4 dimensions");
    shape_bad("2^21x2^20", "'2^21x2^20' has more than 2^40 elements");
    shape_bad("99999999999999999999", "'99999999999999999999': dimensions must be positive whole numbers");
    /* a '^' must be followed by the exponent */
    shape_bad("2^", "'2^': only powers of two up to 2^40 are written with ^");
    shape_bad("2^x5", "'2^x5': only powers of two up to 2^40 are written with ^");
}

/* cfg_case_set: one case key outside a file (libklab_bench's kb_begin) by a file's rules and messages,
   the line being the caller's (kb_begin: the item's place in its params). */
static void test_case_set(void **state)
{
    (void)state;
    memset(&cfg, 0, sizeof cfg);
    snprintf(cfg.path, sizeof cfg.path, "kb_begin params");
    cfg_case *c = &cfg.cases[0];
    snprintf(c->name, sizeof c->name, "gemm");
    char err[1024] = "";
    assert_int_equal(cfg_case_set(&cfg, c, "dim.m", "4096", 1, err, sizeof err), 0);
    assert_int_equal(cfg_case_set(&cfg, c, "param.eps", "1e-6", 2, err, sizeof err), 0);
    assert_int_equal(c->ndims_named, 1);
    assert_string_equal(c->dim_key[0], "m");
    assert_true(c->dim_val[0] == 4096);
    assert_int_equal(c->dim_line[0], 1);
    assert_int_equal(c->nparams, 1);
    assert_string_equal(c->param_key[0], "eps");
    assert_string_equal(c->param_val[0], "1e-6");
    assert_int_equal(c->param_line[0], 2);
    assert_int_equal(cfg_case_set(&cfg, c, "dim.m", "8", 3, err, sizeof err), -1);
    assert_string_equal(err, "kb_begin params:3: [case gemm] key 'dim.m' given twice");
    assert_int_equal(cfg_case_set(&cfg, c, "dim.k", "2^12", 4, err, sizeof err), -1);
    assert_string_equal(err, "kb_begin params:4: [case gemm] key 'dim.k': '2^12' is not a whole number");
    assert_int_equal(cfg_case_set(&cfg, c, "dim.K", "8", 5, err, sizeof err), -1);
    assert_non_null(strstr(err, "a dimension is dim.NAME"));
    assert_int_equal(c->ndims_named, 1); /* a refused key leaves the case as it was */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_good_full_experiment),
        cmocka_unit_test(test_good_full_inherits_defaults),
        cmocka_unit_test(test_good_full_case_overrides),
        cmocka_unit_test(test_good_minimal_builtin_defaults),
        cmocka_unit_test(test_shipped_ini_files_load),
        cmocka_unit_test(test_case_set),
        cmocka_unit_test(test_good_dims_steps_config),
        cmocka_unit_test(test_parse_shape_good),
        cmocka_unit_test(test_parse_shape_bad),
    };
    KLAB_RUN_TESTS(tests);
}
