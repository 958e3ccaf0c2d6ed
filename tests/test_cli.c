/* cli_parse: the command line, parsed with no side effects; every error one exact sentence. Many
 * parses run in one process, so getopt's global state must be reset by cli_parse itself. */
#include "klab_test.h"

#include <string.h>

#include "cli.h"

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
    fails(PARSE("report"), "report takes one run folder: klab report out/RUN_ID");
    fails(PARSE("report", "a", "b"), "report takes one run folder: klab report out/RUN_ID");
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
    fails(PARSE("--dtype", "fp16,fp64"), "--dtype: unknown dtype 'fp64' (known: fp32, fp16, bf16)");
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_commands),
        cmocka_unit_test(test_report),
        cmocka_unit_test(test_selection),
        cmocka_unit_test(test_dtype_mask),
        cmocka_unit_test(test_other_options),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_repeated_parses_are_independent),
    };
    KLAB_RUN_TESTS(tests);
}
