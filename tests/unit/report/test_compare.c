/* klab compare: two runs' rows matched by key and judged from both medians' intervals. The runs are
 * synthetic, with known noise: each row's samples are drawn by the test (a seeded generator, a chosen
 * median and spread) and summarised by klab's own statistics (stats_compute), as a real row is, then
 * written as CSV (csv_sink) into run folders the test makes. Two runs of one distribution must come
 * out SAME and exit 0; a 10 % slowdown with tight intervals SLOWER and exit 1; noisy overlapping
 * intervals UNSURE; rows and files on one side only are listed as such; flagged, incorrect, untimed
 * and ambiguous rows are never SAME. Then the same through the klab binary, and on a GPU two real runs
 * of this commit, which must come out SAME. */
#include "klab_test.h"

#include <cuda_runtime.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>

#include "app/cli.h"
#include "compare_fixture.h"
#include "evidence/csv_sink.h"
#include "klab_run.h"
#include "report/compare.h"
#include "stats/stats.h"

/* The verdicts of rows a against rows b, in cmp_rows's order. */
static int judge(const klab_row *a, int na, const klab_row *b, int nb, double t, cmp_pair **p)
{
    int n = cmp_rows(a, na, b, nb, t, p);
    assert_true(n >= 0);
    return n;
}

static void test_same_distribution_is_same(void **state)
{
    (void)state;
    klab_row a[3], b[3];
    three_rows(a, 1.0, 0.01, 500, 11);
    three_rows(b, 1.0, 0.01, 500, 97); /* another run: other draws of the same distribution */
    cmp_pair *p;
    int n = judge(a, 3, b, 3, CMP_DEFAULT_THRESHOLD, &p);
    assert_int_equal(n, 3);
    for (int i = 0; i < n; i++) {
        assert_int_equal(p[i].v, CMP_SAME);
        assert_int_equal(p[i].regression, 0);
        assert_true(p[i].has_bounds && p[i].lo <= p[i].ratio && p[i].ratio <= p[i].hi);
        assert_true(fabs(p[i].ratio - 1) < 0.01);
        assert_string_equal(p[i].why, "");
    }
    /* a run against itself */
    free(p);
    n = judge(a, 3, a, 3, CMP_DEFAULT_THRESHOLD, &p);
    for (int i = 0; i < n; i++)
        assert_int_equal(p[i].v, CMP_SAME);
    free(p);
}

static void test_ten_percent_slower_is_slower(void **state)
{
    (void)state;
    klab_row a[3], b[3];
    three_rows(a, 1.0, 0.01, 500, 11);
    three_rows(b, 1.10, 0.01, 500, 97);
    cmp_pair *p;
    int n = judge(a, 3, b, 3, CMP_DEFAULT_THRESHOLD, &p);
    for (int i = 0; i < n; i++) {
        assert_int_equal(p[i].v, CMP_SLOWER);
        assert_int_equal(p[i].regression, 1);
        assert_true(p[i].lo > 1.05 && fabs(p[i].ratio - 1.10) < 0.01);
    }
    free(p);
    /* the other way round it is faster, and no regression */
    n = judge(b, 3, a, 3, CMP_DEFAULT_THRESHOLD, &p);
    for (int i = 0; i < n; i++) {
        assert_int_equal(p[i].v, CMP_FASTER);
        assert_int_equal(p[i].regression, 0);
    }
    free(p);
    /* a threshold of 20 %: a 10 % change with tight intervals is within it */
    n = judge(a, 3, b, 3, 0.20, &p);
    for (int i = 0; i < n; i++)
        assert_int_equal(p[i].v, CMP_SAME);
    free(p);
    /* a 5 % change: its bounds straddle the threshold, so it cannot be called either way */
    klab_row c[3];
    three_rows(c, 1.05, 0.01, 500, 97);
    n = judge(a, 3, c, 3, CMP_DEFAULT_THRESHOLD, &p);
    for (int i = 0; i < n; i++) {
        assert_int_equal(p[i].v, CMP_UNSURE);
        assert_int_equal(p[i].regression, 0);
        assert_non_null(strstr(p[i].why, "reach past the threshold"));
    }
    free(p);
}

