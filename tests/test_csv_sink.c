/* csv_sink: rows go to "<path>.partial" and appear as <path> only when committed; quoting is libcsv's
 * and round-trips through table_read_csv; failed rows leave their numbers empty. */
#include "klab_test.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "csv_sink.h"
#include "table.h"

typedef struct fixture {
    char dir[64];
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    if (!f)
        return -1;
    snprintf(f->dir, sizeof f->dir, "/tmp/klab-csv-XXXXXX");
    if (!mkdtemp(f->dir)) {
        free(f);
        return -1;
    }
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", f->dir);
    int rc = system(cmd);
    free(f);
    return rc == 0 ? 0 : -1;
}

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* The whole file, malloc'd and NUL-terminated. */
static char *slurp(const char *path)
{
    FILE *fp = fopen(path, "rb");
    assert_non_null(fp);
    fseek(fp, 0, SEEK_END);
    long n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, fp), (size_t)n);
    buf[n] = 0;
    fclose(fp);
    return buf;
}

static void passed_row(klab_row *r)
{
    memset(r, 0, sizeof *r);
    snprintf(r->run_id, sizeof r->run_id, "run-1");
    snprintf(r->plugin, sizeof r->plugin, "rmsnorm");
    snprintf(r->kcase, sizeof r->kcase, "4096x8192");
    snprintf(r->shape, sizeof r->shape, "4096x8192");
    snprintf(r->dtype, sizeof r->dtype, "fp16");
    snprintf(r->profile, sizeof r->profile, "fused");
    snprintf(r->l2, sizeof r->l2, "cold");
    snprintf(r->launch, sizeof r->launch, "stream");
    r->status = ROW_PASSED;
    r->has_time = 1;
    r->reps = 120;
    r->discarded = 3;
    r->median_ms = 0.125;
    r->p95_ms = 0.25;
    r->min_ms = 0.1;
    r->max_ms = 0.5;
    r->mean_ms = 0.15;
    r->noise = 0.004;
    r->bytes = 4096000;
    r->gbps = 1073.741824;
    r->has_err = 1;
    r->rel_l2_err = 1e-4;
    r->max_abs_err = 2e-3;
    r->tol = 2e-3;
    r->seed = 42;
}

static void failed_row(klab_row *r)
{
    passed_row(r);
    snprintf(r->profile, sizeof r->profile, "baseline");
    r->has_time = 0;
    r->has_err = 0;
    r->reps = 0;
    r->discarded = 0;
    r->median_ms = r->p95_ms = r->min_ms = r->max_ms = r->mean_ms = r->noise = 0;
    r->gbps = 0;
    row_fail(r, ROW_FAILED, "hook error");
}

