/* klab --with-torch: the command line klab builds for tools/torch_rows.py from its own options (pure,
 * checked word by word), and through the binary: a missing or failing interpreter is skipped with one
 * line and the run goes on (on this machine to "timing needs a GPU", exit 3; on a GPU to klab's rows,
 * exit 0); a fake interpreter the test writes records the command klab ran; --validate --with-torch runs
 * the real torch_rows.py --dry-run, which needs neither torch nor a GPU. Under --shard K/N each INI goes
 * alone with a units file (--units FILE) holding exactly its slice's units, job_units' list. klab --resume
 * keeps the PyTorch CSVs a run completed. */
#include "klab_test.h"

#include <cuda_runtime.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app/cli.h"
#include "app/lab_torch.h"
#include "config/ini_config.h"
#include "host/dtype.h"
#include "klab_run.h"
#include "worker/selection.h"

static cli_opts opts;

static void parse(const char **words)
{
    char *argv[40];
    int argc = 0;
    for (; words[argc]; argc++)
        argv[argc] = (char *)words[argc];
    argv[argc] = NULL;
    char err[512];
    if (cli_parse(argc, argv, &opts, err, sizeof err) != 0)
        fail_msg("cli_parse: %s", err);
}
#define PARSE(...) parse((const char *[]){"klab", __VA_ARGS__, NULL})

static const torch_target targets[2] = {
    {"rmsnorm", "/b/plugins/rmsnorm.so", "/s/ini/rmsnorm.ini", ""},
    {"softmax", "/p/softmax.so", "/tmp/my softmax.ini", ""},
};

static void expect_argv(const torch_cmd *c, const char *const *want)
{
    int n = 0;
    for (; want[n]; n++) {
        if (n >= c->argc)
            fail_msg("word %d: expected '%s', the command has %d words", n, want[n], c->argc);
        if (strcmp(c->argv[n], want[n]))
            fail_msg("word %d: expected '%s', got '%s'", n, want[n], c->argv[n]);
    }
    assert_int_equal(c->argc, n);
    assert_null(c->argv[n]);
}
#define EXPECT_ARGV(c, ...) expect_argv(c, (const char *const[]){__VA_ARGS__, NULL})

static void test_command_for_a_run(void **state)
{
    (void)state;
    PARSE("--torch", "/opt/py/bin/python3", "--case", "4096x4096,ragged", "--dtype", "fp16,bf16", "--batched",
          "--device", "1", "--plugin", "rmsnorm,softmax");
    assert_int_equal(opts.with_torch, 1);
    torch_run run = {"out/r1", "r1", 18446744073709551557ull, NULL, NULL};
    torch_cmd c;
    assert_int_equal(torch_command(&c, &opts, "/s/tools/torch_rows.py", "/b", targets, 2, &run), 0);
    EXPECT_ARGV(&c, "/opt/py/bin/python3", "/s/tools/torch_rows.py", "--build", "/b", "--out", "out/r1", "--run-id",
                "r1", "--seed", "18446744073709551557", "--device", "1", "--csv-suffix", ".torch", "--ini",
                "/s/ini/rmsnorm.ini", "--so", "rmsnorm=/b/plugins/rmsnorm.so", "--ini", "/tmp/my softmax.ini",
                "--so", "softmax=/p/softmax.so", "--cases", "4096x4096,ragged", "--ini-cases-only", "--dtypes",
                "fp16,bf16", "--mode", "batched");
    torch_cmd_free(&c);
    assert_int_equal(c.argc, 0);
}

/* --budget-ms, --quick and --phases-out become words only when klab has them: without them the
   command is the one above, word for word (an older torch_rows.py would stop at a word it lacks) */
