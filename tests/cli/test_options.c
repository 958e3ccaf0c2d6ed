/* The command line as a hostile user writes it: NaN, negative and out-of-range numbers (NaN passed
 * every range check: it is neither below nor above), a seed of -1 (read as 2^64 - 1), control bytes in a
 * word (an escape sequence as --run-id reached meta.ini, folder names and the terminal), a run id that
 * climbs out of --out, and folders named on the command line that do not exist (a misspelt --ini-dir
 * fell back to the default search without a word). And meta.ini's text in the Markdown report, escaped
 * as the HTML report escapes it. */
#include "klab_test.h"

#include <string.h>
#include <sys/stat.h>

#include "app/cli.h"
#include "evidence/csv_sink.h"
#include "klab_run.h"
#include "report_fixture.h"

static cli_opts opts;
static char err[1024];

static int parse(const char *const *args)
{
    char *argv[32];
    int n = 0;
    argv[n++] = "klab";
    for (; *args; args++)
        argv[n++] = (char *)*args;
    argv[n] = NULL;
    err[0] = 0;
    return cli_parse(n, argv, &opts, err, sizeof err);
}
#define PARSE(...) parse((const char *const[]){__VA_ARGS__, NULL})

static void test_numbers(void **state)
{
    (void)state;
    struct {
        const char *opt, *value, *why;
    } bad[] = {
        {"--threshold", "nan", "--threshold: 'nan' is not a number in [0.01, 99]"},
        {"--threshold", "-5", "--threshold: '-5' is not a number in [0.01, 99]"},
        {"--throttle", "nan", "--throttle: 'nan' is not a number in [0, 1]"},
        {"--throttle", "NAN", "--throttle: 'NAN' is not a number in [0, 1]"},
        {"--throttle", "-0.5", "--throttle: '-0.5' is not a number in [0, 1]"},
        {"--throttle", "inf", "--throttle: 'inf' is not a number in [0, 1]"},
        {"--timeout", "nan", "--timeout: 'nan' is not a number in [0.1, 86400]"},
        {"--timeout", "-1", "--timeout: '-1' is not a number in [0.1, 86400]"},
        {"--device", "nan", "--device: 'nan' is not a number in [0, 1024]"},
        {"--device", "-1", "--device: '-1' is not a number in [0, 1024]"},
        {"--seed", "-1", "--seed: '-1' is not a positive whole number"},
        {"--seed", " 7", "--seed: ' 7' is not a positive whole number"},
        {"--seed", "+7", "--seed: '+7' is not a positive whole number"},
        {"--seed", "99999999999999999999999", "--seed: '99999999999999999999999' is not a positive whole number"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int rc = !strcmp(bad[i].opt, "--threshold") ? PARSE("compare", bad[i].opt, bad[i].value, "a", "b")
                                                    : PARSE(bad[i].opt, bad[i].value);
        if (rc != -1)
            fail_msg("%s %s was accepted", bad[i].opt, bad[i].value);
        assert_string_equal(err, bad[i].why);
    }
    assert_int_equal(PARSE("--throttle", "0.5", "--seed", "7", "--timeout", "2"), 0);
    assert_true(opts.throttle == 0.5 && opts.seed == 7 && opts.timeout_s == 2);
}

static void test_words(void **state)
{
    (void)state;
    assert_int_equal(PARSE("--run-id", "\x1b[31mred"), -1);
    assert_string_equal(err, "'\\x1b[31mred' holds a control character (\\x1b): klab takes none");
    assert_int_equal(PARSE("--out", "out\nx"), -1);
    assert_string_equal(err, "'out\\x0ax' holds a control character (\\x0a): klab takes none");
    assert_int_equal(PARSE("report", "run\x7f"), -1);
    assert_string_equal(err, "'run\\x7f' holds a control character (\\x7f): klab takes none");
    assert_int_equal(PARSE("--case=a\tb"), -1);
    assert_int_equal(PARSE("--run-id", ".."), -1);
    assert_string_equal(err, "--run-id: '..' must be a plain name under 64 characters");
    assert_int_equal(PARSE("--run-id", "."), -1);
    assert_int_equal(PARSE("--run-id", "r-1.2_x"), 0);
    assert_int_equal(PARSE("--allow-missing"), -1);
    assert_string_equal(err, "--allow-missing and --allow-config-change go with klab compare RUN-A RUN-B");
    assert_int_equal(PARSE("compare", "--allow-missing", "--allow-config-change", "a", "b"), 0);
    assert_true(opts.allow_missing && opts.allow_config_change);
}

/* Folders named on the command line: checked apart from the parse (cli_check_folders), and through
   the binary, exit 2 before any work. */
static void test_folders(void **state)
{
    (void)state;
    char dir[PATH_MAX];
    kr_mkdir("plugins", dir, sizeof dir);
    assert_int_equal(PARSE("--plugin-path", dir, "--plugin-path", "/nonexistent/plugins"), 0);
    assert_int_equal(cli_check_folders(&opts, err, sizeof err), -1);
    assert_string_equal(err, "--plugin-path: '/nonexistent/plugins': No such file or directory");
    assert_int_equal(PARSE("--ini-dir", "/etc/hostname"), 0);
    assert_int_equal(cli_check_folders(&opts, err, sizeof err), -1);
    assert_string_equal(err, "--ini-dir: '/etc/hostname' is not a folder");
    assert_int_equal(PARSE("report"), 0); /* the default experiments folder may be missing */
    assert_int_equal(cli_check_folders(&opts, err, sizeof err), 0);
    klab_result r = KLAB("--validate", "--ini-dir", "nowhere");
    assert_int_equal(r.rc, 2);
    kr_expect_in(r.out, "klab: --ini-dir: 'nowhere': No such file or directory");
    free(r.out);
    r = KLAB("--list", "--plugin-path", "nowhere");
    assert_int_equal(r.rc, 2);
    free(r.out);
    r = KLAB("report", "--experiments", "nowhere", "run");
    assert_int_equal(r.rc, 2);
    kr_expect_in(r.out, "klab: --experiments: 'nowhere': No such file or directory");
    free(r.out);
    r = KLAB("--list", "--run-id", "\x1b]0;pwned\x07");
    assert_int_equal(r.rc, 2);
    kr_expect_not_in(r.out, "\x1b");
    free(r.out);
}

/* meta.ini's text in the Markdown report: a GPU name that is a link, an image, HTML, emphasis, and an
   id with a backtick, written by whoever made the run folder, are shown as text, not rendered. */
static void test_markdown_escapes_meta(void **state)
{
    (void)state;
    char dir[PATH_MAX], path[PATH_MAX + 64];
    kr_mkdir("run", dir, sizeof dir);
    kr_mkdir("exp", path, sizeof path);
    klab_row row = fx_row("big", "fp16", "fused", 1.0, 0.01, 2, 0.9);
    fx_write_run(dir, "fx", &row, 1, "x");
    snprintf(path, sizeof path, "%s/meta.ini", dir);
    kr_write_file(path, "[run]\nid = a`b\ncommit = *bold*\nstarted = _x_\n[device]\n"
                        "name = <img src=x onerror=alert(1)>[click](javascript:alert(1))\n");
    snprintf(path, sizeof path, "%s/exp/x.exp.ini", kr_tmp);
    kr_write_file(path, "[experiment]\nplugin = fx\nquestion = q?\n");
    klab_result r = KLAB("report", "--experiments", "exp", "--out-dir", "rep", "run");
    assert_int_equal(r.rc, 0);
    free(r.out);
    snprintf(path, sizeof path, "%s/rep/experiments/x.md", kr_tmp);
    size_t len;
    char *md = file_read_all(path, &len);
    assert_non_null(md);
    kr_expect_in(md, "- `a'b`: run (1 rows, &lt;img src=x onerror=alert\\(1\\)&gt;\\[click\\]\\(javascript:alert\\(1\\)\\), "
                     "commit \\*bold\\*, \\_x\\_)");
    kr_expect_not_in(md, "<img");
    kr_expect_not_in(md, "[click](");
    free(md);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_numbers),
        cmocka_unit_test(test_words),
        KR_TEST(test_folders),
        KR_TEST(test_markdown_escapes_meta),
    };
    KLAB_RUN_TESTS(tests);
}