static void test_header_and_one_line_per_row(void **state)
{
    fixture *f = *state;
    char path[256], err[512] = "";
    snprintf(path, sizeof path, "%s/rmsnorm.csv", f->dir);
    csv_sink s;
    assert_int_equal(csv_sink_open(&s, path, err, sizeof err), 0);
    klab_row r;
    passed_row(&r);
    assert_int_equal(csv_sink_row(&s, &r), 0);
    failed_row(&r);
    assert_int_equal(csv_sink_row(&s, &r), 0);
    assert_int_equal(s.rows, 2);
    assert_int_equal(csv_sink_commit(&s, err, sizeof err), 0);

    char want_header[2048] = "";
    for (int i = 0; i < ROW_NCOLUMNS; i++) {
        strcat(want_header, i ? "," : "");
        strcat(want_header, row_columns[i]);
    }
    strcat(want_header, "\n");

    char *text = slurp(path);
    assert_true(strncmp(text, want_header, strlen(want_header)) == 0);
    int lines = 0;
    for (const char *p = text; *p; p++)
        lines += *p == '\n';
    assert_int_equal(lines, 3);
    const char *row1 = text + strlen(want_header);
    const char *want_row1 = "run-1,rmsnorm,4096x8192,4096x8192,fp16,fused,cold,stream,passed,,,120,3,0.125,0.25,"
                            "0.1,0.5,0.15,0.004,4096000,,1073.74,,,,,,,,0.0001,0.002,0.002,42,1\n";
    assert_true(strncmp(row1, want_row1, strlen(want_row1)) == 0);
    const char *row2 = row1 + strlen(want_row1);
    assert_string_equal(row2, "run-1,rmsnorm,4096x8192,4096x8192,fp16,baseline,cold,stream,failed,hook error,,,,,,"
                              ",,,,4096000,,,,,,,,,,,,,42,1\n");
    free(text);

    klab_row *rows = NULL;
    int n = table_read_csv(path, &rows, err, sizeof err);
    assert_int_equal(n, 2);
    assert_string_equal(rows[0].profile, "fused");
    assert_int_equal(rows[0].status, ROW_PASSED);
    assert_int_equal(rows[0].has_time, 1);
    assert_int_equal(rows[0].reps, 120);
    assert_true(rows[0].median_ms == 0.125);
    assert_int_equal(rows[0].seed, 42);
    assert_string_equal(rows[1].profile, "baseline");
    assert_int_equal(rows[1].status, ROW_FAILED);
    assert_string_equal(rows[1].reason, "hook error");
    free(rows);
}

static void test_quoted_fields_round_trip(void **state)
{
    fixture *f = *state;
    char path[256], err[512] = "";
    snprintf(path, sizeof path, "%s/q.csv", f->dir);
    const char *reason = "bad, very \"bad\"\nsecond line,\r\nthird \"\" end,";
    const char *flags = "launch-bound;few-samples";
    const char *kcase = "a,b";
    csv_sink s;
    assert_int_equal(csv_sink_open(&s, path, err, sizeof err), 0);
    klab_row r;
    failed_row(&r);
    snprintf(r.reason, sizeof r.reason, "%s", reason);
    snprintf(r.flags, sizeof r.flags, "%s", flags);
    snprintf(r.kcase, sizeof r.kcase, "%s", kcase);
    snprintf(r.plugin, sizeof r.plugin, "quote\"only");
    assert_int_equal(csv_sink_row(&s, &r), 0);
    passed_row(&r);
    assert_int_equal(csv_sink_row(&s, &r), 0);
    assert_int_equal(csv_sink_commit(&s, err, sizeof err), 0);

    char *text = slurp(path);
    /* libcsv's quoting: the field in quotes, inner quotes doubled */
    assert_non_null(strstr(text, ",\"bad, very \"\"bad\"\"\nsecond line,\r\nthird \"\"\"\" end,\","));
    assert_non_null(strstr(text, "run-1,\"quote\"\"only\",\"a,b\","));
    /* a field without specials is not quoted */
    assert_non_null(strstr(text, ",launch-bound;few-samples,"));
    free(text);

    klab_row *rows = NULL;
    int n = table_read_csv(path, &rows, err, sizeof err);
    if (n < 0)
        fail_msg("table_read_csv: %s", err);
    assert_int_equal(n, 2);
    assert_string_equal(rows[0].reason, reason);
    assert_string_equal(rows[0].flags, flags);
    assert_string_equal(rows[0].kcase, kcase);
    assert_string_equal(rows[0].plugin, "quote\"only");
    assert_int_equal(rows[0].status, ROW_FAILED);
    /* the row after it is intact */
    assert_string_equal(rows[1].kcase, "4096x8192");
    assert_string_equal(rows[1].reason, "");
    assert_int_equal(rows[1].status, ROW_PASSED);
    assert_true(rows[1].p95_ms == 0.25);
    free(rows);
}

/* Splits one unquoted CSV line into cells (in place). */
static int split_line(char *line, char **cells, int max)
{
    int n = 0;
    cells[n++] = line;
    for (char *p = line; *p && *p != '\n'; p++)
        if (*p == ',' && n < max) {
            *p = 0;
            cells[n++] = p + 1;
        }
    char *nl = strchr(cells[n - 1], '\n');
    if (nl)
        *nl = 0;
    return n;
}