static void test_noisy_overlap_is_unsure(void **state)
{
    (void)state;
    /* 30 % spread, 20 samples: intervals of several percent, overlapping, whether B is the same or 8 %
       slower; neither is SAME, neither is a regression */
    for (int k = 0; k < 2; k++) {
        klab_row a[3], b[3];
        three_rows(a, 1.0, 0.30, 20, 5);
        three_rows(b, k ? 1.08 : 1.0, 0.30, 20, 77);
        cmp_pair *p;
        int n = judge(a, 3, b, 3, CMP_DEFAULT_THRESHOLD, &p);
        for (int i = 0; i < n; i++) {
            assert_true(b[i].median_lo <= a[i].median_hi && a[i].median_lo <= b[i].median_hi);
            assert_int_equal(p[i].v, CMP_UNSURE);
            assert_int_equal(p[i].regression, 0);
            assert_non_null(strstr(p[i].why, "the intervals overlap"));
        }
        free(p);
    }
    /* under 6 samples there is no interval: a ratio, and UNSURE */
    klab_row a = row_of("4096x4096", "fused", 0.0188, 0.001, 4, 1), b = row_of("4096x4096", "fused", 0.0188, 0.001, 4, 2);
    assert_int_equal(a.has_ci, 0);
    cmp_pair p;
    cmp_judge(&a, &b, CMP_DEFAULT_THRESHOLD, &p);
    assert_int_equal(p.v, CMP_UNSURE);
    assert_true(p.has_ratio && !p.has_bounds);
    assert_string_equal(p.why, "no interval in either run (under 6 samples)");
}

static void test_rows_on_one_side(void **state)
{
    (void)state;
    klab_row a[3], b[3];
    three_rows(a, 1.0, 0.01, 500, 11);
    three_rows(b, 1.0, 0.01, 500, 97);
    snprintf(b[1].kcase, sizeof b[1].kcase, "16384x8192"); /* A's baseline row is gone, a new case came */
    cmp_pair *p;
    int n = judge(a, 3, b, 3, CMP_DEFAULT_THRESHOLD, &p);
    assert_int_equal(n, 4);
    assert_int_equal(p[0].v, CMP_SAME);
    assert_int_equal(p[1].v, CMP_ONLY_A);
    assert_ptr_equal(p[1].a, &a[1]);
    assert_null(p[1].b);
    assert_int_equal(p[2].v, CMP_SAME);
    assert_int_equal(p[3].v, CMP_ONLY_B);
    assert_ptr_equal(p[3].b, &b[1]);
    for (int i = 0; i < n; i++) {
        assert_int_equal(p[i].regression, 0);
        assert_int_equal(p[i].config_changed, 0);
    }
    free(p);
    n = judge(a, 3, NULL, 0, CMP_DEFAULT_THRESHOLD, &p);
    assert_int_equal(n, 3);
    for (int i = 0; i < n; i++)
        assert_int_equal(p[i].v, CMP_ONLY_A);
    free(p);
}

/* Many rows: matched by sorting the keys, not by a scan per row (this ran quadratic); the order of the
   pairs is A's, then B's rows of keys A lacks. */
static void test_many_rows_in_order(void **state)
{
    (void)state;
    enum { N = 20000 };
    klab_row *a = calloc(N, sizeof *a), *b = calloc(N, sizeof *b);
    assert_non_null(a);
    assert_non_null(b);
    klab_row one = row_of("x", "fused", 0.02, 0.01, 50, 3);
    for (int i = 0; i < N; i++) {
        a[i] = b[N - 1 - i] = one;
        snprintf(a[i].kcase, sizeof a[i].kcase, "c%d", i);
        snprintf(b[N - 1 - i].kcase, sizeof b[0].kcase, "c%d", i + 1);
    }
    cmp_pair *p;
    int n = judge(a, N, b, N, CMP_DEFAULT_THRESHOLD, &p);
    assert_int_equal(n, N + 1);
    assert_int_equal(p[0].v, CMP_ONLY_A);
    for (int i = 1; i < N; i++) {
        assert_ptr_equal(p[i].a, &a[i]);
        assert_ptr_equal(p[i].b, &b[N - i]);
        assert_int_equal(p[i].v, CMP_SAME);
    }
    assert_int_equal(p[N].v, CMP_ONLY_B);
    assert_string_equal(p[N].b->kcase, "c20000");
    free(p);
    free(a);
    free(b);
}