static void test_command_with_new_options(void **state)
{
    (void)state;
    torch_run run = {"out/r2", "r2", 5, NULL, NULL};
    torch_cmd c;
    PARSE("--with-torch", "--budget-ms", "250");
    assert_int_equal(torch_command(&c, &opts, "t.py", "/b", targets, 1, &run), 0);
    EXPECT_ARGV(&c, "python3", "t.py", "--build", "/b", "--out", "out/r2", "--run-id", "r2", "--seed", "5", "--device",
                "0", "--csv-suffix", ".torch", "--ini", "/s/ini/rmsnorm.ini", "--so", "rmsnorm=/b/plugins/rmsnorm.so",
                "--budget-ms", "250");
    torch_cmd_free(&c);
    PARSE("--with-torch", "--quick", "--hot", "--budget-ms", "12.5");
    run.phases_out = "out/r2/rmsnorm.torch.phases.ini";
    assert_int_equal(torch_command(&c, &opts, "t.py", "/b", targets, 1, &run), 0);
    EXPECT_ARGV(&c, "python3", "t.py", "--build", "/b", "--out", "out/r2", "--run-id", "r2", "--seed", "5", "--device",
                "0", "--csv-suffix", ".torch", "--ini", "/s/ini/rmsnorm.ini", "--so", "rmsnorm=/b/plugins/rmsnorm.so",
                "--mode", "hot", "--budget-ms", "12.5", "--quick", "--phases-out", "out/r2/rmsnorm.torch.phases.ini");
    torch_cmd_free(&c);
    PARSE("--with-torch", "--quick");
    run.phases_out = NULL;
    assert_int_equal(torch_command(&c, &opts, "t.py", "/b", targets, 1, &run), 0);
    EXPECT_ARGV(&c, "python3", "t.py", "--build", "/b", "--out", "out/r2", "--run-id", "r2", "--seed", "5", "--device",
                "0", "--csv-suffix", ".torch", "--ini", "/s/ini/rmsnorm.ini", "--so", "rmsnorm=/b/plugins/rmsnorm.so",
                "--quick");
    torch_cmd_free(&c);
    PARSE("--with-torch");
    assert_int_equal(torch_command(&c, &opts, "t.py", "/b", targets, 1, &run), 0);
    EXPECT_ARGV(&c, "python3", "t.py", "--build", "/b", "--out", "out/r2", "--run-id", "r2", "--seed", "5", "--device",
                "0", "--csv-suffix", ".torch", "--ini", "/s/ini/rmsnorm.ini", "--so", "rmsnorm=/b/plugins/rmsnorm.so");
    torch_cmd_free(&c);
}

static void test_command_for_validate(void **state)
{
    (void)state;
    PARSE("--validate", "--with-torch", "--hot");
    assert_string_equal(opts.torch_python, "python3");
    torch_cmd c;
    assert_int_equal(torch_command(&c, &opts, "t.py", "/b", targets, 1, NULL), 0);
    EXPECT_ARGV(&c, "python3", "t.py", "--build", "/b", "--dry-run", "--csv-suffix", ".torch", "--ini",
                "/s/ini/rmsnorm.ini", "--so", "rmsnorm=/b/plugins/rmsnorm.so", "--mode", "hot");
    torch_cmd_free(&c);
    /* plain: no --mode, no selection */
    PARSE("--with-torch");
    assert_int_equal(torch_command(&c, &opts, "t.py", "/b", targets, 1, NULL), 0);
    EXPECT_ARGV(&c, "python3", "t.py", "--build", "/b", "--dry-run", "--csv-suffix", ".torch", "--ini",
                "/s/ini/rmsnorm.ini", "--so", "rmsnorm=/b/plugins/rmsnorm.so");
    torch_cmd_free(&c);
}

/* A target with a units file: --units after its --ini and --so; it goes alone. */
static void test_command_with_units(void **state)
{
    (void)state;
    PARSE("--with-torch", "--shard", "1/3");
    torch_target t[2] = {targets[0], targets[1]};
    snprintf(t[0].units, sizeof t[0].units, "out/r1/rmsnorm.torch-units");
    torch_run run = {"out/r1", "r1", 7, NULL, NULL};
    torch_cmd c;
    assert_int_equal(torch_command(&c, &opts, "t.py", "/b", t, 1, &run), 0);
    EXPECT_ARGV(&c, "python3", "t.py", "--build", "/b", "--out", "out/r1", "--run-id", "r1", "--seed", "7", "--device",
                "0", "--csv-suffix", ".torch", "--ini", "/s/ini/rmsnorm.ini", "--so", "rmsnorm=/b/plugins/rmsnorm.so",
                "--units", "out/r1/rmsnorm.torch-units");
    torch_cmd_free(&c);
    /* torch_rows.py reads one units file for the whole command: never two targets with one */
    assert_int_equal(torch_command(&c, &opts, "t.py", "/b", t, 2, &run), -1);
    assert_int_equal(c.argc, 0);
}