static int column(const char *name)
{
    for (int i = 0; i < ROW_NCOLUMNS; i++)
        if (strcmp(row_columns[i], name) == 0)
            return i;
    fail_msg("no column %s", name);
    return -1;
}

static void test_failed_row_numbers_empty(void **state)
{
    fixture *f = *state;
    char path[256], err[512] = "";
    snprintf(path, sizeof path, "%s/failed.csv", f->dir);
    csv_sink s;
    assert_int_equal(csv_sink_open(&s, path, err, sizeof err), 0);
    klab_row r;
    passed_row(&r); /* numbers filled in, then the row fails: they must not be written */
    r.has_time = 0;
    r.has_err = 0;
    r.has_limit = 1;
    r.frac_limit = 0.5;
    r.has_speedup = 1;
    r.speedup = 2;
    r.sm_mhz = 1980;
    r.launch_floor_ms = 0.002;
    row_fail(&r, ROW_FAILED, "CUDA error 700");
    assert_int_equal(csv_sink_row(&s, &r), 0);
    assert_int_equal(csv_sink_commit(&s, err, sizeof err), 0);

    char *text = slurp(path);
    char *line = strchr(text, '\n') + 1;
    char *cells[64];
    assert_int_equal(split_line(line, cells, 64), ROW_NCOLUMNS);
    const char *empty[] = {"reps", "discarded", "median_ms", "p95_ms", "min_ms", "max_ms", "mean_ms",
                           "noise", "gbps", "tflops", "limit", "limit_gbps", "frac_limit", "speedup",
                           "sm_mhz", "launch_floor_ms", "rel_l2_err", "max_abs_err", "tolerance"};
    for (size_t i = 0; i < sizeof empty / sizeof empty[0]; i++) {
        const char *cell = cells[column(empty[i])];
        if (*cell)
            fail_msg("column %s of a failed row is '%s', want empty", empty[i], cell);
    }
    assert_string_equal(cells[column("status")], "failed");
    assert_string_equal(cells[column("reason")], "CUDA error 700");
    assert_string_equal(cells[column("seed")], "42");
    assert_string_equal(cells[column("schema")], "1");
    free(text);

    klab_row *rows = NULL;
    assert_int_equal(table_read_csv(path, &rows, err, sizeof err), 1);
    assert_int_equal(rows[0].has_time, 0);
    assert_int_equal(rows[0].has_limit, 0);
    assert_int_equal(rows[0].has_speedup, 0);
    assert_int_equal(rows[0].has_err, 0);
    free(rows);
}

static void test_partial_until_commit(void **state)
{
    fixture *f = *state;
    char path[256], partial[300], err[512] = "";
    snprintf(path, sizeof path, "%s/p.csv", f->dir);
    snprintf(partial, sizeof partial, "%s.partial", path);
    csv_sink s;
    assert_int_equal(csv_sink_open(&s, path, err, sizeof err), 0);
    assert_string_equal(s.partial, partial);
    assert_true(exists(partial));
    assert_false(exists(path));
    klab_row r;
    passed_row(&r);
    assert_int_equal(csv_sink_row(&s, &r), 0);
    assert_true(exists(partial));
    assert_false(exists(path));
    assert_int_equal(csv_sink_commit(&s, err, sizeof err), 0);
    assert_true(exists(path));
    assert_false(exists(partial));
    assert_null(s.fp);
}

static void test_discard_removes_partial(void **state)
{
    fixture *f = *state;
    char path[256], partial[300], err[512] = "";
    snprintf(path, sizeof path, "%s/d.csv", f->dir);
    snprintf(partial, sizeof partial, "%s.partial", path);
    csv_sink s;
    assert_int_equal(csv_sink_open(&s, path, err, sizeof err), 0);
    klab_row r;
    passed_row(&r);
    assert_int_equal(csv_sink_row(&s, &r), 0);
    csv_sink_discard(&s);
    assert_false(exists(partial));
    assert_false(exists(path));
    assert_null(s.fp);
}

