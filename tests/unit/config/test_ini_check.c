/* ini_check: an experiment checked against the plugin it names, each refusal at the line of the key
 * that made it; and the number of rows the file asks for. */
#include "klab_test.h"

#include "ini_fixture.h"

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

    assert_int_equal(cfg_check_plugin(&cfg, both, 2, all, params_all, NULL, err, sizeof err), 0);

    assert_int_equal(cfg_check_plugin(&cfg, only_baseline, 1, all, params_all, NULL, err, sizeof err), -1);
    /* [case 4096x8192] inherits its profiles: the line that wrote them is in [defaults] */
    assert_string_equal(err, INI_DIR "good_full.ini:8: [defaults] key 'profiles': plugin 'rmsnorm' "
                             "has no profile 'fused' (it has: baseline)");

    assert_int_equal(cfg_check_plugin(&cfg, both, 2, all & ~KLAB_DTYPE_BIT(KLAB_BF16), params_all, NULL,
                                      err, sizeof err), -1);
    assert_string_equal(err, INI_DIR "good_full.ini:7: [defaults] key 'dtypes': plugin 'rmsnorm' "
                             "does not support bf16");

    /* 'extra' is given in [case big], at line 24 */
    assert_int_equal(cfg_check_plugin(&cfg, both, 2, all, params_eps, NULL, err, sizeof err), -1);
    assert_string_equal(err, INI_DIR "good_full.ini:24: key 'param.extra': plugin 'rmsnorm' takes no such parameter");

    /* a plugin with no params list: the inherited eps is reported at the [defaults] line it came from */
    assert_int_equal(cfg_check_plugin(&cfg, both, 2, all, NULL, NULL, err, sizeof err), -1);
    assert_string_equal(err, INI_DIR "good_full.ini:14: key 'param.eps': plugin 'rmsnorm' takes no such parameter");
}

/* Each error names the line of the key itself: the case's own, or the [defaults] line it inherited. */
static void test_check_plugin_names_the_key_line(void **state)
{
    (void)state;
    char err[1024] = "";
    const char *baseline[] = {"baseline"}, *fused[] = {"fused"}, *both[] = {"baseline", "fused"};
    uint32_t all = KLAB_DTYPE_BIT(KLAB_FP32) | KLAB_DTYPE_BIT(KLAB_FP16) | KLAB_DTYPE_BIT(KLAB_BF16);
    load_ok(INI_DIR "good_key_lines.ini");
    assert_int_equal(cfg_check_plugin(&cfg, both, 2, all, NULL, NULL, err, sizeof err), 0);

    assert_int_equal(cfg_check_plugin(&cfg, baseline, 1, all, NULL, NULL, err, sizeof err), -1);
    assert_string_equal(err, INI_DIR "good_key_lines.ini:12: [case own] key 'profiles': plugin 'rmsnorm' "
                             "has no profile 'fused' (it has: baseline)");
    assert_int_equal(cfg_check_plugin(&cfg, fused, 1, all, NULL, NULL, err, sizeof err), -1);
    assert_string_equal(err, INI_DIR "good_key_lines.ini:7: [defaults] key 'profiles': plugin 'rmsnorm' "
                             "has no profile 'baseline' (it has: fused)");
    assert_int_equal(cfg_check_plugin(&cfg, both, 2, all & ~KLAB_DTYPE_BIT(KLAB_BF16), NULL, NULL, err,
                                      sizeof err), -1);
    assert_string_equal(err, INI_DIR "good_key_lines.ini:11: [case own] key 'dtypes': plugin 'rmsnorm' "
                             "does not support bf16");
    assert_int_equal(cfg_check_plugin(&cfg, both, 2, all & ~KLAB_DTYPE_BIT(KLAB_FP16), NULL, NULL, err,
                                      sizeof err), -1);
    assert_string_equal(err, INI_DIR "good_key_lines.ini:6: [defaults] key 'dtypes': plugin 'rmsnorm' "
                             "does not support fp16");

    /* no dtypes anywhere: the built-in fp32, reported at the case's header */
    load_ok(INI_DIR "good_no_dtypes.ini");
    assert_int_equal(cfg_check_plugin(&cfg, both, 2, KLAB_DTYPE_BIT(KLAB_FP16), NULL, NULL, err, sizeof err), -1);
    assert_string_equal(err, INI_DIR "good_no_dtypes.ini:4: [case 64] key 'dtypes' is not given, so fp32: "
                             "plugin 'rmsnorm' does not support it");
}

/* A dim.NAME the plugin does not take names its line and the names it does take. */
static void test_check_plugin_dims(void **state)
{
    (void)state;
    char err[1024] = "";
    const char *profiles[] = {"naive"};
    const char *mnk[] = {"m", "n", "k", NULL}, *mn[] = {"m", "n", NULL};
    load_ok(INI_DIR "good_dims.ini");
    assert_int_equal(cfg_check_plugin(&cfg, profiles, 1, 1, NULL, mnk, err, sizeof err), 0);
    assert_int_equal(cfg_check_plugin(&cfg, profiles, 1, 1, NULL, mn, err, sizeof err), -1);
    assert_string_equal(err, INI_DIR "good_dims.ini:6: key 'dim.k': plugin 'gemm' takes no dimension 'k' "
                                     "(it takes: m, n)");
    assert_int_equal(cfg_check_plugin(&cfg, profiles, 1, 1, NULL, NULL, err, sizeof err), -1);
    assert_string_equal(err, INI_DIR "good_dims.ini:11: key 'dim.m': plugin 'gemm' takes no dimension 'm' "
                                     "(it takes: none)");
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_check_plugin),
        cmocka_unit_test(test_check_plugin_names_the_key_line),
        cmocka_unit_test(test_check_plugin_dims),
        cmocka_unit_test(test_row_count),
    };
    KLAB_RUN_TESTS(tests);
}