static cfg_experiment cfg;

static void load_ini(const char *text)
{
    char path[] = "/tmp/klab_torch_units_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    char err[1200];
    int rc = cfg_load(path, &cfg, err, sizeof err);
    unlink(path);
    if (rc != 0)
        fail_msg("%s", err);
}

/* The file's lines, or NULL when it cannot be read. */
static char *slurp(const char *path)
{
    FILE *fp = fopen(path, "r");
    if (!fp)
        return NULL;
    char *buf = calloc(1, 65536);
    assert_non_null(buf);
    size_t n = fread(buf, 1, 65535, fp);
    buf[n] = 0;
    fclose(fp);
    return buf;
}

/* job_units' list for a filter, as the units file should hold it. */
static void expected_units(const run_filter *f, char *buf, size_t len)
{
    buf[0] = 0;
    int n = job_units(&cfg, f, -1, NULL, NULL);
    for (int u = 0; u < n; u++) {
        int ci;
        klab_dtype dt;
        job_units(&cfg, f, u, &ci, &dt);
        snprintf(buf + strlen(buf), len - strlen(buf), "%s\t%s\n", cfg.cases[ci].name, dtype_name(dt));
    }
}

/* Each shard's units file is that shard's units, in order; together the shards hold every selected unit
   once. */
static void test_units_file_of_each_shard(void **state)
{
    (void)state;
    load_ini("[experiment]\nplugin = softmax\n[defaults]\ndtypes = fp32, fp16, bf16\n[case a]\nshape = 64x64\n"
             "[case b]\nshape = 64x128\n[case c]\nshape = 8x8\ndtypes = fp32\n[case d]\nshape = 2x2\n");
    char path[PATH_MAX + 64], want[8192], all[8192] = "";
    snprintf(path, sizeof path, "%s/softmax.torch-units", kr_tmp);
    run_filter f;
    memset(&f, 0, sizeof f);
    f.dtypes = KLAB_DTYPE_BIT(KLAB_FP16) | KLAB_DTYPE_BIT(KLAB_FP32);
    expected_units(&f, all, sizeof all);
    assert_int_equal(job_units(&cfg, &f, -1, NULL, NULL), 7);
    for (int slices = 1; slices <= 5; slices++) {
        int total = 0;
        char seen[8192] = "";
        for (int k = 0; k < slices; k++) {
            f.shard_k = k;
            f.shard_n = slices;
            int n = -1;
            char err[1200];
            assert_int_equal(torch_units_write(path, &cfg, &f, &n, err, sizeof err), 0);
            char *got = slurp(path);
            assert_non_null(got);
            expected_units(&f, want, sizeof want);
            assert_string_equal(got, want);
            assert_int_equal(n, job_units(&cfg, &f, -1, NULL, NULL));
            total += n;
            for (char *line = got; *line;) { /* no unit in two slices */
                char *nl = strchr(line, '\n');
                *nl = 0;
                char key[200];
                snprintf(key, sizeof key, "|%s|", line);
                if (strstr(seen, key))
                    fail_msg("%d/%d: unit %s is in two slices", k, slices, line);
                if (!strstr(all, line))
                    fail_msg("%d/%d: unit %s is not selected", k, slices, line);
                snprintf(seen + strlen(seen), sizeof seen - strlen(seen), "%s", key);
                line = nl + 1;
            }
            free(got);
        }
        assert_int_equal(total, 7);
    }
}

