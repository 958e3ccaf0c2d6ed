/* --shard K/N and --devices' split of the units: the slices of the selected units are disjoint, their
 * union is exactly the unsharded list (by job_units, the same function parent and worker count units
 * with), each slice of a plugin differs in size by at most one; K/N is parsed strictly. A device list
 * becomes one child command line per GPU, each with its own slice and run folder and the rest of the
 * user's words unchanged; the children's exit statuses become one. */
#include "klab_test.h"

#include <cuda_runtime.h>
#include <string.h>
#include <unistd.h>

#include "app/cli.h"
#include "config/ini_config.h"
#include "klab_run.h"
#include "scale/devices.h"
#include "worker/selection.h"
#include "worker/shard.h"

static cfg_experiment cfg;

static int setup_cfg(void **state)
{
    (void)state;
    char path[] = "/tmp/klab_shard_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    static const char ini[] = "[experiment]\nplugin = softmax\n[defaults]\ndtypes = fp32, fp16, bf16\n"
                              "[case a]\nshape = 64x64\n[case b]\nshape = 64x128\n[case c]\nshape = 8x8\n"
                              "dtypes = fp32\n[case d]\nshape = 2x2\n[case e]\nshape = 4x4\ndtypes = bf16, fp16\n";
    assert_int_equal(write(fd, ini, sizeof ini - 1), (ssize_t)(sizeof ini - 1));
    close(fd);
    char err[1200];
    int rc = cfg_load(path, &cfg, err, sizeof err);
    unlink(path);
    if (rc != 0)
        fail_msg("%s", err);
    return 0;
}

/* The units of a filter as "case/dtype" strings. */
static int units(const run_filter *f, char (*out)[80])
{
    int n = job_units(&cfg, f, -1, NULL, NULL);
    for (int u = 0; u < n; u++) {
        int ci;
        klab_dtype dt;
        job_units(&cfg, f, u, &ci, &dt);
        snprintf(out[u], 80, "%s/%d", cfg.cases[ci].name, (int)dt);
    }
    return n;
}

static void test_union_exact_and_disjoint(void **state)
{
    (void)state;
    static char all[64][80], part[64][80];
    run_filter f;
    memset(&f, 0, sizeof f);
    int n = units(&f, all);
    assert_int_equal(n, 3 + 3 + 1 + 3 + 2);
    for (int slices = 1; slices <= 13; slices++) {
        int seen[64] = {0}, smallest = n, largest = 0;
        for (int k = 0; k < slices; k++) {
            f.shard_k = k;
            f.shard_n = slices;
            int m = units(&f, part);
            smallest = m < smallest ? m : smallest;
            largest = m > largest ? m : largest;
            for (int i = 0; i < m; i++) {
                int at = -1;
                for (int j = 0; j < n; j++)
                    if (!strcmp(part[i], all[j]))
                        at = j;
                if (at < 0)
                    fail_msg("%d/%d: unit %s is not a selected unit", k, slices, part[i]);
                if (seen[at]++)
                    fail_msg("%d/%d: unit %s is in two slices", k, slices, part[i]);
                if (i > 0) { /* a slice keeps the INI's order */
                    int prev = -1;
                    for (int j = 0; j < n; j++)
                        if (!strcmp(part[i - 1], all[j]))
                            prev = j;
                    assert_true(prev < at);
                }
            }
        }
        for (int j = 0; j < n; j++)
            if (seen[j] != 1)
                fail_msg("%d slices: unit %s is in %d", slices, all[j], seen[j]);
        assert_true(largest - smallest <= 1);
    }
}

/* A filter narrows first; the slices are of what it selected. */
static void test_slices_of_a_filter(void **state)
{
    (void)state;
    static char all[64][80], part[64][80];
    run_filter f;
    memset(&f, 0, sizeof f);
    f.dtypes = KLAB_DTYPE_BIT(KLAB_FP16);
    int n = units(&f, all);
    assert_int_equal(n, 4); /* a, b, d, e */
    int total = 0;
    for (int k = 0; k < 2; k++) {
        f.shard_k = k;
        f.shard_n = 2;
        total += units(&f, part);
    }
    assert_int_equal(total, n);
}

/* The slice is a function of the plugin's name and the index alone: the same on every machine. */
static void test_shard_of_is_fixed(void **state)
{
    (void)state;
    assert_int_equal(shard_of("softmax", 0, 1), 0);
    int first = shard_of("softmax", 0, 4);
    for (int i = 0; i < 12; i++)
        assert_int_equal(shard_of("softmax", i, 4), (first + i) % 4);
    /* plugins with one unit each do not all go to slice 0 */
    const char *names[] = {"rmsnorm", "softmax", "swiglu", "reduction", "vector_add", "rmsnorm_rope", "gemm"};
    int used[4] = {0}, distinct = 0;
    for (int i = 0; i < 7; i++)
        distinct += !used[shard_of(names[i], 0, 4)]++;
    assert_true(distinct >= 2);
}