static void test_rows_that_are_not_evidence_are_never_same(void **state)
{
    (void)state;
    klab_row a = row_of("4096x4096", "fused", 0.0188, 0.01, 500, 1), b = row_of("4096x4096", "fused", 0.0188, 0.01, 500, 2);
    cmp_pair p;
    struct {
        row_status st;
        const char *flag;
        int has_time;
        int regression;
        const char *why;
    } cases[] = {
        {ROW_FLAGGED, NULL, 1, 1, "B flagged: work outside the timed stream"},
        {ROW_INCORRECT, NULL, 1, 1, "B incorrect: work outside the timed stream"},
        {ROW_FAILED, NULL, 0, 1, "B failed: work outside the timed stream"},
        {ROW_SKIPPED, NULL, 0, 0, "B skipped: work outside the timed stream"},
        {ROW_PASSED, "verify-only", 0, 0, "B not timed (verify-only)"},
        {ROW_PASSED, "exceeds-roofline", 1, 0, "B faster than the datasheet allows (exceeds-roofline)"},
        {ROW_PASSED, "not-verified", 1, 0, "B never verified (not-verified): a time of unknown work"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        klab_row c = b;
        c.status = cases[i].st;
        c.has_time = cases[i].has_time;
        if (cases[i].st != ROW_PASSED)
            snprintf(c.reason, sizeof c.reason, "work outside the timed stream");
        if (cases[i].flag)
            row_add_flag(&c, cases[i].flag);
        cmp_judge(&a, &c, CMP_DEFAULT_THRESHOLD, &p);
        assert_int_equal(p.v, CMP_NOT_COMPARED);
        assert_int_equal(p.regression, cases[i].regression);
        assert_string_equal(p.why, cases[i].why);
        /* the same row in A: reported, not a regression (B is the change under test) */
        cmp_judge(&c, &a, CMP_DEFAULT_THRESHOLD, &p);
        assert_int_equal(p.v, CMP_NOT_COMPARED);
        assert_int_equal(p.regression, 0);
        assert_int_equal(p.why[0], 'A');
    }
    /* both sides flagged: said for each */
    klab_row fa = a, fb = b;
    row_fail(&fa, ROW_FLAGGED, "x");
    row_fail(&fb, ROW_FLAGGED, "y");
    cmp_judge(&fa, &fb, CMP_DEFAULT_THRESHOLD, &p);
    assert_string_equal(p.why, "A flagged: x; B flagged: y");
    assert_int_equal(p.regression, 0);
    /* one key twice in a file: which is which cannot be known */
    klab_row two[2] = {a, a};
    cmp_pair *q;
    int n = judge(two, 2, &b, 1, CMP_DEFAULT_THRESHOLD, &q);
    assert_int_equal(n, 2);
    assert_int_equal(q[0].v, CMP_NOT_COMPARED);
    assert_string_equal(q[0].why, "ambiguous: 2 rows of this key in A, 1 in B");
    free(q);
}

/* ---- two run folders, in the library and through the binary ---- */

static void test_run_folders(void **state)
{
    (void)state;
    make_runs(1.10, 0.01);
    char *buf = NULL, err[512];
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    cmp_totals t;
    assert_int_equal(cmp_runs(fp, dir_a, dir_b, &opts, &t, err, sizeof err), 0);
    fclose(fp);
    kr_echo(buf);
    assert_int_equal(t.files, 3);
    assert_int_equal(t.n[CMP_SLOWER], 4);
    assert_int_equal(t.n[CMP_ONLY_B], 1);
    assert_int_equal(t.regressions, 4);
    kr_expect_in(buf, "\nrmsnorm.csv\n");
    kr_expect_in(buf, "\nsoftmax.csv (only in B)\n");
    kr_expect_in(buf, "fused threads=256,vec=8");
    kr_expect_in(buf, "4 SLOWER, 0 UNSURE, 0 not compared, 0 only in A, 1 only in B, 0 config changed: 4 regressions");
    kr_expect_in(buf, "gate: FAILED: 4 regressions; 1 row in one run only (--allow-missing accepts them)\n");
    assert_int_equal(t.gate_failed, 1);
    kr_expect_not_in(buf, "swiglu");
    kr_expect_not_in(buf, "counters");
    free(buf);
    fp = open_memstream(&buf, &len);
    assert_int_equal(cmp_runs(fp, dir_a, "/nonexistent/run", &opts, &t, err, sizeof err), -1);
    fclose(fp);
    free(buf);
    assert_string_equal(err, "/nonexistent/run: cannot open: No such file or directory");
}

/* Each folder's GPU from its meta.ini ([device] name), and a line when the two differ. */
static void test_gpu_names(void **state)
{
    (void)state;
    make_runs(1.0, 0.01);
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/meta.ini", dir_a);
    kr_write_file(path, "[run]\nid = run-a\n\n[device]\nordinal = 0\nname = NVIDIA H200\n");
    snprintf(path, sizeof path, "%s/meta.ini", dir_b);
    kr_write_file(path, "[run]\nid = run-b\n\n[device]\nordinal = 0\nname = NVIDIA H100 80GB HBM3\n");
    char *buf = NULL, err[512];
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    cmp_totals t;
    assert_int_equal(cmp_runs(fp, dir_a, dir_b, &opts, &t, err, sizeof err), 0);
    fclose(fp);
    kr_expect_in(buf, "/run-a (NVIDIA H200)\nB: ");
    kr_expect_in(buf, "/run-b (NVIDIA H100 80GB HBM3)\nratio = ");
    kr_expect_in(buf, "note: two GPUs");
    free(buf);
    kr_write_file(path, "[run]\nid = run-b\n\n[device]\nname = NVIDIA H200\n");
    fp = open_memstream(&buf, &len);
    assert_int_equal(cmp_runs(fp, dir_a, dir_b, &opts, &t, err, sizeof err), 0);
    fclose(fp);
    kr_expect_in(buf, "/run-b (NVIDIA H200)\n");
    kr_expect_not_in(buf, "two GPUs");
    free(buf);
}

static void test_binary_same_is_exit_0(void **state)
{
    (void)state;
    make_runs(1.0, 0.01);
    /* softmax.csv is in B only: rows that appeared or vanished fail the gate unless allowed */
    klab_result r = KLAB("compare", dir_a, dir_b);
    assert_int_equal(r.rc, 1);
    kr_expect_in(r.out, "4 SAME, 0 FASTER, 0 SLOWER, 0 UNSURE");
    kr_expect_in(r.out, "gate: FAILED: 1 row in one run only (--allow-missing accepts them)");
    free(r.out);
    r = KLAB("compare", "--allow-missing", dir_a, dir_b);
    assert_int_equal(r.rc, 0);
    kr_expect_in(r.out, "threshold 5 %");
    kr_expect_in(r.out, "gate: passed (rows in one run only allowed)");
    free(r.out);
    /* run ids under --out */
    r = KLAB("compare", "--allow-missing", "--out", "out", "run-a", "run-b");
    assert_int_equal(r.rc, 0);
    free(r.out);
}

static void test_binary_slower_is_exit_1(void **state)
{
    (void)state;
    make_runs(1.10, 0.01);
    klab_result r = KLAB("compare", "out/run-a", "out/run-b");
    assert_int_equal(r.rc, 1);
    kr_expect_in(r.out, "SLOWER");
    kr_expect_in(r.out, ": 4 regressions");
    free(r.out);
    r = KLAB("compare", "--threshold", "20", "--allow-missing", "out/run-a", "out/run-b");
    assert_int_equal(r.rc, 0);
    kr_expect_in(r.out, "threshold 20 %");
    free(r.out);
}

static void test_binary_errors_are_exit_2(void **state)
{
    (void)state;
    make_runs(1.0, 0.01);
    klab_result r = KLAB("compare", "out/run-a", "out/run-nowhere");
    assert_int_equal(r.rc, 2);
    kr_expect_in(r.out, "out/run-nowhere: cannot open");
    free(r.out);
    /* nothing in common compares nothing: a gate must not pass on it */
    char empty[PATH_MAX];
    kr_mkdir("out/run-c", empty, sizeof empty);
    klab_row c = row_of("1x4096", "fused", 0.005, 0.01, 100, 3);
    write_csv(empty, "other.csv", &c, 1);
    r = KLAB("compare", "out/run-a", "out/run-c");
    assert_int_equal(r.rc, 2);
    kr_expect_in(r.out, "no row of out/run-a matches a row of out/run-c");
    free(r.out);
    r = KLAB("compare", "out/run-a");
    assert_int_equal(r.rc, 2);
    kr_expect_in(r.out, "compare takes two runs: klab compare RUN-A RUN-B");
    free(r.out);
}

/* On a GPU: two runs of this commit, back to back, come out SAME (exit 0). A 19 us kernel and its
   baseline, so the launch floor does not dominate; the default threshold. */
static void test_two_runs_of_one_commit_are_same(void **state)
{
    (void)state;
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        printf("# no GPU: two real runs cannot be made here\n");
        skip();
    }
    char inis[PATH_MAX], path[PATH_MAX + 32];
    kr_mkdir("ini", inis, sizeof inis);
    snprintf(path, sizeof path, "%s/rmsnorm.ini", inis);
    kr_write_file(path, "[experiment]\nplugin = rmsnorm\n[defaults]\ndtypes = fp16\nbudget_ms = 400\n"
                        "[case 4096x4096]\n[case 4096x8192]\n");
    for (int k = 0; k < 2; k++) {
        klab_result r = KLAB("--plugin", "rmsnorm", "--plugin-path", KLAB_BINARY_DIR "/plugins", "--ini-dir", inis,
                             "--out", "out", "--run-id", k ? "same-b" : "same-a");
        assert_int_equal(r.rc, 0);
        free(r.out);
    }
    klab_result r = KLAB("compare", "out/same-a", "out/same-b");
    assert_int_equal(r.rc, 0);
    kr_expect_in(r.out, "4 SAME, 0 FASTER, 0 SLOWER, 0 UNSURE, 0 not compared, 0 only in A, 0 only in B");
    free(r.out);
}

