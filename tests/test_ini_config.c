/* ini_config: the experiment INI, parsed and validated before any GPU work. Good files load with
 * [defaults] inherited into cases; every broken form fails with one message naming file, line and key.
 * The golden files live in tests/ini/. */
#include "klab_test.h"

#include <string.h>

#include "ini_config.h"

#define INI_DIR KLAB_TEST_DATA "/ini/"

static cfg_experiment cfg; /* ~200 KiB: keep it off the stack */

static void load_ok(const char *file)
{
    char err[1024] = "";
    int rc = cfg_load(file, &cfg, err, sizeof err);
    if (rc != 0)
        fail_msg("cfg_load(%s) failed: %s", file, err);
}

/* The whole message must be exactly `want`. */
static void load_fails(const char *file, const char *want)
{
    char err[1024] = "";
    assert_int_equal(cfg_load(file, &cfg, err, sizeof err), -1);
    assert_string_equal(err, want);
}

#define BAD(name, rest) load_fails(INI_DIR name, INI_DIR name rest)

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

static void test_good_line_of_196_characters(void **state)
{
    (void)state;
    load_ok(INI_DIR "good_long_line.ini");
    assert_int_equal(strlen(cfg.question), 196 - strlen("question = "));
    assert_int_equal(cfg.ncases, 1);
    assert_int_equal(cfg.cases[0].dims[0], 7);
    assert_int_equal(cfg.cases[0].dims[1], 1000);
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

/* ---- broken files: the exact message ---- */

static void test_missing_file(void **state)
{
    (void)state;
    BAD("does_not_exist.ini", ": cannot open: No such file or directory");
}

static void test_unknown_section(void **state)
{
    (void)state;
    BAD("bad_unknown_section.ini",
        ":4: unknown section [bogus] (known: [experiment], [defaults], [case NAME])");
}

static void test_unknown_key(void **state)
{
    (void)state;
    BAD("bad_unknown_key.ini",
        ":4: [case 4096x8192] unknown key 'warmpu' (known: shape, dtypes, profiles, warmup, min_reps, "
        "max_reps, precision, budget_ms, param.NAME)");
    BAD("bad_unknown_experiment_key.ini", ":3: [experiment] unknown key 'plugins' (known: plugin, question)");
}

static void test_key_before_section(void **state)
{
    (void)state;
    BAD("bad_key_before_section.ini", ":2: key 'plugin' before any section (start with [experiment])");
}

static void test_bad_whole_number(void **state)
{
    (void)state;
    BAD("bad_whole_number.ini", ":4: [defaults] key 'warmup': '10.5' is not a whole number");
}

static void test_number_out_of_range(void **state)
{
    (void)state;
    BAD("bad_out_of_range.ini", ":5: [case 4096x8192] key 'min_reps': 0 is outside 1..1000000");
}

static void test_bad_precision(void **state)
{
    (void)state;
    BAD("bad_precision.ini", ":4: [defaults] key 'precision': '0.5%' is not a number");
    BAD("bad_precision_range.ini", ":4: [defaults] key 'precision': 1 is outside (0, 1)");
    /* the key it replaced is named, with what replaced it */
    BAD("bad_noise.ini",
        ":5: 'noise' was replaced by 'precision' (the 95 % interval's half-width over the median)");
}

static void test_empty_list(void **state)
{
    (void)state;
    BAD("bad_empty_list.ini", ":4: [defaults] key 'dtypes': empty list");
}

static void test_empty_list_item(void **state)
{
    (void)state;
    BAD("bad_empty_item.ini", ":4: [defaults] key 'dtypes': empty item in the list");
    BAD("bad_empty_item_adjacent.ini", ":4: [case 4096x8192] key 'profiles': empty item in the list");
}

static void test_unknown_dtype(void **state)
{
    (void)state;
    BAD("bad_unknown_dtype.ini",
        ":4: [defaults] key 'dtypes': unknown dtype 'fp64' (known: fp32, fp16, bf16)");
}

static void test_dtype_listed_twice(void **state)
{
    (void)state;
    BAD("bad_dtype_twice.ini", ":4: [case 4096x8192] key 'dtypes': 'float16' listed twice");
}

static void test_duplicate_key(void **state)
{
    (void)state;
    BAD("bad_duplicate_key.ini",
        ":6: [case a] key 'warmup' given twice (an indented line continues the key above it)");
    BAD("bad_plugin_twice.ini", ":3: [experiment] key 'plugin' given twice");
}

/* inih reads an indented line as more of the key above: the parser sees that key again. */
static void test_indented_continuation(void **state)
{
    (void)state;
    BAD("bad_continuation.ini",
        ":5: [defaults] key 'profiles' given twice (an indented line continues the key above it)");
}

static void test_duplicate_case(void **state)
{
    (void)state;
    BAD("bad_duplicate_case.ini", ":7: [case a]: case 'a' defined twice (first at line 4)");
}

static void test_bad_case_name(void **state)
{
    (void)state;
    BAD("bad_case_name.ini",
        ":3: [case a b]: a case section is [case NAME], NAME of letters, digits and _ - . ^");
}

static void test_bad_shapes(void **state)
{
    (void)state;
    BAD("bad_shape_letter.ini", ":4: [case c] key 'shape': '4096y8192' is not a shape like 4096x8192 or 2^28");
    BAD("bad_shape_zero.ini", ":4: [case c] key 'shape': '0x5': dimensions must be positive whole numbers");
    BAD("bad_shape_power.ini", ":4: [case c] key 'shape': '3^4': only powers of two up to 2^40 are written with ^");
    BAD("bad_shape_trailing_x.ini", ":4: [case c] key 'shape': '4096x' ends with 'x'");
}

static void test_shape_in_defaults(void **state)
{
    (void)state;
    BAD("bad_shape_in_defaults.ini", ":4: [defaults] key 'shape' belongs in a [case NAME] section");
}

static void test_section_without_bracket(void **state)
{
    (void)state;
    BAD("bad_section_bracket.ini", ":3: section header without ']'");
}

static void test_line_too_long(void **state)
{
    (void)state;
    BAD("bad_long_line.ini", ":3: line longer than 196 characters");
}

static void test_syntax_error(void **state)
{
    (void)state;
    BAD("bad_syntax.ini", ":3: syntax error: expected [section], key = value or a ; comment");
}

static void test_no_plugin(void **state)
{
    (void)state;
    BAD("bad_no_plugin.ini", ": no plugin named: add [experiment] with plugin = NAME");
}

static void test_no_cases(void **state)
{
    (void)state;
    BAD("bad_no_cases.ini", ": no cases: add at least one [case NAME] section");
}

static void test_case_name_not_a_shape(void **state)
{
    (void)state;
    BAD("bad_case_not_shape.ini", ":6: [case odd] has no key 'shape' and its name is not a shape");
}

static void test_max_reps_below_min_reps(void **state)
{
    (void)state;
    BAD("bad_reps.ini", ":7: [case a] key 'max_reps': 40 is less than min_reps 50");
}

/* ---- checks against a plugin's descriptor ---- */

static void test_check_plugin(void **state)
{
    (void)state;
    load_ok(INI_DIR "good_full.ini");
    char err[1024] = "";
    const char *both[] = {"baseline", "fused"};
    const char *only_baseline[] = {"baseline"};
    const char *params_all[] = {"eps", "extra", NULL};
    const char *params_eps[] = {"eps", NULL};
    uint32_t all = KLAB_DTYPE_BIT(KLAB_FP32) | KLAB_DTYPE_BIT(KLAB_FP16) | KLAB_DTYPE_BIT(KLAB_BF16);

    assert_int_equal(cfg_check_plugin(&cfg, both, 2, all, params_all, err, sizeof err), 0);

    assert_int_equal(cfg_check_plugin(&cfg, only_baseline, 1, all, params_all, err, sizeof err), -1);
    assert_string_equal(err, INI_DIR "good_full.ini:16: [case 4096x8192] key 'profiles': plugin 'rmsnorm' "
                             "has no profile 'fused' (it has: baseline)");

    assert_int_equal(cfg_check_plugin(&cfg, both, 2, all & ~KLAB_DTYPE_BIT(KLAB_BF16), params_all, err,
                                      sizeof err), -1);
    assert_string_equal(err, INI_DIR "good_full.ini:16: [case 4096x8192] key 'dtypes': plugin 'rmsnorm' "
                             "does not support bf16");

    /* 'extra' is given in [case big], at line 24 */
    assert_int_equal(cfg_check_plugin(&cfg, both, 2, all, params_eps, err, sizeof err), -1);
    assert_string_equal(err, INI_DIR "good_full.ini:24: key 'param.extra': plugin 'rmsnorm' takes no such parameter");

    /* a plugin with no params list: the inherited eps is reported at the [defaults] line it came from */
    assert_int_equal(cfg_check_plugin(&cfg, both, 2, all, NULL, err, sizeof err), -1);
    assert_string_equal(err, INI_DIR "good_full.ini:14: key 'param.eps': plugin 'rmsnorm' takes no such parameter");
}

static void test_row_count(void **state)
{
    (void)state;
    load_ok(INI_DIR "good_full.ini");
    /* 4096x8192: 3 dtypes x 2 profiles; big: 1 x 1; cube: 3 x 2; 2^10: 2 x 2 */
    assert_int_equal(cfg_row_count(&cfg, 2), 17);
    assert_int_equal(cfg_row_count(&cfg, 5), 17); /* every case names its profiles */
    load_ok(INI_DIR "good_minimal.ini");
    /* no profiles key: all of the plugin's */
    assert_int_equal(cfg_row_count(&cfg, 3), 3);
    assert_int_equal(cfg_row_count(&cfg, 1), 1);
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_good_full_experiment),
        cmocka_unit_test(test_good_full_inherits_defaults),
        cmocka_unit_test(test_good_full_case_overrides),
        cmocka_unit_test(test_good_minimal_builtin_defaults),
        cmocka_unit_test(test_good_line_of_196_characters),
        cmocka_unit_test(test_shipped_ini_files_load),
        cmocka_unit_test(test_missing_file),
        cmocka_unit_test(test_unknown_section),
        cmocka_unit_test(test_unknown_key),
        cmocka_unit_test(test_key_before_section),
        cmocka_unit_test(test_bad_whole_number),
        cmocka_unit_test(test_number_out_of_range),
        cmocka_unit_test(test_bad_precision),
        cmocka_unit_test(test_empty_list),
        cmocka_unit_test(test_empty_list_item),
        cmocka_unit_test(test_unknown_dtype),
        cmocka_unit_test(test_dtype_listed_twice),
        cmocka_unit_test(test_duplicate_key),
        cmocka_unit_test(test_indented_continuation),
        cmocka_unit_test(test_duplicate_case),
        cmocka_unit_test(test_bad_case_name),
        cmocka_unit_test(test_bad_shapes),
        cmocka_unit_test(test_shape_in_defaults),
        cmocka_unit_test(test_section_without_bracket),
        cmocka_unit_test(test_line_too_long),
        cmocka_unit_test(test_syntax_error),
        cmocka_unit_test(test_no_plugin),
        cmocka_unit_test(test_no_cases),
        cmocka_unit_test(test_case_name_not_a_shape),
        cmocka_unit_test(test_max_reps_below_min_reps),
        cmocka_unit_test(test_check_plugin),
        cmocka_unit_test(test_row_count),
        cmocka_unit_test(test_parse_shape_good),
        cmocka_unit_test(test_parse_shape_bad),
    };
    KLAB_RUN_TESTS(tests);
}
