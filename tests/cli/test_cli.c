/* cli_parse: the command line, parsed with no side effects; every error one exact sentence. Many
 * parses run in one process, so getopt's global state must be reset by cli_parse itself.
 *
 * Then bad input through the klab binary, as a new user would give it: an INI that asks a plugin for
 * what it lacks is an error with file, line and key (exit 2) before any GPU work, on a machine with a
 * GPU or without one; INI paths that are not INI files end at once; text from a plugin's descriptor
 * reaches the terminal escaped. */
#include "klab_test.h"

#include <cuda_runtime.h>
#include <string.h>
#include <sys/stat.h>

#include "app/cli.h"
#include "klab_run.h"

static cli_opts opts; /* ~60 KiB: off the stack */
static char err[512];

/* Parses the NULL-terminated words after "klab"; returns cli_parse's result. */
#define PARSE(...) parse_words((const char *[]){"klab", __VA_ARGS__, NULL})
#define PARSE0() parse_words((const char *[]){"klab", NULL})

static int parse_words(const char **words)
{
    static char store[32][256];
    char *argv[33];
    int argc = 0;
    for (; words[argc]; argc++) {
        assert_true(argc < 32);
        snprintf(store[argc], sizeof store[argc], "%s", words[argc]);
        argv[argc] = store[argc];
    }
    argv[argc] = NULL;
    memset(err, 0, sizeof err);
    return cli_parse(argc, argv, &opts, err, sizeof err);
}

static void fails(int rc, const char *want)
{
    assert_int_equal(rc, -1);
    assert_string_equal(err, want);
}

static void test_defaults(void **state)
{
    (void)state;
    memset(&opts, 0x5a, sizeof opts);
    assert_int_equal(PARSE0(), 0);
    assert_int_equal(opts.cmd, CMD_RUN);
    assert_int_equal(opts.isolate, 1);
    assert_true(opts.timeout_s == 120);
    assert_true(opts.throttle == 0.75);
    assert_string_equal(opts.out_dir, "out");
    assert_int_equal(opts.nplugins, 0);
    assert_int_equal(opts.filter.ncases, 0);
    assert_int_equal(opts.filter.nprofiles, 0);
    assert_int_equal(opts.filter.dtypes, 0);
    assert_int_equal(opts.npaths, 0);
    assert_int_equal(opts.device, 0);
    assert_int_equal(opts.hot, 0);
    assert_int_equal(opts.batched, 0);
    assert_true(opts.seed == 0);
    assert_string_equal(opts.config, "");
    assert_string_equal(opts.run_id, "");
    assert_string_equal(opts.ini_dir, "");
    assert_string_equal(opts.report_dir, "");
    assert_string_equal(opts.command_line, "klab");
    assert_int_equal(opts.tune, 0);
    assert_string_equal(opts.tune_cache, "out/tune-cache.ini");
    assert_true(opts.budget_ms == 0);
    assert_int_equal(opts.quick, 0);
    assert_int_equal(opts.report, 0);
}

/* --tune is a run (or, with --validate, a listing); the cache lives under the out folder unless named */
static void test_tune(void **state)
{
    (void)state;
    assert_int_equal(PARSE("--tune"), 0);
    assert_int_equal(opts.cmd, CMD_RUN);
    assert_int_equal(opts.tune, 1);
    assert_string_equal(opts.tune_cache, "out/tune-cache.ini");
    assert_int_equal(PARSE("--tune", "--validate"), 0);
    assert_int_equal(opts.cmd, CMD_VALIDATE);
    assert_int_equal(opts.tune, 1);
    assert_int_equal(PARSE("--out", "/tmp/o", "--tune"), 0);
    assert_string_equal(opts.tune_cache, "/tmp/o/tune-cache.ini");
    assert_int_equal(PARSE("--tune-cache", "/c/t.ini", "--out", "/tmp/o"), 0);
    assert_string_equal(opts.tune_cache, "/c/t.ini"); /* named: wins over the out folder */
    assert_int_equal(opts.tune, 0);                   /* a plain run reads it too */
    fails(PARSE("--tune", "--list"), "--tune goes with a run, or with --validate to list each case's configurations");
    fails(PARSE("--self-test", "--tune"), "--tune goes with a run, or with --validate to list each case's configurations");
    fails(PARSE("--tune", "report", "out/x"), "--tune goes with a run, or with --validate to list each case's configurations");
    fails(PARSE("--tune-cache", ""), "--tune-cache: '' is not a usable path");
    fails(PARSE("--tune-cache"), "--tune-cache needs a value");
    char long_out[4100];
    memset(long_out, 'o', sizeof long_out - 1);
    long_out[sizeof long_out - 1] = 0;
    char klab[] = "klab", out[] = "--out";
    char *argv[] = {klab, out, long_out, NULL};
    assert_int_equal(cli_parse(3, argv, &opts, err, sizeof err), -1);
    assert_string_equal(err, "--out: too long to hold tune-cache.ini; give --tune-cache PATH");
}