static void test_command_line(void **state)
{
    (void)state;
    static cli_opts o;
    char err[512];
    char *ok[] = {"klab", "compare", "--threshold", "2.5", "a", "b", NULL};
    assert_int_equal(cli_parse(6, ok, &o, err, sizeof err), 0);
    assert_int_equal(o.cmd, CMD_COMPARE);
    assert_string_equal(o.compare[0], "a");
    assert_string_equal(o.compare[1], "b");
    assert_true(fabs(o.threshold - 0.025) < 1e-12);
    char *dflt[] = {"klab", "compare", "a", "b", NULL};
    assert_int_equal(cli_parse(4, dflt, &o, err, sizeof err), 0);
    assert_true(o.threshold == CMP_DEFAULT_THRESHOLD);
    char *bad[] = {"klab", "compare", "--threshold", "0", "a", "b", NULL};
    assert_int_equal(cli_parse(6, bad, &o, err, sizeof err), -1);
    assert_string_equal(err, "--threshold: '0' is not a number in [0.01, 99]");
    char *alone[] = {"klab", "--threshold", "10", NULL};
    assert_int_equal(cli_parse(3, alone, &o, err, sizeof err), -1);
    assert_string_equal(err, "--threshold goes with klab compare RUN-A RUN-B");
    char *three[] = {"klab", "compare", "a", "b", "c", NULL};
    assert_int_equal(cli_parse(5, three, &o, err, sizeof err), -1);
    assert_string_equal(err, "compare takes two runs: klab compare RUN-A RUN-B");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_distribution_is_same),
        cmocka_unit_test(test_ten_percent_slower_is_slower),
        cmocka_unit_test(test_noisy_overlap_is_unsure),
        cmocka_unit_test(test_rows_on_one_side),
        cmocka_unit_test(test_many_rows_in_order),
        cmocka_unit_test(test_rows_that_are_not_evidence_are_never_same),
        cmocka_unit_test(test_command_line),
        KR_TEST(test_run_folders),
        KR_TEST(test_gpu_names),
        KR_TEST(test_binary_same_is_exit_0),
        KR_TEST(test_binary_slower_is_exit_1),
        KR_TEST(test_binary_errors_are_exit_2),
        KR_TEST(test_two_runs_of_one_commit_are_same),
    };
    KLAB_RUN_TESTS(tests);
}
