/* Run folders read back for klab report (run_set.c): the counters lines of a large run joined to its
 * rows through a sorted index (a scan of every row per line made report quadratic), each row's kernels
 * a chain (not a scan of every kernel of the run per row); and the files of a run folder a hostile user
 * can plant, read by type and bounded: a FIFO as meta.ini or as a samples file, a samples file linked to
 * /dev/zero or named outside the folder; `klab report` must finish, not hang or read for ever. */
#include "klab_test.h"

#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "evidence/counters.h"
#include "evidence/csv_sink.h"
#include "evidence/run_set.h"
#include "klab_run.h"
#include "report_fixture.h"

static char err[2000];

static void test_counters_join(void **state)
{
    (void)state;
    enum { N = 5000 };
    char dir[PATH_MAX];
    kr_mkdir("run", dir, sizeof dir);
    klab_row *rows = calloc(N, sizeof *rows);
    ncu_result *res = calloc(N, sizeof *res);
    ncu_result **each = calloc(N, sizeof *each);
    assert_non_null(rows);
    assert_non_null(res);
    assert_non_null(each);
    for (int i = 0; i < N; i++) {
        char kcase[32];
        snprintf(kcase, sizeof kcase, "n%d", i);
        rows[i] = fx_row(kcase, i % 2 ? "fp16" : "bf16", "fused", 0.5, 0.01, 2, 0.9);
        char dram[16];
        snprintf(dram, sizeof dram, "%d", i % 97);
        fx_kernel(&res[i], "main_kernel", dram, "50", "32");
        fx_kernel(&res[i], "tail_kernel", "99", "", "16");
        each[i] = i % 3 ? &res[i] : NULL; /* every third row not profiled */
    }
    fx_write_run(dir, "fx", rows, N, "big");
    fx_write_counters(dir, "fx", rows, each, N);
    run_set s = {0};
    assert_int_equal(run_set_add(&s, dir, err, sizeof err), 0);
    const run_dir *r = &s.runs[0];
    assert_int_equal(r->nrows, N);
    for (int i = 0; i < N; i++) {
        const run_counters *c = run_set_counters(r, &r->rows[i]);
        assert_non_null(c);
        if (!each[i]) {
            assert_int_equal(c->present, 0);
            assert_int_equal(run_set_first_kernel(r, &r->rows[i]), -1);
            continue;
        }
        assert_int_equal(c->present, 1);
        assert_int_equal(c->nkernels, 2);
        int k = run_set_first_kernel(r, &r->rows[i]);
        assert_true(k >= 0);
        assert_string_equal(r->kernels[k].name, "main_kernel");
        assert_ptr_equal(&r->rows[r->kernels[k].row], &r->rows[i]);
        k = r->kernels[k].next;
        assert_true(k >= 0);
        assert_string_equal(r->kernels[k].name, "tail_kernel");
        assert_int_equal(r->kernels[k].next, -1);
        double v = 0;
        assert_int_equal(run_set_counter_value(r, &r->rows[i], 0, &v), 1); /* dram_pct: the larger */
        assert_true(v == 99);
        assert_int_equal(run_set_counter_value(r, &r->rows[i], 1, &v), 1); /* occupancy: the one given */
        assert_true(v == 50);
    }
    assert_int_equal(s.nnotes, 0);
    run_set_free(&s);
    /* the counters file damaged in its last line: none of its lines is joined, and a note says where */
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/fx.counters.csv", dir);
    size_t len;
    char *text = file_read_all(path, &len);
    assert_non_null(text);
    text[len - 2] = '\n'; /* the last line one cell short */
    text[len - 1] = 0;
    kr_write_file(path, text);
    free(text);
    assert_int_equal(run_set_add(&s, dir, err, sizeof err), 0);
    for (int i = 0; i < N; i++)
        assert_int_equal(run_set_counters(&s.runs[0], &s.runs[0].rows[i])->present, 0);
    assert_int_equal(s.runs[0].nkernels, 0);
    assert_int_equal(s.nnotes, 1);
    kr_expect_in(s.notes[0], "fx.counters.csv:");
    kr_expect_in(s.notes[0], "22 cells, but the header has 23: passed over");
    run_set_free(&s);
    free(rows);
    free(res);
    free(each);
}

/* A run folder with a FIFO as meta.ini and samples files that are a FIFO, a link to /dev/zero and a
   name outside the folder: the report is written, and says what it could not read. */
static void test_report_reads_only_regular_files(void **state)
{
    (void)state;
    char dir[PATH_MAX], path[PATH_MAX + 64];
    kr_mkdir("run", dir, sizeof dir);
    kr_mkdir("exp", path, sizeof path);
    klab_row rows[4];
    const char *files[] = {"fx.samples/fifo.csv", "fx.samples/zero.csv", "../../../../../../etc/passwd",
                           "fx.samples/ok.csv"};
    for (int i = 0; i < 4; i++) {
        char kcase[16];
        snprintf(kcase, sizeof kcase, "s%d", i);
        rows[i] = fx_row(kcase, "fp16", "graph", 0.15, 0.01, 1.3, 0);
        snprintf(rows[i].launch, sizeof rows[i].launch, "steps");
        snprintf(rows[i].samples_file, sizeof rows[i].samples_file, "%s", files[i]);
    }
    fx_write_run(dir, "fx", rows, 4, "hostile");
    snprintf(path, sizeof path, "%s/fx.samples", dir);
    assert_int_equal(mkdir(path, 0755), 0);
    snprintf(path, sizeof path, "%s/fx.samples/fifo.csv", dir);
    assert_int_equal(mkfifo(path, 0600), 0);
    snprintf(path, sizeof path, "%s/fx.samples/zero.csv", dir);
    assert_int_equal(symlink("/dev/zero", path), 0);
    snprintf(path, sizeof path, "%s/fx.samples/ok.csv", dir);
    char samples[4096] = "step,ms\n";
    for (int i = 0; i < 50; i++)
        snprintf(samples + strlen(samples), sizeof samples - strlen(samples), "%d,0.%d\n", i, 140 + i % 9);
    kr_write_file(path, samples);
    snprintf(path, sizeof path, "%s/meta.ini", dir);
    unlink(path);
    assert_int_equal(mkfifo(path, 0600), 0);
    snprintf(path, sizeof path, "%s/exp/steps.exp.ini", kr_tmp);
    kr_write_file(path, "[experiment]\nplugin = fx\nquestion = How do the steps spread?\n");
    kr_alarm_s = 60;
    klab_result r = KLAB("report", "--experiments", "exp", "--out-dir", "rep", "run");
    kr_alarm_s = 0;
    assert_int_equal(r.rc, 0);
    kr_expect_in(r.out, "(meta.ini not read: run/meta.ini: is a FIFO, not a regular file)");
    kr_expect_in(r.out, "run/fx.csv (4 rows)");
    free(r.out);
    snprintf(path, sizeof path, "%s/rep/report.html", kr_tmp);
    size_t len;
    char *html = file_read_all(path, &len);
    assert_non_null(html);
    kr_expect_in(html, "s3 fp16 graph: 50 step latencies"); /* the one good file is drawn */
    kr_expect_not_in(html, "root:");
    free(html);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        KR_TEST(test_counters_join),
        KR_TEST(test_report_reads_only_regular_files),
    };
    KLAB_RUN_TESTS(tests);
}