static void test_commands(void **state)
{
    (void)state;
    assert_int_equal(PARSE("--list"), 0);
    assert_int_equal(opts.cmd, CMD_LIST);
    assert_int_equal(PARSE("--validate"), 0);
    assert_int_equal(opts.cmd, CMD_VALIDATE);
    assert_int_equal(PARSE("--self-test"), 0);
    assert_int_equal(opts.cmd, CMD_SELF_TEST);
    assert_int_equal(PARSE("--help"), 0);
    assert_int_equal(opts.cmd, CMD_HELP);
    assert_int_equal(PARSE("-h"), 0);
    assert_int_equal(opts.cmd, CMD_HELP);
    assert_int_equal(PARSE("--version"), 0);
    assert_int_equal(opts.cmd, CMD_VERSION);
    /* --help wins over what follows, even what would be an error */
    assert_int_equal(PARSE("--help", "--bogus"), 0);
    assert_int_equal(opts.cmd, CMD_HELP);
}

static void test_report(void **state)
{
    (void)state;
    assert_int_equal(PARSE("report", "out/2025-01-01-abc"), 0);
    assert_int_equal(opts.cmd, CMD_REPORT);
    assert_string_equal(opts.report_dir, "out/2025-01-01-abc");
    assert_string_equal(opts.command_line, "klab report out/2025-01-01-abc");
    assert_int_equal(opts.nreports, 1);
    assert_string_equal(opts.experiments_dir, "experiments");
    assert_string_equal(opts.report_out, "");
    /* no RUN: the latest under --out; several: all of them, options anywhere */
    assert_int_equal(PARSE("report"), 0);
    assert_int_equal(opts.nreports, 0);
    assert_string_equal(opts.report_dir, "");
    assert_int_equal(PARSE("report", "a", "--out-dir", "/tmp/r", "b", "--experiments", "e"), 0);
    assert_int_equal(opts.nreports, 2);
    assert_string_equal(opts.reports[1], "b");
    assert_string_equal(opts.report_out, "/tmp/r");
    assert_string_equal(opts.experiments_dir, "e");
    fails(PARSE("--out-dir", "x"), "--out-dir and --experiments go with klab report, or with a run's --report");
    fails(PARSE("--experiments", "e", "--list"),
          "--out-dir and --experiments go with klab report, or with a run's --report");
    fails(PARSE("rep"), "unexpected argument 'rep' (see klab --help)");
}

/* --budget-ms and --quick: a run's sampling, nothing else; a budget that is no number of
   milliseconds, and --quick beside --tune or outside a run, are refused in one sentence */
