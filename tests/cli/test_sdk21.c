/* Plugin ABI 2.1 from both sides: run_host and verify_host (the hooks that get the context and host),
 * check_param through `klab --validate`, the profile list, a C++20 plugin filled by field name, the
 * device service in an older host, and a plugin compiled against the 2.0 header as that SDK shipped
 * it (tests/fixtures/plugins/sdk20), loaded and validated by this klab. */
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "host/host_services.h"
#include "host/loader.h"
#include "klab_run.h"

#define PLUGIN(name) KLAB_TEST_PLUGINS "/" name ".so"

static loaded_plugin lp;
static char err[2048];

/* y = f(x) through the host's verify path for a one-input, one-output case of 4 elements. */
static klab_status verify4(void *st, klab_ctx *ctx, const klab_case *kc, const double *x, double *y)
{
    const double *in[1] = {x};
    double *out[1] = {y};
    size_t count[1] = {4};
    klab_verify_io io = {.struct_size = sizeof io, .n_in = 1, .in = in, .in_count = count, .n_out = 1, .out = out,
                         .out_count = count};
    return loader_verify(&lp, st, ctx, &host_services, kc, &io);
}

/* A 2.0 plugin's descriptor, read by this host: no 2.1 hook, and its run and verify are what the host
   calls. */
static void test_sdk20_plugin_loads_and_runs(void **state)
{
    (void)state;
    assert_int_equal(loader_open(PLUGIN("sdk20_plugin"), "sdk20_plugin", &lp, err, sizeof err), 0);
    assert_int_equal(lp.desc.abi_minor, 0);
    assert_null(lp.desc.run_host);
    assert_null(lp.desc.verify_host);
    assert_null(lp.desc.check_param);
    klab_ctx *ctx = ctx_new("sdk20_plugin c fp32", 1, 90, NULL);
    assert_non_null(ctx);
    klab_case kc = {.struct_size = sizeof kc, .name = "c", .rank = 1, .dims = {4, 1, 1, 1}, .dtype = KLAB_FP32};
    void *st = NULL;
    assert_int_equal(lp.desc.setup(ctx, &host_services, &kc, &st), KLAB_OK);
    klab_launch l = {.struct_size = sizeof l, .profile = 0, .config = -1};
    assert_int_equal(loader_run(&lp, st, ctx, &host_services, &l), KLAB_OK);
    l.profile = 3;
    assert_int_equal(loader_run(&lp, st, ctx, &host_services, &l), KLAB_ERROR);
    assert_string_equal(ctx_error(ctx, ""), "no profile 3");
    double x[4] = {1, -2, 0.5, 3}, y[4];
    assert_int_equal(verify4(st, ctx, &kc, x, y), KLAB_OK);
    assert_true(y[0] == 2 && y[1] == -4 && y[2] == 1 && y[3] == 6);
    lp.desc.teardown(st);
    ctx_free(ctx);
    loader_close(&lp);
}

/* A 2.1 plugin with run_host and verify_host and neither run nor verify: it loads, and the host hands
   both hooks its context and services. */
static void test_host_hooks_get_ctx_and_host(void **state)
{
    (void)state;
    assert_int_equal(loader_open(PLUGIN("sdk21_hooks"), "sdk21_hooks", &lp, err, sizeof err), 0);
    assert_null(lp.desc.run);
    assert_null(lp.desc.verify);
    assert_int_equal(lp.nprofiles, 2);
    assert_string_equal(lp.profiles[1].name, "twice");
    klab_ctx *ctx = ctx_new("sdk21_hooks c fp32", 1, 90, NULL);
    klab_param p = {"alpha", "-1.5"};
    klab_case kc = {.struct_size = sizeof kc, .name = "c", .rank = 1, .dims = {4, 1, 1, 1}, .dtype = KLAB_FP32,
                    .nparams = 1, .params = &p};
    void *st = NULL;
    assert_int_equal(lp.desc.setup(ctx, &host_services, &kc, &st), KLAB_OK);
    klab_launch l = {.struct_size = sizeof l, .profile = 0, .config = -1};
    assert_int_equal(loader_run(&lp, st, ctx, &host_services, &l), KLAB_OK);
    l.profile = 1;
    assert_int_equal(loader_run(&lp, st, ctx, &host_services, &l), KLAB_ERROR);
    assert_string_equal(ctx_error(ctx, ""), "run_host reached with profile 1 of 2");
    double x[4] = {1, -2, 0.5, 3}, y[4];
    assert_int_equal(verify4(st, ctx, &kc, x, y), KLAB_OK);
    assert_true(y[0] == -1.5 && y[1] == 3 && y[2] == -0.75 && y[3] == -4.5);
    assert_null(lp.desc.check_param("alpha", "2.5e-1"));
    assert_string_equal(lp.desc.check_param("alpha", "abc"), "a number");
    lp.desc.teardown(st);
    ctx_free(ctx);
    loader_close(&lp);
}