static void test_parse(void **state)
{
    (void)state;
    int k = -1, n = -1;
    char err[200];
    assert_int_equal(shard_parse("0/1", &k, &n, err, sizeof err), 0);
    assert_int_equal(k, 0);
    assert_int_equal(n, 1);
    assert_int_equal(shard_parse("3/4", &k, &n, err, sizeof err), 0);
    assert_int_equal(k, 3);
    assert_int_equal(n, 4);
    const char *bad[] = {"4/4", "1", "/4", "1/", "-1/4", "1/0", "a/b", "1/4x", "1 /4", "0/5000"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (shard_parse(bad[i], &k, &n, err, sizeof err) == 0)
            fail_msg("--shard %s was accepted", bad[i]);
    assert_int_equal(shard_parse("4/4", &k, &n, err, sizeof err), -1);
    assert_string_equal(err, "--shard: '4/4' needs 0 <= K < N <= 4096");
}

static cli_opts opts;

static int parse(char **words, int n)
{
    char err[300];
    int rc = cli_parse(n, words, &opts, err, sizeof err);
    if (rc != 0)
        print_message("# %s\n", err);
    return rc;
}

/* A fake device list (GPUs 3 and 5 of a host): each child its GPU, its slice, its folder; the user's
   other words as given; --devices, --device, --out and --run-id (abbreviated or with =) replaced. */
static void test_children_of_a_device_list(void **state)
{
    (void)state;
    char *words[] = {"klab", "--plugin", "softmax", "--devices", "3,5", "--out=res", "--device", "1",
                     "--run-id=r1", "--seed", "7", "--with-profiling"};
    assert_int_equal(parse(words, 12), 0);
    assert_int_equal(opts.ndevices, 2);
    assert_int_equal(opts.devices[0], 3);
    assert_int_equal(opts.devices[1], 5);
    static char store[DEVICES_MAX_ARGS][4200];
    char *argv[DEVICES_MAX_ARGS];
    for (int i = 0; i < 2; i++) {
        devices_opts dopts = cli_devices_opts(&opts);
        int n = devices_child_argv(&dopts, i, "/bin/klab", "res/r1.devices/gpuX", "r1", argv, store);
        char line[2000] = "";
        for (int k = 0; k < n; k++)
            snprintf(line + strlen(line), sizeof line - strlen(line), "%s%s", k ? " " : "", argv[k]);
        assert_null(argv[n]);
        const char *want = i == 0 ? "/bin/klab --plugin softmax --seed 7 --with-profiling --device 3 --shard 0/2 "
                                    "--out res/r1.devices/gpuX --run-id r1 --tune-cache res/tune-cache.ini"
                                  : "/bin/klab --plugin softmax --seed 7 --with-profiling --device 5 --shard 1/2 "
                                    "--out res/r1.devices/gpuX --run-id r1 --tune-cache res/tune-cache.ini";
        assert_string_equal(line, want);
        /* and the child's line parses to one GPU, one slice */
        assert_int_equal(parse(argv, n), 0);
        assert_int_equal(opts.ndevices, 0);
        assert_int_equal(opts.device, i == 0 ? 3 : 5);
        assert_int_equal(opts.filter.shard_k, i);
        assert_int_equal(opts.filter.shard_n, 2);
        assert_string_equal(opts.run_id, "r1");
        assert_string_equal(opts.tune_cache, "res/tune-cache.ini");
        assert_int_equal(parse(words, 12), 0);
    }
}

/* The parent reports once, over the merged rows: a child gets no --report, nor the report's --out-dir
   and --experiments (which it would refuse without --report), abbreviated or with =; --quick and
   --budget-ms are the child's too. */
static void test_children_do_not_report(void **state)
{
    (void)state;
    char *words[] = {"klab", "--rep", "--devices", "0,1", "--quick", "--out-dir=/tmp/r", "--budget-ms", "50",
                     "--experiments", "e", "--report"};
    assert_int_equal(parse(words, 11), 0);
    assert_int_equal(opts.report, 1);
    static char store[DEVICES_MAX_ARGS][4200];
    char *argv[DEVICES_MAX_ARGS];
    devices_opts dopts = cli_devices_opts(&opts);
    int n = devices_child_argv(&dopts, 1, "/bin/klab", "out/r1.devices/gpu1", "r1", argv, store);
    char line[2000] = "";
    for (int k = 0; k < n; k++)
        snprintf(line + strlen(line), sizeof line - strlen(line), "%s%s", k ? " " : "", argv[k]);
    assert_string_equal(line, "/bin/klab --quick --budget-ms 50 --device 1 --shard 1/2 --out out/r1.devices/gpu1 "
                              "--run-id r1 --tune-cache out/tune-cache.ini");
    assert_int_equal(parse(argv, n), 0);
    assert_int_equal(opts.report, 0);
    assert_int_equal(opts.quick, 1);
    assert_true(opts.budget_ms == 50);
}

static void test_refusals(void **state)
{
    (void)state;
    char err[300];
    char *a[] = {"klab", "--devices", "0,0"};
    assert_int_equal(cli_parse(3, a, &opts, err, sizeof err), -1);
    assert_string_equal(err, "--devices: device 0 is named twice");
    char *b[] = {"klab", "--devices", "0,1", "--shard", "0/2"};
    assert_int_equal(cli_parse(5, b, &opts, err, sizeof err), -1);
    assert_string_equal(err, "--devices splits the units itself: give --devices or --shard, not both");
    char *c[] = {"klab", "--list", "--shard", "0/2"};
    assert_int_equal(cli_parse(4, c, &opts, err, sizeof err), -1);
    assert_string_equal(err, "--devices, --shard and --with-profiling go with a run (--shard also with --validate)");
    char *g[] = {"klab", "--tune", "--devices", "0,1"};
    assert_int_equal(cli_parse(4, g, &opts, err, sizeof err), -1);
    assert_string_equal(err, "--tune runs on one GPU: give --device N, not --devices");
    char *d[] = {"klab", "--tune", "--with-profiling"};
    assert_int_equal(cli_parse(3, d, &opts, err, sizeof err), -1);
    assert_string_equal(err, "--with-profiling goes with a plain run, not --tune");
    char *e[] = {"klab", "merge", "out"};
    assert_int_equal(cli_parse(3, e, &opts, err, sizeof err), -1);
    assert_string_equal(err, "merge takes an output folder and at least one run folder: klab merge OUT RUN...");
    char *f[] = {"klab", "merge", "out", "r1", "r2"};
    assert_int_equal(cli_parse(5, f, &opts, err, sizeof err), 0);
    assert_int_equal(opts.cmd, CMD_MERGE);
    assert_int_equal(opts.nmerge, 3);
    assert_string_equal(opts.merge[0], "out");
    assert_string_equal(opts.merge[2], "r2");
}

static void test_exit_status_of_children(void **state)
{
    (void)state;
    assert_int_equal(devices_exit_status((int[]){0, 0}, 2), EXIT_OK);
    assert_int_equal(devices_exit_status((int[]){0, 1}, 2), EXIT_FAILED_ROWS);
    assert_int_equal(devices_exit_status((int[]){1, 3}, 2), EXIT_NO_GPU);
    assert_int_equal(devices_exit_status((int[]){3, 2}, 2), EXIT_USAGE);
    assert_int_equal(devices_exit_status((int[]){2, 130}, 2), 130);
    assert_int_equal(devices_exit_status((int[]){0, 7}, 2), EXIT_FAILED_ROWS);
}

/* Through the binary where there is no GPU: one klab started per GPU, each refusing for want of one;
   the parent names each, merges nothing and exits 3 as a one-GPU run would. */
static void test_devices_without_gpu(void **state)
{
    (void)state;
    int count = 0;
    if (cudaGetDeviceCount(&count) == cudaSuccess && count > 0)
        skip(); /* test_gpu_scale runs --devices on the GPU machine */
    char plugins[4200], ini[4300];
    kr_mkdir("plugins", plugins, sizeof plugins);
    kr_link_plugin(plugins, KLAB_BINARY_DIR "/plugins/vector_add.so");
    snprintf(ini, sizeof ini, "%s/va.ini", kr_tmp);
    kr_write_file(ini, "[experiment]\nplugin = vector_add\n[case a]\nshape = 1024\n[case b]\nshape = 2048\n");
    klab_result r = KLAB("--plugin-path", plugins, "--config", ini, "--devices", "0,1", "--run-id", "D",
                         "--verify-only", "--report");
    assert_int_equal(r.rc, 3);
    kr_expect_not_in(r.out, "decisions over"); /* nothing merged: nothing to report */
    kr_expect_in(r.out, "klab: run D on GPUs 0 1, one klab each (their output: out/D.devices/gpu<N>.log)");
    kr_expect_in(r.out, "klab: the klab for GPU 0 exited with status 3 (its output: out/D.devices/gpu0.log)");
    kr_expect_in(r.out, "klab: the klab for GPU 1 exited with status 3 (its output: out/D.devices/gpu1.log)");
    kr_expect_not_in(r.out, "merged");
    free(r.out);
    char log[4400];
    snprintf(log, sizeof log, "%s/out/D.devices/gpu1.log", kr_tmp);
    assert_int_equal(access(log, R_OK), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_union_exact_and_disjoint, setup_cfg),
        cmocka_unit_test_setup(test_slices_of_a_filter, setup_cfg),
        cmocka_unit_test(test_shard_of_is_fixed),
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_children_of_a_device_list),
        cmocka_unit_test(test_children_do_not_report),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_exit_status_of_children),
        KR_TEST(test_devices_without_gpu),
    };
    KLAB_RUN_TESTS(tests);
}
