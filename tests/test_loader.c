/* The loader (core/loader.c) against plugins that each break one rule of klab/plugin.h: every
 * refusal gives "path: reason" with the exact reason, and a good plugin's descriptor comes back whole.
 * Also the RTLD_LOCAL promise: a plugin's exported functions named like the host's change nothing for
 * the host, and two plugins exporting the same name each bind their own.
 * The plugins are tests/plugins/abi/, built into KLAB_TEST_PLUGINS by tests/plugins.cmake. */
#define _GNU_SOURCE /* RTLD_DEFAULT */
#include <dlfcn.h>
#include <string.h>

#include "checksum.h"
#include "klab_test.h"
#include "loader.h"
#include "stats.h"

#define PLUGIN(stem) KLAB_TEST_PLUGINS "/" stem ".so"

/* The 1.0 descriptor's required part: through the teardown hook. */
#define REQUIRED_SIZE (offsetof(klab_plugin, teardown) + sizeof(((klab_plugin *)0)->teardown))

static char err[2048];
static loaded_plugin lp;

/* loader_open(path, stem) must fail with exactly "path: why". */
static void expect_refusal(const char *path, const char *stem, const char *why)
{
    char want[2048];
    snprintf(want, sizeof want, "%s: %s", path, why);
    memset(err, 0, sizeof err);
    int rc = loader_open(path, stem, &lp, err, sizeof err);
    assert_int_equal(rc, -1);
    assert_string_equal(err, want);
    assert_null(lp.handle); /* a refused plugin is unloaded again */
}

static void test_not_elf(void **state)
{
    (void)state;
    const char *path = PLUGIN("not_elf");
    assert_int_equal(loader_open(path, "not_elf", &lp, err, sizeof err), -1);
    /* "path: not a loadable shared object: " and then dlerror()'s words, which name the file again */
    char prefix[2048];
    snprintf(prefix, sizeof prefix, "%s: not a loadable shared object: ", path);
    assert_int_equal(strncmp(err, prefix, strlen(prefix)), 0);
    const char *dl = err + strlen(prefix);
    assert_non_null(strstr(dl, path));
    assert_non_null(strstr(dl, "invalid ELF header")); /* glibc's wording */
    assert_null(lp.handle);
}

static void test_missing_file(void **state)
{
    (void)state;
    const char *path = PLUGIN("no_such_plugin");
    assert_int_equal(loader_open(path, "no_such_plugin", &lp, err, sizeof err), -1);
    char prefix[2048];
    snprintf(prefix, sizeof prefix, "%s: not a loadable shared object: ", path);
    assert_int_equal(strncmp(err, prefix, strlen(prefix)), 0);
    assert_non_null(strstr(err, "No such file or directory"));
}

static void test_no_entry_symbol(void **state)
{
    (void)state;
    expect_refusal(PLUGIN("abi_no_entry"), "abi_no_entry",
                   "no entry symbol klab_plugin_entry (is it exported with C linkage?)");
}

static void test_entry_declines(void **state)
{
    (void)state;
    expect_refusal(PLUGIN("abi_null_entry"), "abi_null_entry",
                   "klab_plugin_entry returned no descriptor: the plugin declines this host (ABI 1.0)");
}

static void test_other_major(void **state)
{
    (void)state;
    expect_refusal(PLUGIN("abi_major2"), "abi_major2", "built for plugin ABI 2.3; this klab speaks 1.0");
}

static void test_struct_too_small(void **state)
{
    (void)state;
    char why[256];
    snprintf(why, sizeof why, "descriptor too small: struct_size 16, ABI 1.0 needs at least %zu bytes",
             (size_t)REQUIRED_SIZE);
    expect_refusal(PLUGIN("abi_small_struct"), "abi_small_struct", why);
}

static void test_missing_hooks(void **state)
{
    (void)state;
    expect_refusal(PLUGIN("abi_no_setup"), "abi_no_setup", "missing required hook 'setup'");
    expect_refusal(PLUGIN("abi_no_run"), "abi_no_run", "missing required hook 'run'");
    expect_refusal(PLUGIN("abi_no_verify"), "abi_no_verify", "missing required hook 'verify'");
    expect_refusal(PLUGIN("abi_no_teardown"), "abi_no_teardown", "missing required hook 'teardown'");
}

static void test_no_profiles(void **state)
{
    (void)state;
    expect_refusal(PLUGIN("abi_no_profiles"), "abi_no_profiles", "declares no profiles");
}

static void test_baseline_not_a_profile(void **state)
{
    (void)state;
    expect_refusal(PLUGIN("abi_bad_baseline"), "abi_bad_baseline", "baseline 'fused' is not one of its profiles");
}

static void test_dtype_mask_zero(void **state)
{
    (void)state;
    expect_refusal(PLUGIN("abi_dtype0"), "abi_dtype0", "dtype mask 0x0 names no dtype this host knows");
}

static void test_name_mismatch(void **state)
{
    (void)state;
    expect_refusal(PLUGIN("abi_name_mismatch"), "abi_name_mismatch",
                   "names itself 'someone_else' but the file promises 'abi_name_mismatch'");
    /* without an expected name (NULL) the descriptor's own name is taken as it is */
    assert_int_equal(loader_open(PLUGIN("abi_name_mismatch"), NULL, &lp, err, sizeof err), 0);
    assert_string_equal(lp.desc.name, "someone_else");
    loader_close(&lp);
    assert_null(lp.handle);
}