static void test_budget_and_quick(void **state)
{
    (void)state;
    assert_int_equal(PARSE("--budget-ms", "250"), 0);
    assert_true(opts.budget_ms == 250);
    assert_int_equal(opts.quick, 0);
    assert_int_equal(PARSE("--quick"), 0);
    assert_int_equal(opts.quick, 1);
    assert_true(opts.budget_ms == 0);
    assert_int_equal(PARSE("--quick", "--budget-ms=12.5", "--plugin", "softmax"), 0);
    assert_int_equal(opts.quick, 1);
    assert_true(opts.budget_ms == 12.5);
    assert_int_equal(opts.cmd, CMD_RUN);
    assert_int_equal(PARSE("--budget-ms", "3600000", "--tune"), 0); /* sampling only: a tune run may have it */
    assert_true(opts.budget_ms == 3600e3);
    static const char *const bad[] = {"nan", "NaN", "inf", "-5", "0", "0.5", "3600001", "1e300", "abc", "", "5ms"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char want[200];
        snprintf(want, sizeof want, "--budget-ms: '%s' is not a number of milliseconds from 1 to 3600000", bad[i]);
        fails(PARSE("--budget-ms", bad[i]), want);
    }
    fails(PARSE("--budget-ms"), "--budget-ms needs a value");
    fails(PARSE("--quick", "--tune"),
          "--quick goes with a plain run, not --tune: a tuning cache must not learn from a smoke pass");
    fails(PARSE("--tune", "--quick"),
          "--quick goes with a plain run, not --tune: a tuning cache must not learn from a smoke pass");
    fails(PARSE("--quick", "--validate"), "--quick and --budget-ms go with a run");
    fails(PARSE("--budget-ms", "100", "--list"), "--quick and --budget-ms go with a run");
    fails(PARSE("--quick", "report", "out/x"), "--quick and --budget-ms go with a run");
    /* the same rule closes NaN to every number option */
    fails(PARSE("--timeout", "nan"), "--timeout: 'nan' is not a number in [0.1, 86400]");
    fails(PARSE("--throttle", "NAN"), "--throttle: 'NAN' is not a number in [0, 1]");
}

/* --report: a run that ends with its report; --out-dir and --experiments go with it */
static void test_run_report(void **state)
{
    (void)state;
    assert_int_equal(PARSE("--report"), 0);
    assert_int_equal(opts.cmd, CMD_RUN);
    assert_int_equal(opts.report, 1);
    assert_string_equal(opts.report_out, "");
    assert_string_equal(opts.experiments_dir, "experiments");
    assert_int_equal(
        PARSE("--with-torch", "--report", "--out-dir", "/tmp/r", "--experiments", "e", "--devices", "0,1"), 0);
    assert_int_equal(opts.report, 1);
    assert_string_equal(opts.report_out, "/tmp/r");
    assert_string_equal(opts.experiments_dir, "e");
    assert_int_equal(opts.ndevices, 2);
    fails(PARSE("--report", "--list"), "--report goes with a run (klab report RUN reports a run made before)");
    fails(PARSE("--report", "--validate"), "--report goes with a run (klab report RUN reports a run made before)");
    fails(PARSE("--report", "report", "out/x"), "--report goes with a run (klab report RUN reports a run made before)");
    fails(PARSE("--report", "compare", "a", "b"),
          "--report goes with a run (klab report RUN reports a run made before)");
}

static void test_selection(void **state)
{
    (void)state;
    assert_int_equal(PARSE("--plugin", "softmax,rmsnorm", "--case", "4096x8192", "--case", "ragged,big",
                           "--profile", "baseline, fused"), 0);
    assert_int_equal(opts.cmd, CMD_RUN);
    assert_int_equal(opts.nplugins, 2);
    assert_string_equal(opts.plugins[0], "softmax");
    assert_string_equal(opts.plugins[1], "rmsnorm");
    assert_int_equal(opts.filter.ncases, 3); /* repeated: they add up */
    assert_string_equal(opts.filter.cases[0], "4096x8192");
    assert_string_equal(opts.filter.cases[1], "ragged");
    assert_string_equal(opts.filter.cases[2], "big");
    assert_int_equal(opts.filter.nprofiles, 2);
    assert_string_equal(opts.filter.profiles[0], "baseline");
    assert_string_equal(opts.filter.profiles[1], "fused");
    assert_int_equal(opts.filter.dtypes, 0);

    assert_int_equal(PARSE("-p", "vector_add", "--plugin=rmsnorm"), 0);
    assert_int_equal(opts.nplugins, 2);
    assert_string_equal(opts.plugins[0], "vector_add");
    assert_string_equal(opts.plugins[1], "rmsnorm");
}

