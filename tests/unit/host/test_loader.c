/* The loader (core/loader.c) against plugins that each break one rule of klab/plugin.h: every
 * refusal gives "path: reason" with the exact reason, and a good plugin's descriptor comes back whole.
 * The growth rules: a 1.x plugin refused by name; an older minor's shorter descriptor, a struct_size
 * that cuts a hook pointer in half, dtype bits of a later ABI, and a 2.2 plugin's longer descriptor
 * and profiles all load, each field this host cannot wholly see reading as absent; a plugin checks a
 * host's size before it uses a newer service. 2.1's parallel_for: a 2.0 plugin loads and works in
 * this host; a 2.1 plugin gives the same bytes through a 2.0 host (its own loop), a 2.1 host's
 * service, and this host's pool at 1 and 4 threads.
 * Also the RTLD_LOCAL promise: a plugin's exported functions named like the host's change nothing for
 * the host, and two plugins exporting the same name each bind their own.
 * The plugins are tests/fixtures/plugins/abi/, built into KLAB_TEST_PLUGINS by tests/fixtures/plugins/plugins.cmake. */
#define _GNU_SOURCE /* RTLD_DEFAULT */
#include <dlfcn.h>
#include <math.h>
#include <string.h>

#include "host/host_services.h"
#include "host/loader.h"
#include "host/parallel.h"
#include "klab_test.h"
#include "stats/stats.h"
#include "util/checksum.h"

#define PLUGIN(stem) KLAB_TEST_PLUGINS "/" stem ".so"

/* The 2.0 descriptor's required part: through the teardown hook. */
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
                   "klab_plugin_entry returned no descriptor: the plugin declines this host (ABI 2.1)");
}

static void test_other_major(void **state)
{
    (void)state;
    expect_refusal(PLUGIN("abi_major3"), "abi_major3", "built for plugin ABI 3.1; this klab speaks 2.1");
}

/* A 1.0 plugin declines a 2.0 host; asked as a 1.x host, it says what it is, and the refusal names it. */
static void test_abi1_plugin_named(void **state)
{
    (void)state;
    expect_refusal(PLUGIN("abi_v1"), "abi_v1", "built for plugin ABI 1.0; this klab speaks 2.1");
}

static void test_struct_too_small(void **state)
{
    (void)state;
    char why[256];
    snprintf(why, sizeof why, "descriptor too small: struct_size 16, ABI 2.0 needs at least %zu bytes",
             (size_t)REQUIRED_SIZE);
    expect_refusal(PLUGIN("abi_small_struct"), "abi_small_struct", why);
}

static void test_profile_size_too_small(void **state)
{
    (void)state;
    expect_refusal(PLUGIN("abi_small_profile"), "abi_small_profile",
                   "profile_size 8 is not a profile: at least 16 bytes, a multiple of 8");
}

static void test_empty_archs_list(void **state)
{
    (void)state;
    expect_refusal(PLUGIN("abi_bad_archs"), "abi_bad_archs",
                   "profile 'only': archs list names no compute capability (use NULL for any device)");
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
    expect_refusal(PLUGIN("abi_dtype_future"), "abi_dtype_future",
                   "dtype mask 0x100000 names no dtype this host knows");
}