static void test_options(void **state)
{
    (void)state;
    static cli_opts o;
    char err[512];
    struct {
        const char *words[6];
        const char *err;
    } bad[] = {
        {{"klab", "--with-torch", "--tune", NULL}, "--with-torch goes with a run, or with --validate, not with --tune or --verify-only"},
        {{"klab", "--torch", "python3", "--verify-only", NULL}, "--with-torch goes with a run, or with --validate, not with --tune or --verify-only"},
        {{"klab", "--with-torch", "--list", NULL}, "--with-torch goes with a run, or with --validate, not with --tune or --verify-only"},
        {{"klab", "--torch", "", NULL}, "--torch: '' is not a usable interpreter"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *argv[6];
        int argc = 0;
        for (; bad[i].words[argc]; argc++)
            argv[argc] = (char *)bad[i].words[argc];
        argv[argc] = NULL;
        assert_int_equal(cli_parse(argc, argv, &o, err, sizeof err), -1);
        assert_string_equal(err, bad[i].err);
    }
    PARSE("--plugin", "vector_add");
    assert_int_equal(opts.with_torch, 0);
}

/* ---- through the binary ---- */

static int have_gpu(void)
{
    int count = 0;
    return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
}

/* A run of vector_add's small GPU-test INI with PyTorch asked of `python`. */
#define TORCH_RUN(python, run_id)                                                                              \
    KLAB("--with-torch", "--torch", python, "--plugin", "vector_add", "--plugin-path", KLAB_BINARY_DIR "/plugins", \
         "--ini-dir", KLAB_TEST_DATA "/gpu/ini", "--case", "triad-2^20", "--dtype", "fp32", "--out", "out",         \
         "--run-id", run_id)

/* Either "timing needs a GPU" (exit 3) here, or the run's own rows on a GPU machine. */
static void expect_klab_run(const klab_result *r, const char *run_id, int rc_on_gpu)
{
    if (!have_gpu()) {
        assert_int_equal(r->rc, 3);
        kr_expect_in(r->out, "timing needs a GPU");
        return;
    }
    assert_int_equal(r->rc, rc_on_gpu);
    char path[PATH_MAX + 128];
    snprintf(path, sizeof path, "%s/out/%s/vector_add.csv", kr_tmp, run_id);
    if (access(path, R_OK) != 0)
        fail_msg("no %s: klab's own rows must not depend on PyTorch's", path);
}

static void test_interpreter_that_fails_is_skipped(void **state)
{
    (void)state;
    klab_result r = TORCH_RUN("/bin/false", "t-false");
    kr_expect_in(r.out, "klab: PyTorch rows skipped: '/bin/false ");
    kr_expect_in(r.out, "torch_rows.py --check' said nothing (exit status 1)\n");
    expect_klab_run(&r, "t-false", 0);
    free(r.out);
    r = TORCH_RUN("/nonexistent/python3", "t-none");
    kr_expect_in(r.out, "klab: PyTorch rows skipped: cannot run '/nonexistent/python3': No such file or directory\n");
    expect_klab_run(&r, "t-none", 0);
    free(r.out);
    /* python3 itself: torch or not, one line says which before the GPU work */
    r = TORCH_RUN("python3", "t-python3");
    if (!strstr(r.out, "klab: PyTorch rows: torch "))
        kr_expect_in(r.out, "klab: PyTorch rows skipped: no torch in ");
    expect_klab_run(&r, "t-python3", 0);
    free(r.out);
}

static char fake[PATH_MAX + 32];

/* A fake interpreter: it answers --check, and appends any other command line to argv.txt beside it
   (a units file it is given copied there as copy.<its name>: klab removes its own), exiting with `rc`. */
static void write_fake(int rc)
{
    snprintf(fake, sizeof fake, "%s/fake-python", kr_tmp);
    char text[1024];
    snprintf(text, sizeof text,
             "#!/bin/sh\n"
             "if [ \"$2\" = --check ]; then echo 'torch 9.9 on Fake GPU'; exit 0; fi\n"
             "printf '%%s\\n' \"$@\" >> \"$(dirname \"$0\")/argv.txt\"\n"
             "prev=; for a; do [ \"$prev\" = --units ] && cp \"$a\" \"$(dirname \"$0\")/copy.$(basename \"$a\")\"; prev=$a; done\n"
             "echo 'fake torch_rows ran'\n"
             "exit %d\n",
             rc);
    kr_write_file(fake, text);
    assert_int_equal(chmod(fake, 0755), 0);
}

/* argv.txt, the words the fake was given (after the interpreter), one a line; NULL when it did not run. */
static char *recorded(void)
{
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/argv.txt", kr_tmp);
    FILE *fp = fopen(path, "r");
    if (!fp)
        return NULL;
    char *buf = calloc(1, 65536);
    assert_non_null(buf);
    buf[0] = '\n'; /* every word is then "\nword\n" */
    size_t n = fread(buf + 1, 1, 65534, fp);
    buf[n + 1] = 0;
    fclose(fp);
    return buf;
}

static void test_fake_interpreter_gets_klabs_selection(void **state)
{
    (void)state;
    write_fake(0);
    klab_result r = KLAB("--validate", "--with-torch", "--torch", fake, "--plugin", "vector_add", "--plugin-path",
                         KLAB_BINARY_DIR "/plugins", "--ini-dir", KLAB_TEST_DATA "/gpu/ini", "--case", "triad-2^20",
                         "--dtype", "fp32", "--batched");
    assert_int_equal(r.rc, 0);
    kr_expect_in(r.out, "klab: PyTorch cases (torch_rows.py --dry-run): ");
    kr_expect_in(r.out, "fake torch_rows ran");
    free(r.out);
    char *words = recorded();
    assert_non_null(words);
    kr_echo(words);
    /* klab's own driver and libklab_bench: the build tree's, beside klab (an installed klab's are in its
       prefix: tests/cli/sdk_example_torch.sh) */
    kr_expect_in(words, "\n" KLAB_BINARY_DIR "/python/torch_rows.py\n--build\n" KLAB_BINARY_DIR "\n");
    kr_expect_in(words, "\n--dry-run\n--csv-suffix\n.torch\n--ini\n" KLAB_TEST_DATA "/gpu/ini/vector_add.ini\n--so\n"
                        "vector_add=");
    kr_expect_in(words, "/vector_add.so\n--cases\ntriad-2^20\n--ini-cases-only\n--dtypes\nfp32\n--mode\nbatched\n");
    kr_expect_not_in(words, "--seed");
    free(words);

    /* a case this INI does not have: refused, and nothing for PyTorch either */
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/argv.txt", kr_tmp);
    unlink(path);
    r = KLAB("--validate", "--with-torch", "--torch", fake, "--plugin", "vector_add", "--plugin-path",
             KLAB_BINARY_DIR "/plugins", "--ini-dir", KLAB_TEST_DATA "/gpu/ini", "--case", "nosuch");
    kr_expect_in(r.out, "INVALID --case nosuch: no such case in ");
    assert_int_equal(r.rc, 2);
    assert_null(recorded());
    free(r.out);

    /* a run: the interpreter is asked before the GPU work; the run's command carries its folder, id and seed */
    r = TORCH_RUN(fake, "t-fake");
    kr_expect_in(r.out, "klab: PyTorch rows: torch 9.9 on Fake GPU (");
    expect_klab_run(&r, "t-fake", 0);
    free(r.out);
    words = recorded();
    if (!have_gpu()) {
        assert_null(words); /* no GPU: klab stopped before the rows, PyTorch's too */
        return;
    }
    assert_non_null(words);
    kr_echo(words);
    kr_expect_in(words, "\n--out\nout/t-fake\n--run-id\nt-fake\n--seed\n");
    kr_expect_in(words, "\n--device\n0\n--csv-suffix\n.torch\n");
    kr_expect_not_in(words, "--dry-run");
    free(words);
}

/* A run's PyTorch part called as lab_run calls it, without a GPU: a fake interpreter whose --help
   offers --phases-out gets it (the file named after the INI's stem), writes its phases there, and klab
   adds them to the run's as torch_<key> beside the child's own time ("torch"), then removes the
   file; a fake that does not offer it gets no such word. */
static void test_torch_phases(void **state)
{
    (void)state;
    for (int offers = 1; offers >= 0; offers--) {
        snprintf(fake, sizeof fake, "%s/fake-phases", kr_tmp);
        char text[1200];
        snprintf(text, sizeof text,
                 "#!/bin/sh\n"
                 "if [ \"$2\" = --help ]; then echo 'usage: torch_rows.py%s'; exit 0; fi\n"
                 "printf '%%s\\n' \"$@\" > \"$(dirname \"$0\")/argv.txt\"\n"
                 "out=; prev=; for w in \"$@\"; do [ \"$prev\" = --phases-out ] && out=$w; prev=$w; done\n"
                 "[ -n \"$out\" ] && printf '[phases]\\ncompile_ms = 1500.5\\ntiming_ms = 20\\n' > \"$out\"\n"
                 "exit 0\n",
                 offers ? " [--phases-out FILE]" : "");
        kr_write_file(fake, text);
        assert_int_equal(chmod(fake, 0755), 0);
        PARSE("--torch", fake, "--quick");
        torch_target t = {"vector_add", KLAB_BINARY_DIR "/plugins/vector_add.so",
                          KLAB_TEST_DATA "/gpu/ini/vector_add.ini", ""};
        static run_phases ph;
        memset(&ph, 0, sizeof ph);
        torch_run run = {kr_tmp, "r1", 7, &ph, NULL};
        assert_int_equal(lab_torch(&opts, &t, 1, &run), 0);
        char *words = recorded();
        assert_non_null(words);
        kr_echo(words);
        char want[PATH_MAX + 64], file[PATH_MAX + 64];
        snprintf(file, sizeof file, "%s/vector_add.torch.phases.ini", kr_tmp);
        snprintf(want, sizeof want, "\n--quick\n--phases-out\n%s\n", file);
        assert_int_equal(access(file, F_OK), -1); /* read, then removed */
        int n = offers ? 3 : 1;
        assert_int_equal(ph.n, n);
        assert_string_equal(ph.e[0].plugin, "vector_add");
        assert_string_equal(ph.e[0].phase, "torch");
        assert_true(ph.e[0].ms > 0);
        if (offers) {
            kr_expect_in(words, want);
            assert_string_equal(ph.e[1].phase, "torch_compile");
            assert_true(ph.e[1].ms == 1500.5);
            assert_string_equal(ph.e[2].phase, "torch_timing");
            assert_true(ph.e[2].ms == 20);
        } else {
            kr_expect_in(words, "\n--quick\n");
            kr_expect_not_in(words, "--phases-out");
        }
        free(words);
    }
}

/* --validate --with-torch --shard K/N: each INI goes to torch_rows.py alone, with a units file holding
   exactly that shard's units (job_units' list, in order); klab lists them, and removes the file. */
static void test_shard_units_through_klab(void **state)
{
    (void)state;
    write_fake(0);
    const char *plugins[] = {"vector_add", "softmax"};
    for (int k = 0; k < 2; k++) {
        char shard[8], path[PATH_MAX + 64], want[8192], line[PATH_MAX + 200];
        snprintf(shard, sizeof shard, "%d/2", k);
        snprintf(path, sizeof path, "%s/argv.txt", kr_tmp);
        unlink(path);
        klab_result r = KLAB("--validate", "--with-torch", "--torch", fake, "--plugin", "vector_add,softmax",
                             "--plugin-path", KLAB_BINARY_DIR "/plugins", "--ini-dir", KLAB_TEST_DATA "/gpu/ini",
                             "--shard", shard);
        assert_int_equal(r.rc, 0);
        char *words = recorded();
        assert_non_null(words);
        int inis = 0;
        for (int p = 0; p < 2; p++) {
            char ini[PATH_MAX];
            snprintf(ini, sizeof ini, "%s/gpu/ini/%s.ini", KLAB_TEST_DATA, plugins[p]);
            char err[1200];
            if (cfg_load(ini, &cfg, err, sizeof err) != 0)
                fail_msg("%s", err);
            run_filter f;
            memset(&f, 0, sizeof f);
            f.shard_k = k;
            f.shard_n = 2;
            int n = job_units(&cfg, &f, -1, NULL, NULL);
            snprintf(line, sizeof line, "klab: PyTorch units of %s (shard %d/2): %d\n", ini, k, n);
            if (n == 0) { /* no unit of this INI in the slice: no command for it */
                kr_expect_not_in(r.out, line);
                continue;
            }
            kr_expect_in(r.out, line);
            inis++;
            expected_units(&f, want, sizeof want);
            snprintf(path, sizeof path, "%s/copy.%s.torch-units", kr_tmp, plugins[p]);
            char *got = slurp(path);
            if (!got)
                fail_msg("torch_rows.py was not given %s.torch-units", plugins[p]);
            assert_string_equal(got, want);
            free(got);
            unlink(path);
            /* listed by klab, one unit a line */
            int ci;
            klab_dtype dt;
            job_units(&cfg, &f, n - 1, &ci, &dt);
            snprintf(line, sizeof line, "\n  %s %s\n", cfg.cases[ci].name, dtype_name(dt));
            kr_expect_in(r.out, line);
        }
        assert_true(inis > 0);
        /* one command per INI, each with its units file, which klab removed */
        int commands = 0;
        for (const char *w = strstr(words, "\n--units\n"); w; w = strstr(w + 1, "\n--units\n")) {
            const char *file = w + strlen("\n--units\n");
            snprintf(path, sizeof path, "%.*s", (int)(strchr(file, '\n') - file), file);
            if (access(path, F_OK) == 0)
                fail_msg("%s was left behind", path);
            commands++;
        }
        assert_int_equal(commands, inis);
        free(words);
        free(r.out);
    }
}

/* klab --resume: a target whose <INI stem>.torch.csv the run completed is kept, the others run. */
static void test_resume_keeps_complete_torch_csvs(void **state)
{
    (void)state;
    write_fake(0);
    PARSE("--torch", fake, "--resume", "R");
    torch_target t[2];
    memset(t, 0, sizeof t);
    const char *plugins[] = {"vector_add", "softmax"};
    for (int i = 0; i < 2; i++) {
        snprintf(t[i].plugin, sizeof t[i].plugin, "%s", plugins[i]);
        snprintf(t[i].so, sizeof t[i].so, "%s/plugins/%s.so", KLAB_BINARY_DIR, plugins[i]);
        snprintf(t[i].ini, sizeof t[i].ini, "%s/gpu/ini/%s.ini", KLAB_TEST_DATA, plugins[i]);
    }
    char dir[PATH_MAX + 16], path[PATH_MAX + 64];
    kr_mkdir("R", dir, sizeof dir);
    snprintf(path, sizeof path, "%s/vector_add.torch.csv", dir);
    kr_write_file(path, "run_id\n");
    torch_run run = {dir, "R", 9, NULL, NULL};
    assert_int_equal(lab_torch(&opts, t, 2, &run), 0);
    char *words = recorded();
    assert_non_null(words);
    kr_expect_in(words, "\n--ini\n" KLAB_TEST_DATA "/gpu/ini/softmax.ini\n");
    kr_expect_not_in(words, "vector_add.ini");
    free(words);
    /* both complete: nothing runs */
    snprintf(path, sizeof path, "%s/softmax.torch.csv", dir);
    kr_write_file(path, "run_id\n");
    snprintf(path, sizeof path, "%s/argv.txt", kr_tmp);
    unlink(path);
    assert_int_equal(lab_torch(&opts, t, 2, &run), 0);
    assert_null(recorded());
    /* not a resumed run: a CSV there is no reason to skip */
    PARSE("--torch", fake);
    assert_int_equal(lab_torch(&opts, t, 2, &run), 0);
    words = recorded();
    assert_non_null(words);
    kr_expect_in(words, "vector_add.ini");
    free(words);
}

static void test_failing_torch_rows_fail_the_run(void **state)
{
    (void)state;
    if (!have_gpu())
        skip(); /* without a GPU the run ends before PyTorch's part (test_fake_interpreter_...) */
    write_fake(1);
    klab_result r = TORCH_RUN(fake, "t-fail");
    kr_expect_in(r.out, "torch_rows.py exited with status 1; its complete CSVs are in out/t-fail");
    expect_klab_run(&r, "t-fail", 1);
    free(r.out);
}

static void test_real_dry_run(void **state)
{
    (void)state;
    /* python3 and tools/torch_rows.py --dry-run: no torch, no GPU needed */
    klab_result r = KLAB("--validate", "--with-torch", "--plugin", "vector_add", "--plugin-path",
                         KLAB_BINARY_DIR "/plugins", "--ini-dir", KLAB_TEST_DATA "/gpu/ini");
    assert_int_equal(r.rc, 0);
    kr_expect_in(r.out, "plugin vector_add  -> vector_add.torch.csv  (PyTorch: " KLAB_BINARY_DIR
                        "/plugins/vector_add_torch.py)"); /* the module beside the plugin klab found */
    kr_expect_in(r.out, "\n# torch: "); /* whether this python has torch, said without importing it */
    kr_expect_in(r.out, "triad-2^20");
    kr_expect_in(r.out, "param.op = triad: no PyTorch callable");
    kr_expect_in(r.out, "torch.copy_");
    free(r.out);
    /* a shard: torch_rows.py lists only the units of the file klab gave it. Three units (copy-odd fp32
       and fp16, copy-l2 fp32) in five slices: a slice holding one of them */
    char err[1200];
    if (cfg_load(KLAB_TEST_DATA "/gpu/ini/vector_add.ini", &cfg, err, sizeof err) != 0)
        fail_msg("%s", err);
    run_filter f;
    memset(&f, 0, sizeof f);
    f.shard_n = 5;
    f.ncases = 2;
    snprintf(f.cases[0], sizeof f.cases[0], "copy-odd");
    snprintf(f.cases[1], sizeof f.cases[1], "copy-l2");
    while (job_units(&cfg, &f, -1, NULL, NULL) != 1)
        f.shard_k++;
    int ci;
    klab_dtype dt;
    job_units(&cfg, &f, 0, &ci, &dt);
    char shard[8];
    snprintf(shard, sizeof shard, "%d/5", f.shard_k);
    r = KLAB("--validate", "--with-torch", "--plugin", "vector_add", "--plugin-path", KLAB_BINARY_DIR "/plugins",
             "--ini-dir", KLAB_TEST_DATA "/gpu/ini", "--shard", shard, "--case", "copy-odd,copy-l2");
    assert_int_equal(r.rc, 0);
    const char *listing = strstr(r.out, "klab: PyTorch cases (torch_rows.py --dry-run): ");
    assert_non_null(listing);
    kr_expect_in(listing, " --units ");
    const char *other = strcmp(cfg.cases[ci].name, "copy-l2") ? "copy-l2" : "copy-odd";
    char unit[200];
    snprintf(unit, sizeof unit, "\n  %s ", cfg.cases[ci].name);
    kr_expect_in(listing, unit);
    snprintf(unit, sizeof unit, "\n  %s ", other);
    kr_expect_not_in(listing, unit);
    kr_expect_in(listing, dtype_name(dt));
    kr_expect_not_in(listing, "fp32,fp16"); /* copy-odd's two dtypes: one is another slice's */
    free(r.out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_command_for_a_run),
        cmocka_unit_test(test_command_with_new_options),
        cmocka_unit_test(test_command_for_validate),
        cmocka_unit_test(test_command_with_units),
        KR_TEST(test_units_file_of_each_shard),
        cmocka_unit_test(test_options),
        KR_TEST(test_interpreter_that_fails_is_skipped),
        KR_TEST(test_fake_interpreter_gets_klabs_selection),
        KR_TEST(test_torch_phases),
        KR_TEST(test_shard_units_through_klab),
        KR_TEST(test_resume_keeps_complete_torch_csvs),
        KR_TEST(test_failing_torch_rows_fail_the_run),
        KR_TEST(test_real_dry_run),
    };
    KLAB_RUN_TESTS(tests);
}