static void test_dtype_mask(void **state)
{
    (void)state;
    assert_int_equal(PARSE("--dtype", "fp16,bf16"), 0);
    assert_int_equal(opts.filter.dtypes, KLAB_DTYPE_BIT(KLAB_FP16) | KLAB_DTYPE_BIT(KLAB_BF16));
    assert_int_equal(PARSE("--dtype", "float32"), 0);
    assert_int_equal(opts.filter.dtypes, KLAB_DTYPE_BIT(KLAB_FP32));
    assert_int_equal(PARSE("--dtype", "fp32", "--dtype", "bf16"), 0);
    assert_int_equal(opts.filter.dtypes, KLAB_DTYPE_BIT(KLAB_FP32) | KLAB_DTYPE_BIT(KLAB_BF16));
}

static void test_other_options(void **state)
{
    (void)state;
    assert_int_equal(PARSE("--config", "my.ini", "--plugin-path", "/a", "--plugin-path", "/b", "--ini-dir", "/i",
                           "--out", "/tmp/o", "--run-id", "r1", "--device", "3", "--hot",
                           "--timeout", "2.5", "--throttle", "0.5", "--seed", "0x10", "--no-isolate"), 0);
    assert_string_equal(opts.config, "my.ini");
    assert_int_equal(opts.npaths, 2);
    assert_string_equal(opts.plugin_paths[0], "/a");
    assert_string_equal(opts.plugin_paths[1], "/b");
    assert_string_equal(opts.ini_dir, "/i");
    assert_string_equal(opts.out_dir, "/tmp/o");
    assert_string_equal(opts.run_id, "r1");
    assert_int_equal(opts.device, 3);
    assert_int_equal(opts.hot, 1);
    assert_int_equal(opts.batched, 0);
    assert_true(opts.timeout_s == 2.5);
    assert_true(opts.throttle == 0.5);
    assert_true(opts.seed == 16);
    assert_int_equal(opts.isolate, 0);
    assert_int_equal(opts.cmd, CMD_RUN);
    assert_int_equal(PARSE("--seed", "18446744073709551615"), 0);
    assert_true(opts.seed == UINT64_MAX);
    assert_int_equal(PARSE("--batched"), 0);
    assert_int_equal(opts.batched, 1);
    assert_int_equal(opts.hot, 0);
}

static void test_errors(void **state)
{
    (void)state;
    fails(PARSE("--bogus"), "unknown option '--bogus' (see klab --help)");
    fails(PARSE("-x"), "unknown option '-x' (see klab --help)");
    fails(PARSE("--plugin"), "--plugin needs a value");
    fails(PARSE("--list", "--out"), "--out needs a value");
    fails(PARSE("-p"), "-p needs a value");
    fails(PARSE("--dtype", "fp16,fp64"), "--dtype: unknown dtype 'fp64' (known: fp32, fp16, bf16, fp8e4m3, fp8e5m2, int32, int64)");
    fails(PARSE("--run-id", "a/b"), "--run-id: 'a/b' must be a plain name under 64 characters");
    fails(PARSE("--run-id", ""), "--run-id: '' must be a plain name under 64 characters");
    fails(PARSE("--device", "-1"), "--device: '-1' is not a number in [0, 1024]");
    fails(PARSE("--device", "1.5"), "--device: '1.5' is not a device number");
    fails(PARSE("--device", "one"), "--device: 'one' is not a number in [0, 1024]");
    fails(PARSE("--timeout", "0"), "--timeout: '0' is not a number in [0.1, 86400]");
    fails(PARSE("--throttle", "1.5"), "--throttle: '1.5' is not a number in [0, 1]");
    fails(PARSE("--seed", "0"), "--seed: '0' is not a positive whole number");
    fails(PARSE("--seed", "-3x"), "--seed: '-3x' is not a positive whole number");
    fails(PARSE("--config", "x.ini", "--plugin", "rmsnorm"),
          "--config names its plugin itself; give either --config or --plugin");
    fails(PARSE("--plugin", "rmsnorm", "--config", "x.ini"),
          "--config names its plugin itself; give either --config or --plugin");
    fails(PARSE("rmsnorm"), "unexpected argument 'rmsnorm' (see klab --help)");
    fails(PARSE("--list", "extra"), "unexpected argument 'extra' (see klab --help)");
    fails(PARSE("--plugin", ",,"), "--plugin needs at least one name");
    /* --graph timed one replay per event pair, launch floor and all: it is gone, and says so */
    fails(PARSE("--graph"), "--graph was replaced by --batched: a graph replayed once per event pair kept the "
                            "~2.6 us launch floor in every sample; --batched times N runs per sample");
    fails(PARSE("--hot", "--batched"), "--hot and --batched are two timing modes: choose one");
}