/* Dtypes only gain values: bits this host has no name for are dropped, the known ones kept. */
static void test_unknown_dtype_bits_ignored(void **state)
{
    (void)state;
    assert_int_equal(loader_open(PLUGIN("abi_dtype_unknown"), "abi_dtype_unknown", &lp, err, sizeof err), 0);
    assert_int_equal(lp.desc.dtypes, KLAB_DTYPE_BIT(KLAB_FP32));
    loader_close(&lp);
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
    assert_int_equal(d->profile_size, sizeof(klab_profile));
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
    assert_string_equal(d->dims[0], "k");
    assert_null(d->dims[1]);
    assert_int_equal(d->flags, KLAB_PLUGIN_STEPS);
    assert_int_equal(d->default_steps, 8);
    /* the 2.0 profile fields: exact archs (the plugin's for a profile without its own), flags, the
       tuning space */
    assert_null(d->archs);
    const int *archs = loader_profile_archs(&lp, 0);
    assert_non_null(archs);
    assert_int_equal(archs[0], 80);
    assert_int_equal(archs[1], 90);
    assert_int_equal(archs[2], 0);
    assert_true(loader_arch_admits(archs, 90));
    assert_false(loader_arch_admits(archs, 100));
    assert_true(loader_arch_admits(loader_profile_archs(&lp, 1), 100));
    char text[64];
    loader_archs_text(archs, text, sizeof text);
    assert_string_equal(text, "sm_80, sm_90");
    assert_int_equal(d->profiles[0].flags, 0);
    assert_int_equal(d->profiles[1].flags, KLAB_PROFILE_FIXED_TENSORS);
    assert_null(d->profiles[0].config);
    assert_non_null(d->profiles[1].config);
    assert_non_null(d->setup);
    assert_non_null(d->run);
    assert_non_null(d->verify);
    assert_non_null(d->teardown);
    /* the optional hooks it has are there and are its own */
    assert_non_null(d->work);
    assert_non_null(d->tolerance);
    klab_case kc = {.struct_size = sizeof kc, .name = "c", .rank = 1, .dims = {4, 1, 1, 1}, .dtype = KLAB_FP32};
    klab_work w = {.struct_size = sizeof w};
    d->work(&kc, &w);
    assert_true(w.bytes == 8 && w.flops == 1);
    assert_true(d->tolerance(&kc) == 0.25);
    assert_string_equal(d->profiles[1].config(&kc, 0), "block=64");
    assert_string_equal(d->profiles[1].config(&kc, -1), "block=128");
    assert_null(d->profiles[1].config(&kc, 3));
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

/* A struct_size ending four bytes into `work`: half a pointer is no hook. */
static void test_half_hook_reads_absent(void **state)
{
    (void)state;
    assert_int_equal(loader_open(PLUGIN("abi_half_hook"), "abi_half_hook", &lp, err, sizeof err), 0);
    assert_int_equal(lp.desc.struct_size, offsetof(klab_plugin, work) + 4);
    assert_non_null(lp.desc.teardown);
    assert_null(lp.desc.work);
    assert_null(lp.desc.tolerance);
    loader_close(&lp);
}

/* ---- a 2.2 plugin in this 2.1 host, a 2.1 plugin in a newer host ---- */

typedef struct host_22 {
    klab_host base;
    uint64_t (*future_service)(klab_ctx *ctx);
} host_22;

static int future_calls;

static uint64_t future_service(klab_ctx *ctx)
{
    (void)ctx;
    future_calls++;
    return 1000;
}

static int fake_cc(klab_ctx *ctx)
{
    (void)ctx;
    return 90;
}

/* A host table with every service NULL but device_cc, declaring `size` bytes. */
static host_22 fake_host(uint32_t minor, uint32_t size)
{
    host_22 h;
    memset(&h, 0, sizeof h);
    h.base.abi_major = KLAB_ABI_MAJOR;
    h.base.abi_minor = minor;
    h.base.struct_size = size;
    h.base.device_cc = fake_cc;
    h.future_service = future_service; /* in memory either way: only the size says whether it exists */
    return h;
}

static void test_v22_descriptor_loads(void **state)
{
    (void)state;
    assert_int_equal(loader_open(PLUGIN("abi_v22_desc"), "abi_v22_desc", &lp, err, sizeof err), 0);
    assert_int_equal(lp.desc.abi_minor, 2);
    assert_true(lp.desc.struct_size > sizeof(klab_plugin)); /* its own size, kept as it said */
    assert_int_equal(lp.nprofiles, 2);
    assert_int_equal(lp.baseline, 1);
    assert_int_equal(lp.profiles[1].flags, KLAB_PROFILE_OWNS_GRAPH);
    assert_int_equal(lp.desc.dtypes, KLAB_DTYPE_BIT(KLAB_FP8_E4M3) | KLAB_DTYPE_BIT(KLAB_INT32));
    assert_null(lp.desc.tolerance);

    /* in a 2.1 host it leaves the 2.2 service alone; in a 2.2 host it uses it */
    void *st = NULL;
    host_22 h21 = fake_host(1, sizeof(klab_host)), h22 = fake_host(2, sizeof(host_22));
    klab_case kc = {.struct_size = sizeof kc, .name = "c", .rank = 1, .dims = {4, 1, 1, 1}, .dtype = KLAB_INT32};
    future_calls = 0;
    assert_int_equal(lp.desc.setup(NULL, &h21.base, &kc, &st), KLAB_OK);
    assert_int_equal((int)(uintptr_t)st, 90);
    assert_int_equal(future_calls, 0);
    assert_int_equal(lp.desc.setup(NULL, &h22.base, &kc, &st), KLAB_OK);
    assert_int_equal((int)(uintptr_t)st, 1090);
    assert_int_equal(future_calls, 1);
    loader_close(&lp);
}

/* Profiles of 2.2, larger than this host's: read with the plugin's stride, this host's fields only. */
static void test_v22_profiles_load(void **state)
{
    (void)state;
    assert_int_equal(loader_open(PLUGIN("abi_v22_profile"), "abi_v22_profile", &lp, err, sizeof err), 0);
    assert_true(lp.desc.profile_size > sizeof(klab_profile));
    assert_int_equal(lp.nprofiles, 2);
    assert_string_equal(lp.desc.profiles[0].name, "first");
    assert_string_equal(lp.desc.profiles[0].summary, "a 2.2 profile");
    assert_string_equal(lp.desc.profiles[1].name, "second");
    assert_string_equal(lp.desc.profiles[1].summary, "another");
    assert_int_equal(lp.desc.profiles[1].flags, KLAB_PROFILE_OWNS_GRAPH); /* an unknown flag bit: dropped */
    assert_null(lp.desc.profiles[2].name);
    assert_int_equal(lp.baseline, 1);
    loader_close(&lp);
}

/* A plugin of this SDK asked by a newer host of its major (2.9) answers, and its hooks work with the
   newer, longer host table: what it reads is all there. */
static void test_plugin_in_newer_host(void **state)
{
    (void)state;
    assert_int_equal(loader_open(PLUGIN("abi_good"), "abi_good", &lp, err, sizeof err), 0);
    void *sym = dlsym(lp.handle, KLAB_ENTRY_SYMBOL);
    assert_non_null(sym);
    klab_entry_fn entry;
    memcpy(&entry, &sym, sizeof entry);
    const klab_plugin *d = entry(KLAB_ABI_MAJOR, 9);
    assert_non_null(d);
    assert_int_equal(d->abi_minor, KLAB_ABI_MINOR);
    assert_null(entry(KLAB_ABI_MAJOR + 1, 0)); /* another major: declined */
    host_22 h29 = fake_host(9, sizeof(host_22));
    klab_case kc = {.struct_size = sizeof kc, .name = "c", .rank = 1, .dims = {4, 1, 1, 1}, .dtype = KLAB_FP32};
    void *st = (void *)1;
    assert_int_equal(d->setup(NULL, &h29.base, &kc, &st), KLAB_OK);
    assert_null(st);
    loader_close(&lp);
}

/* ---- 2.1: parallel_for ---- */

/* A plugin a 2.0 SDK built (minor 0, knows nothing of parallel_for) loads in this host, and its hooks
   run with this host's own, longer table. */
static void test_v20_plugin_loads(void **state)
{
    (void)state;
    assert_int_equal(loader_open(PLUGIN("abi_v20"), "abi_v20", &lp, err, sizeof err), 0);
    assert_int_equal(lp.desc.abi_major, 2);
    assert_int_equal(lp.desc.abi_minor, 0);
    assert_true(host_services.struct_size > offsetof(klab_host, parallel_for));
    klab_case kc = {.struct_size = sizeof kc, .name = "c", .rank = 1, .dims = {130, 1, 1, 1}, .dtype = KLAB_FP32};
    void *st = NULL;
    assert_int_equal(lp.desc.setup(NULL, &host_services, &kc, &st), KLAB_OK);
    double x[130], y[130];
    for (int i = 0; i < 130; i++)
        x[i] = i % 7 - 3;
    const double *in[1] = {x};
    double *out[1] = {y};
    size_t count[1] = {130};
    klab_verify_io io = {.struct_size = sizeof io, .n_in = 1, .in = in, .in_count = count, .n_out = 1, .out = out,
                         .out_count = count};
    assert_int_equal(lp.desc.verify(st, &kc, &io), KLAB_OK);
    assert_true(y[0] == -3 && y[1] == -3 * 0.75 - 2 && y[64] == x[64]); /* its own loop ran */
    lp.desc.teardown(st);
    loader_close(&lp);
}

static int service_calls;

/* A 2.1 host's parallel_for that runs the chunks last to first: the plugin must not depend on order. */
static void reversed_parallel_for(klab_ctx *ctx, size_t n, size_t grain, klab_chunk_fn fn, void *arg)
{
    (void)ctx;
    service_calls++;
    for (size_t c = parallel_chunks(n, grain); c-- > 0;)
        fn(arg, c * grain, (c + 1) * grain < n ? (c + 1) * grain : n);
}

/* abi_v21_parallel's reference over 5000 elements through `host`. */
static void parallel_reference(const klab_host *host, double *y)
{
    static double x[5000];
    for (int i = 0; i < 5000; i++)
        x[i] = sin(i * 0.37) * 1e3 + 1e-3 * i;
    klab_case kc = {.struct_size = sizeof kc, .name = "c", .rank = 1, .dims = {5000, 1, 1, 1}, .dtype = KLAB_FP32};
    void *st = NULL;
    assert_int_equal(lp.desc.setup(NULL, host, &kc, &st), KLAB_OK);
    const double *in[1] = {x};
    double *out[1] = {y};
    size_t count[1] = {5000};
    klab_verify_io io = {.struct_size = sizeof io, .n_in = 1, .in = in, .in_count = count, .n_out = 1, .out = out,
                         .out_count = count};
    for (int i = 0; i < 5000; i++)
        y[i] = NAN;
    assert_int_equal(lp.desc.verify(st, &kc, &io), KLAB_OK);
    lp.desc.teardown(st);
}

/* A 2.1 plugin in a 2.0 host (the service in memory but past the declared size: never called) loops
   itself; in a 2.1 host it calls the service once; in this host the pool runs it at 1 and 4 threads:
   the same bytes every time. */
static void test_parallel_for_in_old_and_new_hosts(void **state)
{
    (void)state;
    assert_int_equal(loader_open(PLUGIN("abi_v21_parallel"), "abi_v21_parallel", &lp, err, sizeof err), 0);
    assert_int_equal(lp.desc.abi_minor, 1);
    static double serial[5000], y[5000];
    klab_host h20 = {.abi_major = 2, .abi_minor = 0, .struct_size = offsetof(klab_host, parallel_for),
                     .parallel_for = reversed_parallel_for};
    service_calls = 0;
    parallel_reference(&h20, serial);
    assert_int_equal(service_calls, 0);
    for (int i = 0; i < 5000; i++)
        assert_false(isnan(serial[i]));
    klab_host h21 = h20;
    h21.abi_minor = 1;
    h21.struct_size = sizeof(klab_host);
    parallel_reference(&h21, y);
    assert_int_equal(service_calls, 1);
    assert_memory_equal(y, serial, sizeof y);
    const int threads[] = {1, 4};
    for (int t = 0; t < 2; t++) {
        assert_int_equal(parallel_set_threads(threads[t]), 0);
        parallel_reference(&host_services, y);
        assert_memory_equal(y, serial, sizeof y);
    }
    assert_int_equal(parallel_set_threads(0), 0);
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
        cmocka_unit_test(test_abi1_plugin_named),
        cmocka_unit_test(test_struct_too_small),
        cmocka_unit_test(test_profile_size_too_small),
        cmocka_unit_test(test_empty_archs_list),
        cmocka_unit_test(test_missing_hooks),
        cmocka_unit_test(test_no_profiles),
        cmocka_unit_test(test_baseline_not_a_profile),
        cmocka_unit_test(test_dtype_mask_zero),
        cmocka_unit_test(test_unknown_dtype_bits_ignored),
        cmocka_unit_test(test_name_mismatch),
        cmocka_unit_test(test_good_plugin),
        cmocka_unit_test(test_short_descriptor_hides_later_fields),
        cmocka_unit_test(test_half_hook_reads_absent),
        cmocka_unit_test(test_v22_descriptor_loads),
        cmocka_unit_test(test_v22_profiles_load),
        cmocka_unit_test(test_plugin_in_newer_host),
        cmocka_unit_test(test_v20_plugin_loads),
        cmocka_unit_test(test_parallel_for_in_old_and_new_hosts),
        cmocka_unit_test(test_rtld_local),
    };
    KLAB_RUN_TESTS(tests);
}
