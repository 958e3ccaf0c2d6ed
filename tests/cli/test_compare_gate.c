/* klab compare as a gate: a row whose tuning configuration changed is paired with its old self and
 * shown (CONFIG-CHANGED, with its ratio) rather than split into a row only in A and one only in B, and
 * fails the gate unless allowed; a run the gate cannot trust (a column missing, a median outside its
 * own interval or not a number, a status klab never writes) is an error, exit 2, naming file and line. */
#include "klab_test.h"

#include <math.h>
#include <string.h>

#include "compare_fixture.h"
#include "evidence/csv_sink.h"
#include "klab_run.h"
#include "report/compare.h"

static int judge(const klab_row *a, int na, const klab_row *b, int nb, double t, cmp_pair **p)
{
    int n = cmp_rows(a, na, b, nb, t, p);
    assert_true(n >= 0);
    return n;
}

/* The tuning configuration is not what a row measured but the answer it used: a row whose chosen
   configuration moved is paired with its old self, judged, and marked (it used to fall apart into a row
   only in A and a row only in B, which the gate passed). --tune's trial rows measure one configuration
   each, so theirs is part of their key. */
static void test_config_change_is_paired(void **state)
{
    (void)state;
    klab_row a[3], b[3];
    three_rows(a, 1.0, 0.01, 500, 11);
    three_rows(b, 1.10, 0.01, 500, 97);
    snprintf(b[2].config, sizeof b[2].config, "threads=128,vec=8");
    cmp_pair *p;
    int n = judge(a, 3, b, 3, CMP_DEFAULT_THRESHOLD, &p);
    assert_int_equal(n, 3);
    assert_int_equal(p[2].v, CMP_SLOWER);
    assert_int_equal(p[2].config_changed, 1);
    assert_ptr_equal(p[2].a, &a[2]);
    assert_ptr_equal(p[2].b, &b[2]);
    assert_true(fabs(p[2].ratio - 1.10) < 0.01);
    assert_int_equal(p[0].config_changed, 0);
    free(p);
    /* trial rows: each configuration its own row, and the plugin's own choice beside its trial twin */
    klab_row ta[3], tb[3];
    three_rows(ta, 1.0, 0.01, 500, 11);
    three_rows(tb, 1.0, 0.01, 500, 97);
    for (int i = 0; i < 3; i++) {
        ta[i] = ta[2];
        tb[i] = tb[2];
        row_add_flag(&ta[i], "tune-trial");
        row_add_flag(&tb[i], "tune-trial");
    }
    snprintf(ta[1].config, sizeof ta[1].config, "threads=512,vec=4");
    snprintf(tb[0].config, sizeof tb[0].config, "threads=512,vec=4");
    row_add_flag(&ta[2], "own-choice");
    row_add_flag(&tb[1], "own-choice");
    /* A: 256 trial, 512 trial, 256 own; B: 512 trial, 256 own, 256 trial */
    n = judge(ta, 3, tb, 3, CMP_DEFAULT_THRESHOLD, &p);
    assert_int_equal(n, 3);
    assert_ptr_equal(p[0].b, &tb[2]);
    assert_ptr_equal(p[1].b, &tb[0]);
    assert_ptr_equal(p[2].b, &tb[1]);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(p[i].v, CMP_SAME);
        assert_int_equal(p[i].config_changed, 0);
    }
    free(p);
}

/* Two committed row-length sweeps of an H200 whose tuner chose other configurations for 14 of their 24
   rows (tests/fixtures/runs/rowsweep-rmsnorm-a, -b): every row is paired, the 14 are shown with both
   configurations and their ratio, and the gate fails on them. This pair used to read "8 SAME, 2 UNSURE,
   14 only in A, 14 only in B: 0 regressions" and exit 0. */