/* getopt keeps global state between calls: a parse that stopped inside "-hx" or "-xh" must not leak
   into the next one. */
static void test_repeated_parses_are_independent(void **state)
{
    (void)state;
    assert_int_equal(PARSE("-hp"), 0);
    assert_int_equal(opts.cmd, CMD_HELP);
    assert_int_equal(PARSE("--list"), 0);
    assert_int_equal(opts.cmd, CMD_LIST);

    fails(PARSE("-xh"), "unknown option '-x' (see klab --help)");
    assert_int_equal(PARSE("--validate"), 0);
    assert_int_equal(opts.cmd, CMD_VALIDATE);

    /* permutation in one parse leaves nothing behind for the next */
    fails(PARSE("stray", "--list"), "unexpected argument 'stray' (see klab --help)");
    assert_int_equal(PARSE("--self-test"), 0);
    assert_int_equal(opts.cmd, CMD_SELF_TEST);
    assert_int_equal(PARSE0(), 0);
    assert_int_equal(opts.cmd, CMD_RUN);
}

/* ---- bad input through the binary ---- */

static char plugins[PATH_MAX], out_dir[PATH_MAX + 16];

/* kr_tmp with plugins/ (vector_add, crash_good) and the out/ path a run would make. */
static int setup_bin(void **state)
{
    if (kr_setup_tmp(state) != 0)
        return -1;
    kr_mkdir("plugins", plugins, sizeof plugins);
    kr_link_plugin(plugins, KLAB_BINARY_DIR "/plugins/vector_add.so");
    kr_link_plugin(plugins, KLAB_TEST_PLUGINS "/crash_good.so");
    snprintf(out_dir, sizeof out_dir, "%s/out", kr_tmp);
    return 0;
}

/* kr_tmp/name with text; returns the path (valid until the next call). */
static const char *ini_file(const char *name, const char *text)
{
    static char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/%s", kr_tmp, name);
    kr_write_file(path, text);
    return path;
}

/* `klab --config ini` and `klab --validate --config ini` both exit 2 with "ini<rest>", and the run
   neither looks for a GPU nor makes a run folder. */
static void config_refused(const char *ini, const char *rest)
{
    char want[PATH_MAX + 512];
    struct stat st;
    klab_result r = KLAB("--config", ini, "--plugin-path", plugins, "--out", out_dir);
    snprintf(want, sizeof want, "klab: %s%s\n", ini, rest);
    kr_expect_in(r.out, want);
    kr_expect_not_in(r.out, "no CUDA device");
    kr_expect_not_in(r.out, "timing needs a GPU");
    assert_int_equal(r.rc, 2);
    assert_int_equal(stat(out_dir, &st), -1);
    free(r.out);

    r = KLAB("--validate", "--config", ini, "--plugin-path", plugins);
    snprintf(want, sizeof want, "INVALID %s%s\n", ini, rest);
    kr_expect_in(r.out, want);
    assert_int_equal(r.rc, 2);
    free(r.out);
}

static void test_config_is_checked_against_its_plugin_before_gpu_work(void **state)
{
    (void)state;
    config_refused(ini_file("profile.ini", "[experiment]\nplugin = vector_add\n\n[case small]\nshape = 2^10\n"
                                           "profiles = naive, nosuch\n"),
                   ":6: [case small] key 'profiles': plugin 'vector_add' has no profile 'nosuch' (it has: "
                   "naive, vectorized, memcpy, streaming, vec8, l2_prefetch, persistent)");
    /* crash_good has fp32 and fp16: the line is that of [defaults], where the case got its dtypes */
    config_refused(ini_file("dtype.ini", "[experiment]\nplugin = crash_good\n[defaults]\ndtypes = fp32, bf16\n"
                                         "[case a]\nshape = 64\n"),
                   ":4: [defaults] key 'dtypes': plugin 'crash_good' does not support bf16");
    config_refused(ini_file("param.ini", "[experiment]\nplugin = vector_add\n[case a]\nshape = 64\nparam.opp = add\n"),
                   ":5: key 'param.opp': plugin 'vector_add' takes no such parameter");
    config_refused(ini_file("dim.ini", "[experiment]\nplugin = vector_add\n[case a]\nshape = 64\ndim.m = 64\n"),
                   ":5: key 'dim.m': plugin 'vector_add' takes no dimension 'm' (it takes: none)");
    config_refused(ini_file("reps.ini", "[experiment]\nplugin = vector_add\n[defaults]\nmin_reps = 50\n"
                                        "[case a]\nshape = 64\nmax_reps = 10\n"),
                   ":7: [case a] key 'max_reps': 10 is less than min_reps 50");
}