static void test_good_plugin(void **state)
{
    (void)state;
    strcpy(err, "untouched");
    assert_int_equal(loader_open(PLUGIN("abi_good"), "abi_good", &lp, err, sizeof err), 0);
    assert_string_equal(err, "untouched");
    assert_non_null(lp.handle);
    assert_string_equal(lp.path, PLUGIN("abi_good"));
    const klab_plugin *d = &lp.desc;
    assert_int_equal(d->abi_major, KLAB_ABI_MAJOR);
    assert_int_equal(d->abi_minor, KLAB_ABI_MINOR);
    assert_int_equal(d->struct_size, sizeof(klab_plugin));
    assert_string_equal(d->name, "abi_good");
    assert_string_equal(d->version, "1.2.3");
    assert_string_equal(d->summary, "keeps every rule");
    assert_int_equal(lp.nprofiles, 2);
    assert_string_equal(d->profiles[0].name, "slow");
    assert_string_equal(d->profiles[1].name, "fast");
    assert_int_equal(lp.baseline, 1);
    assert_int_equal(loader_profile_index(&lp, "slow"), 0);
    assert_int_equal(loader_profile_index(&lp, "fast"), 1);
    assert_int_equal(loader_profile_index(&lp, "fused"), -1);
    assert_int_equal(d->dtypes, KLAB_DTYPE_BIT(KLAB_FP32) | KLAB_DTYPE_BIT(KLAB_BF16));
    assert_int_equal(d->min_cc, 80);
    assert_string_equal(d->params[0], "alpha");
    assert_null(d->params[1]);
    assert_non_null(d->setup);
    assert_non_null(d->run);
    assert_non_null(d->verify);
    assert_non_null(d->teardown);
    /* the optional hooks it has are there and are its own */
    assert_non_null(d->work);
    assert_non_null(d->tolerance);
    klab_case kc = {"c", 1, {4, 1, 1, 1}, KLAB_FP32, 0, NULL};
    klab_work w = {0, 0};
    d->work(&kc, &w);
    assert_true(w.bytes == 8 && w.flops == 1);
    assert_true(d->tolerance(&kc) == 0.25);
    loader_close(&lp);
    assert_null(lp.handle);
}

/* A descriptor whose struct_size stops after the required hooks: the host reads nothing beyond it,
   so the optional hooks that lie past it in the plugin's memory read as absent. */
static void test_short_descriptor_hides_later_fields(void **state)
{
    (void)state;
    assert_int_equal(loader_open(PLUGIN("abi_short_struct"), "abi_short_struct", &lp, err, sizeof err), 0);
    assert_int_equal(lp.desc.struct_size, REQUIRED_SIZE);
    assert_non_null(lp.desc.teardown);
    assert_null(lp.desc.work);
    assert_null(lp.desc.tolerance);
    loader_close(&lp);
}

/* ---- RTLD_LOCAL ---- */

static void host_functions_still_right(void)
{
    double x[5] = {5, 1, 4, 2, 3};
    stats s;
    assert_int_equal(stats_compute(x, 5, &s), 0);
    assert_int_equal(s.n, 5);
    assert_true(s.median == 3 && s.min == 1 && s.max == 5 && s.mean == 3);
    /* FNV-1a 64 of "a" */
    assert_true(checksum_update(CHECKSUM_INIT, "a", 1) == UINT64_C(0xaf63dc4c8601ec8c));
}

static int call_probe(void *handle)
{
    void *sym = dlsym(handle, "abi_interpose_probe");
    assert_non_null(sym);
    int (*probe)(void);
    memcpy(&probe, &sym, sizeof probe);
    return probe();
}

static void test_rtld_local(void **state)
{
    (void)state;
    loaded_plugin a, b;
    assert_int_equal(loader_open(PLUGIN("abi_interpose_a"), "abi_interpose_a", &a, err, sizeof err), 0);

    /* the plugin does export them (default visibility): the test would prove nothing otherwise */
    void *a_stats = dlsym(a.handle, "stats_compute");
    void *a_sum = dlsym(a.handle, "checksum_update");
    assert_non_null(a_stats);
    assert_non_null(a_sum);
    /* ...but not into the global scope, where they could interpose on anyone */
    assert_true(dlsym(RTLD_DEFAULT, "stats_compute") != a_stats);
    assert_true(dlsym(RTLD_DEFAULT, "checksum_update") != a_sum);
    host_functions_still_right();
    /* and the plugin's own call binds its own definition */
    assert_int_equal(call_probe(a.handle), 111);

    /* a second plugin with the same exported names binds its own, not the first one's */
    assert_int_equal(loader_open(PLUGIN("abi_interpose_b"), "abi_interpose_b", &b, err, sizeof err), 0);
    assert_true(dlsym(b.handle, "stats_compute") != a_stats);
    assert_int_equal(call_probe(b.handle), 222);
    assert_int_equal(call_probe(a.handle), 111);
    host_functions_still_right();

    loader_close(&b);
    loader_close(&a);
    host_functions_still_right();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_not_elf),
        cmocka_unit_test(test_missing_file),
        cmocka_unit_test(test_no_entry_symbol),
        cmocka_unit_test(test_entry_declines),
        cmocka_unit_test(test_other_major),
        cmocka_unit_test(test_struct_too_small),
        cmocka_unit_test(test_missing_hooks),
        cmocka_unit_test(test_no_profiles),
        cmocka_unit_test(test_baseline_not_a_profile),
        cmocka_unit_test(test_dtype_mask_zero),
        cmocka_unit_test(test_name_mismatch),
        cmocka_unit_test(test_good_plugin),
        cmocka_unit_test(test_short_descriptor_hides_later_fields),
        cmocka_unit_test(test_rtld_local),
    };
    KLAB_RUN_TESTS(tests);
}