static void test_binary_config_change_fails_the_gate(void **state)
{
    (void)state;
    klab_result r = KLAB("compare", KLAB_TEST_DATA "/fixtures/runs/rowsweep-rmsnorm-a",
                         KLAB_TEST_DATA "/fixtures/runs/rowsweep-rmsnorm-b");
    assert_int_equal(r.rc, 1);
    kr_expect_in(r.out, "19 SAME, 2 FASTER, 0 SLOWER, 3 UNSURE, 0 not compared, 0 only in A, 0 only in B, "
                        "14 config changed: 0 regressions");
    kr_expect_in(r.out, "gate: FAILED: 14 rows whose tuning configuration changed (--allow-config-change accepts them)");
    /* the row: its ratio and bounds, its verdict, both configurations */
    kr_expect_in(r.out, "0.889 [0.881-0.895]  FASTER CONFIG-CHANGED\n");
    kr_expect_in(r.out, "config: A cta=256,tpr=256,vpt=8,cluster=4,stream=0, B cta=1024,tpr=1024,vpt=8,cluster=1,stream=1\n");
    kr_expect_not_in(r.out, "ONLY-IN");
    free(r.out);
    r = KLAB("compare", "--allow-config-change", KLAB_TEST_DATA "/fixtures/runs/rowsweep-rmsnorm-a",
             KLAB_TEST_DATA "/fixtures/runs/rowsweep-rmsnorm-b");
    assert_int_equal(r.rc, 0);
    kr_expect_in(r.out, "gate: passed (changed configurations allowed)");
    free(r.out);
}

/* A run the gate cannot trust is an error (exit 2) naming the file and line, never a pass: a column
   the verdict rests on missing, a median outside its own interval, a median that is not a number,
   a row the reader refuses. */
static void test_binary_untrusted_runs_are_exit_2(void **state)
{
    (void)state;
    make_runs(1.0, 0.01);
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/rmsnorm.csv", dir_b);
    size_t len;
    char *good = file_read_all(path, &len);
    assert_non_null(good);
    struct {
        int line;
        const char *col, *to, *why;
    } cases[] = {
        /* no median_ms column: its header cell renamed */
        {1, "median_ms", "median", "rmsnorm.csv: no 'median_ms' column: compare cannot judge its rows"},
        /* row 2's median above its interval's top */
        {2, "median_ms", "0.0300", "rmsnorm.csv:2: its median_ms lies outside its own interval"},
        {3, "median_lo", "0.0300", "rmsnorm.csv:3: its median_ms lies outside its own interval"},
        {2, "median_ms", "-nan", "rmsnorm.csv:2: column 'median_ms': '-nan' is not a finite number"},
        {2, "median_ms", "inf", "rmsnorm.csv:2: column 'median_ms': 'inf' is not a finite number"},
        {3, "status", "PASSED", "rmsnorm.csv:3: column 'status': 'PASSED' is no status klab writes"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        /* the cell of column `col` on line `line` replaced (klab's rows here have no quoted cells) */
        char *bad = malloc(len + 64), *o = bad;
        int line = 1, cell = 0, target = row_column_index(cases[i].col);
        for (const char *c = good; *c; c++) {
            if (line == cases[i].line && cell == target) {
                o += sprintf(o, "%s", cases[i].to);
                while (*c != ',' && *c != '\n')
                    c++;
                cell++;
            }
            *o++ = *c;
            cell += *c == ',';
            if (*c == '\n')
                line++, cell = 0;
        }
        *o = 0;
        kr_write_file(path, bad);
        free(bad);
        klab_result r = KLAB("compare", "--allow-missing", dir_a, dir_b);
        assert_int_equal(r.rc, 2);
        kr_expect_in(r.out, cases[i].why);
        kr_expect_not_in(r.out, "gate: passed");
        free(r.out);
    }
    free(good);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_config_change_is_paired),
        KR_TEST(test_binary_config_change_fails_the_gate),
        KR_TEST(test_binary_untrusted_runs_are_exit_2),
    };
    KLAB_RUN_TESTS(tests);
}