static void test_creates_missing_dirs(void **state)
{
    fixture *f = *state;
    char path[256], dir[256], err[512] = "";
    snprintf(dir, sizeof dir, "%s/a/b/c", f->dir);
    snprintf(path, sizeof path, "%s/x.csv", dir);
    assert_false(exists(dir));
    csv_sink s;
    assert_int_equal(csv_sink_open(&s, path, err, sizeof err), 0);
    struct stat st;
    assert_int_equal(stat(dir, &st), 0);
    assert_true(S_ISDIR(st.st_mode));
    assert_int_equal(csv_sink_commit(&s, err, sizeof err), 0);
    assert_true(exists(path));

    /* make_dirs on its own: an existing folder is fine */
    assert_int_equal(make_dirs(dir), 0);
    char deeper[300];
    snprintf(deeper, sizeof deeper, "%s/d/e", dir);
    assert_int_equal(make_dirs(deeper), 0);
    assert_int_equal(stat(deeper, &st), 0);
    assert_true(S_ISDIR(st.st_mode));
}

/* A folder that cannot be made or written (this works as root too: a file stands where a folder
   must be, or a folder where the partial file must be). */
static void test_unwritable_gives_path(void **state)
{
    fixture *f = *state;
    char file[256], path[300], err[512] = "", want[700];
    snprintf(file, sizeof file, "%s/plain-file", f->dir);
    FILE *fp = fopen(file, "w");
    assert_non_null(fp);
    fclose(fp);

    csv_sink s;
    snprintf(path, sizeof path, "%s/sub/x.csv", file);
    assert_int_equal(csv_sink_open(&s, path, err, sizeof err), -1);
    snprintf(want, sizeof want, "cannot create %s/sub: %s", file, strerror(ENOTDIR));
    assert_string_equal(err, want);

    char blocked[300];
    snprintf(path, sizeof path, "%s/y.csv", f->dir);
    snprintf(blocked, sizeof blocked, "%s.partial", path);
    assert_int_equal(mkdir(blocked, 0777), 0);
    err[0] = 0;
    assert_int_equal(csv_sink_open(&s, path, err, sizeof err), -1);
    snprintf(want, sizeof want, "cannot write %s: %s", blocked, strerror(EISDIR));
    assert_string_equal(err, want);
    assert_false(exists(path));
}

static void test_csv_field_quotes_only_when_needed(void **state)
{
    fixture *f = *state;
    char path[256];
    snprintf(path, sizeof path, "%s/fields.txt", f->dir);
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    assert_int_equal(csv_field(fp, "plain"), 0);
    fputc('|', fp);
    assert_int_equal(csv_field(fp, "a,b"), 0);
    fputc('|', fp);
    assert_int_equal(csv_field(fp, "say \"hi\""), 0);
    fputc('|', fp);
    assert_int_equal(csv_field(fp, "two\nlines"), 0);
    fputc('|', fp);
    assert_int_equal(csv_field(fp, ""), 0);
    fclose(fp);
    char *text = slurp(path);
    assert_string_equal(text, "plain|\"a,b\"|\"say \"\"hi\"\"\"|\"two\nlines\"|");
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_header_and_one_line_per_row, setup, teardown),
        cmocka_unit_test_setup_teardown(test_quoted_fields_round_trip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_failed_row_numbers_empty, setup, teardown),
        cmocka_unit_test_setup_teardown(test_partial_until_commit, setup, teardown),
        cmocka_unit_test_setup_teardown(test_discard_removes_partial, setup, teardown),
        cmocka_unit_test_setup_teardown(test_creates_missing_dirs, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unwritable_gives_path, setup, teardown),
        cmocka_unit_test_setup_teardown(test_csv_field_quotes_only_when_needed, setup, teardown),
    };
    KLAB_RUN_TESTS(tests);
}