/* The C++20 plugin, its descriptor and profiles filled by field name, loads as it was written: its
   second profile's flag, its hooks, its reference through klab/convert.h. */
static void test_cxx_plugin_loads(void **state)
{
    (void)state;
    assert_int_equal(loader_open(PLUGIN("sdk21_cxx"), "sdk21_cxx", &lp, err, sizeof err), 0);
    assert_int_equal(lp.nprofiles, 2);
    assert_string_equal(lp.profiles[1].name, "flagged");
    assert_int_equal(lp.profiles[1].flags, KLAB_PROFILE_FIXED_TENSORS);
    assert_int_equal(lp.desc.dtypes, KLAB_DTYPE_BIT(KLAB_FP16));
    klab_case kc = {.struct_size = sizeof kc, .name = "c", .rank = 1, .dims = {4, 1, 1, 1}, .dtype = KLAB_FP16};
    double x[4] = {1, 1 + 0x1p-11, 1 + 0x1.8p-10, 70000}, y[4];
    assert_int_equal(verify4(NULL, NULL, &kc, x, y), KLAB_OK);
    assert_true(y[0] == 1 && y[1] == 1 && y[2] == 1 + 0x1p-9 && y[3] == INFINITY); /* ties to even; overflow */
    loader_close(&lp);
}

/* The device service in a host table that ends before it (a 2.0 klab): klab_device_of says so, through
   the host's error(), rather than calling past the table. */
static void test_device_service_absent_in_older_host(void **state)
{
    (void)state;
    assert_true(KLAB_HAS_FIELD(klab_host, host_services.struct_size, device));
    assert_non_null(host_services.device);
    klab_host old = host_services;
    old.struct_size = (uint32_t)offsetof(klab_host, parallel_for);
    old.abi_minor = 0;
    klab_ctx *ctx = ctx_new("dev", 1, 90, NULL);
    klab_device dev;
    memset(&dev, 0, sizeof dev);
    assert_int_equal(klab_device_of(&old, ctx, &dev), KLAB_UNSUPPORTED);
    assert_string_equal(ctx_error(ctx, ""), "this klab has no device service (plugin ABI 2.0; it needs 2.1)");
    assert_int_equal(dev.struct_size, sizeof dev);
    ctx_free(ctx);
}

/* klab --validate of ini_text as t.ini, with `plugin` alone in the plugin path (made at the first call
   of a test). */
static klab_result validate(const char *plugin, const char *ini_text)
{
    char dir[PATH_MAX], ini[PATH_MAX + 16];
    snprintf(dir, sizeof dir, "%s/plugins", kr_tmp);
    if (access(dir, F_OK) != 0) {
        kr_mkdir("plugins", dir, sizeof dir);
        kr_link_plugin(dir, plugin);
    }
    snprintf(ini, sizeof ini, "%s/t.ini", kr_tmp);
    kr_write_file(ini, ini_text);
    return KLAB("--validate", "--plugin-path", dir, "--config", ini);
}

/* param.alpha = abc is refused by the plugin's check_param, naming file, line and key: exit 2. */
static void test_validate_refuses_bad_param(void **state)
{
    (void)state;
    klab_result r = validate(PLUGIN("sdk21_hooks"), "[experiment]\nplugin = sdk21_hooks\n\n[case a]\nshape = 4\n"
                                                    "param.alpha = 2\n\n[case b]\nshape = 8\nparam.alpha = abc\n");
    assert_int_equal(r.rc, 2);
    kr_expect_in(r.out, "t.ini:10: key 'param.alpha': plugin 'sdk21_hooks' refuses 'abc': a number");
    free(r.out);
    r = validate(PLUGIN("sdk21_hooks"), "[experiment]\nplugin = sdk21_hooks\n\n[case a]\nshape = 4\nparam.alpha = 2\n");
    assert_int_equal(r.rc, 0);
    free(r.out);
}

/* The 2.0 plugin, built against the 2.0 header, validates with this klab; any alpha passes (it has no
   check_param). */
static void test_sdk20_plugin_validates(void **state)
{
    (void)state;
    klab_result r = validate(PLUGIN("sdk20_plugin"), "[experiment]\nplugin = sdk20_plugin\n\n[case a]\nshape = 4\n"
                                                     "param.alpha = abc\n");
    assert_int_equal(r.rc, 0);
    kr_expect_in(r.out, "case a");
    free(r.out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sdk20_plugin_loads_and_runs),
        cmocka_unit_test(test_host_hooks_get_ctx_and_host),
        cmocka_unit_test(test_cxx_plugin_loads),
        cmocka_unit_test(test_device_service_absent_in_older_host),
        KR_TEST(test_validate_refuses_bad_param),
        KR_TEST(test_sdk20_plugin_validates),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