/* Without --config: each selected plugin's INI is checked before the GPU; with every one refused there
   is nothing to run. */
static void test_every_ini_is_checked_before_gpu_work(void **state)
{
    (void)state;
    char inis[PATH_MAX], want[PATH_MAX + 256];
    kr_mkdir("ini", inis, sizeof inis);
    snprintf(want, sizeof want, "%s/vector_add.ini", inis);
    kr_write_file(want, "[experiment]\nplugin = vector_add\n[case a]\nshape = 64\nprofiles = nosuch\n");
    snprintf(want, sizeof want, "%s/crash_good.ini", inis);
    kr_write_file(want, "[experiment]\nplugin = crash_good\n[case a]\nshape = 64\ndtypes = bf16\n");
    klab_result r = KLAB("--plugin", "vector_add,crash_good", "--plugin-path", plugins, "--ini-dir", inis, "--out",
                         out_dir);
    snprintf(want, sizeof want, "klab: %s/vector_add.ini:5: [case a] key 'profiles': plugin 'vector_add' has no "
             "profile 'nosuch'", inis);
    kr_expect_in(r.out, want);
    snprintf(want, sizeof want, "klab: %s/crash_good.ini:5: [case a] key 'dtypes': plugin 'crash_good' does not "
             "support bf16\n", inis);
    kr_expect_in(r.out, want);
    kr_expect_in(r.out, "klab: nothing to run (see the errors above)");
    kr_expect_not_in(r.out, "no CUDA device");
    assert_int_equal(r.rc, 2);
    free(r.out);
}

/* One bad INI beside a good one: the good one would run, but on a machine without a GPU the bad INI
   is still what the exit status says (2, not 3). */
static void test_bad_ini_beside_a_good_one_without_gpu(void **state)
{
    (void)state;
    int count = 0;
    if (cudaGetDeviceCount(&count) == cudaSuccess && count > 0) {
        printf("# this machine has %d CUDA device(s): the good INI would run; not this test's business\n", count);
        skip();
    }
    char inis[PATH_MAX], want[PATH_MAX + 256];
    kr_mkdir("ini", inis, sizeof inis);
    snprintf(want, sizeof want, "%s/vector_add.ini", inis);
    kr_write_file(want, "[experiment]\nplugin = vector_add\n[case a]\nshape = 64\nprofiles = nosuch\n");
    snprintf(want, sizeof want, "%s/crash_good.ini", inis);
    kr_write_file(want, "[experiment]\nplugin = crash_good\n[case a]\nshape = 64\n");
    klab_result r = KLAB("--plugin", "vector_add,crash_good", "--plugin-path", plugins, "--ini-dir", inis, "--out",
                         out_dir);
    snprintf(want, sizeof want, "klab: %s/vector_add.ini:5: [case a] key 'profiles'", inis);
    kr_expect_in(r.out, want);
    kr_expect_in(r.out, "no CUDA device");
    assert_int_equal(r.rc, 2);
    free(r.out);
}

/* Paths and bytes that are not an INI file: an error at once, naming the file (and line and key). */
static void test_bad_ini_files(void **state)
{
    (void)state;
    char want[PATH_MAX + 256];
    klab_result r = KLAB("--config", kr_tmp, "--plugin-path", plugins, "--out", out_dir);
    snprintf(want, sizeof want, "klab: %s: is a directory, not an INI file\n", kr_tmp);
    kr_expect_in(r.out, want);
    assert_int_equal(r.rc, 2);
    free(r.out);

    r = KLAB("--validate", "--config", "/dev/zero", "--plugin-path", plugins);
    kr_expect_in(r.out, "INVALID /dev/zero: is a character device, not an INI file\n");
    assert_int_equal(r.rc, 2);
    assert_true(r.secs < 30);
    free(r.out);

    /* a byte order mark first: accepted */
    const char *ini = ini_file("bom.ini", "\xef\xbb\xbf[experiment]\nplugin = vector_add\n[case 64]\n");
    r = KLAB("--validate", "--config", ini, "--plugin-path", plugins);
    snprintf(want, sizeof want, "ok      %s\n", ini);
    kr_expect_in(r.out, want);
    assert_int_equal(r.rc, 0);
    free(r.out);

    /* a control character: refused, and shown escaped, not sent to the terminal */
    config_refused(ini_file("esc.ini", "[experiment]\nplugin = vector_add\nquestion = \x1b[2Jwhy?\n[case 64]\n"),
                   ":3: [experiment] key 'question': control character \\x1b in the value (tab is the only one "
                   "allowed)");
}

/* A wrong KLAB_THREADS is a usage error named before any work (a pool would otherwise quietly take
   the CPU count); a right one is taken. */
static void test_bad_klab_threads(void **state)
{
    (void)state;
    const char *bad[] = {"0", "many", "2000"};
    for (int i = 0; i < 3; i++) {
        setenv("KLAB_THREADS", bad[i], 1);
        klab_result r = KLAB("--plugin", "no_such_plugin");
        unsetenv("KLAB_THREADS");
        assert_int_equal(r.rc, 2);
        char want[128];
        snprintf(want, sizeof want, "klab: KLAB_THREADS is '%s': it must be a whole number of threads from 1 to 1024",
                 bad[i]);
        kr_expect_in(r.out, want);
        free(r.out);
    }
    setenv("KLAB_THREADS", "3", 1);
    klab_result r = KLAB("--plugin", "no_such_plugin");
    unsetenv("KLAB_THREADS");
    kr_expect_not_in(r.out, "KLAB_THREADS");
    free(r.out);
}

static void test_descriptor_text_is_escaped(void **state)
{
    (void)state;
    kr_link_plugin(plugins, KLAB_TEST_PLUGINS "/ctl_text.so");
    klab_result r = KLAB("--list", "--plugin-path", plugins, "--plugin", "ctl_text");
    kr_expect_in(r.out, "ctl_text       1.0\\x07  (plugin ABI 2.1)\n      clears \\x1b[2Jthe screen\n");
    kr_expect_in(r.out, "profile plain        returns\\x0dOVERWRITTEN  [baseline]\n");
    kr_expect_in(r.out, "params: k\\x1b[31m\n");
    for (const char *p = r.out; *p; p++)
        if ((unsigned char)*p < 0x20 && *p != '\n')
            fail_msg("a raw control character \\x%02x reached the output at offset %d", *p, (int)(p - r.out));
    assert_int_equal(r.rc, 0);
    free(r.out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_commands),
        cmocka_unit_test(test_report),
        cmocka_unit_test(test_budget_and_quick),
        cmocka_unit_test(test_run_report),
        cmocka_unit_test(test_tune),
        cmocka_unit_test(test_selection),
        cmocka_unit_test(test_dtype_mask),
        cmocka_unit_test(test_other_options),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_repeated_parses_are_independent),
        cmocka_unit_test_setup_teardown(test_config_is_checked_against_its_plugin_before_gpu_work, setup_bin,
                                        kr_teardown_tmp),
        cmocka_unit_test_setup_teardown(test_every_ini_is_checked_before_gpu_work, setup_bin, kr_teardown_tmp),
        cmocka_unit_test_setup_teardown(test_bad_ini_beside_a_good_one_without_gpu, setup_bin, kr_teardown_tmp),
        cmocka_unit_test_setup_teardown(test_bad_ini_files, setup_bin, kr_teardown_tmp),
        cmocka_unit_test_setup_teardown(test_descriptor_text_is_escaped, setup_bin, kr_teardown_tmp),
        cmocka_unit_test_setup_teardown(test_bad_klab_threads, setup_bin, kr_teardown_tmp),
    };
    KLAB_RUN_TESTS(tests);
}
