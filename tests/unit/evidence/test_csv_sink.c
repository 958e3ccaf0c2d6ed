/* csv_sink: rows go to "<path>.partial" and appear as <path> only when committed; quoting is libcsv's
 * and round-trips through table_read_csv; failed rows leave their numbers empty. */
#include "klab_test.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "evidence/csv_read.h"
#include "evidence/csv_sink.h"

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
    r->batch = 1;
    r->median_ms = 0.125;
    r->has_ci = 1;
    r->median_lo = 0.12;
    r->median_hi = 0.13;
    r->precision = 0.02;
    r->p95_ms = 0.25;
    r->p99_ms = 0.4;
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
        strcat(want_header, row_schema[i].name);
    }
    strcat(want_header, "\n");

    char *text = slurp(path);
    assert_true(strncmp(text, want_header, strlen(want_header)) == 0);
    int lines = 0;
    for (const char *p = text; *p; p++)
        lines += *p == '\n';
    assert_int_equal(lines, 3);
    const char *row1 = text + strlen(want_header);
    const char *want_row1 = "run-1,rmsnorm,4096x8192,4096x8192,fp16,fused,,cold,stream,1,,passed,,,120,3,0.125,"
                            "0.12,0.13,0.25,0.4,0.1,0.5,0.15,0.004,0.02,4096000,,1073.74,,,,,,,,,,0.0001,0.002,"
                            "0.002,,42,3,,,,\n";
    assert_true(strncmp(row1, want_row1, strlen(want_row1)) == 0);
    const char *row2 = row1 + strlen(want_row1);
    assert_string_equal(row2, "run-1,rmsnorm,4096x8192,4096x8192,fp16,baseline,,cold,stream,,,failed,hook error,,"
                              ",,,,,,,,,,,,4096000,,,,,,,,,,,,,,,,42,3,,,,\n");
    free(text);

    klab_row *rows = NULL;
    int n = csv_read_rows(path, &rows, err, sizeof err);
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
    int n = csv_read_rows(path, &rows, err, sizeof err);
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
    int i = row_column_index(name);
    if (i < 0)
        fail_msg("no column %s", name);
    return i;
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
    r.has_speedup_ci = 1;
    r.speedup_lo = 1.9;
    r.speedup_hi = 2.1;
    r.sm_mhz = 1980;
    r.launch_floor_ms = 0.002;
    row_fail(&r, ROW_FAILED, "CUDA error 700");
    assert_int_equal(csv_sink_row(&s, &r), 0);
    assert_int_equal(csv_sink_commit(&s, err, sizeof err), 0);

    char *text = slurp(path);
    char *line = strchr(text, '\n') + 1;
    char *cells[64];
    assert_int_equal(split_line(line, cells, 64), ROW_NCOLUMNS);
    const char *empty[] = {"batch", "reps", "discarded", "median_ms", "median_lo", "median_hi", "p95_ms",
                           "p99_ms", "min_ms", "max_ms", "mean_ms", "noise", "precision", "gbps", "tflops",
                           "limit", "limit_gbps", "frac_limit", "speedup", "speedup_lo", "speedup_hi",
                           "sm_mhz", "launch_floor_ms", "rel_l2_err", "max_abs_err", "tolerance"};
    for (size_t i = 0; i < sizeof empty / sizeof empty[0]; i++) {
        const char *cell = cells[column(empty[i])];
        if (*cell)
            fail_msg("column %s of a failed row is '%s', want empty", empty[i], cell);
    }
    assert_string_equal(cells[column("status")], "failed");
    assert_string_equal(cells[column("reason")], "CUDA error 700");
    assert_string_equal(cells[column("seed")], "42");
    assert_string_equal(cells[column("schema")], "3");
    free(text);

    klab_row *rows = NULL;
    assert_int_equal(csv_read_rows(path, &rows, err, sizeof err), 1);
    assert_int_equal(rows[0].has_time, 0);
    assert_int_equal(rows[0].has_limit, 0);
    assert_int_equal(rows[0].has_speedup, 0);
    assert_int_equal(rows[0].has_speedup_ci, 0);
    assert_int_equal(rows[0].has_ci, 0);
    assert_int_equal(rows[0].has_err, 0);
    free(rows);
}

/* A row with every column filled, through the file and back: row -> CSV line -> row gives the same
   row, every field and flag. A column the writer has and the reader lacks (or the reverse) fails. */
static void full_row(klab_row *r)
{
    passed_row(r);
    snprintf(r->config, sizeof r->config, "block=256, vec=\"8\""); /* quoted by the writer */
    r->batch = 8;
    r->footprint_bytes = UINT64_C(1073741824);
    snprintf(r->reason, sizeof r->reason, "above the datasheet");
    snprintf(r->flags, sizeof r->flags, "exceeds-roofline;launch-bound");
    r->status = ROW_FLAGGED;
    r->gbps = 4815.5;
    r->flops = 8192;
    r->tflops = 0.0655;
    r->has_limit = 1;
    snprintf(r->limit, sizeof r->limit, "copy");
    r->limit_gbps = 4100;
    r->frac_limit = 1.17451;
    r->has_speedup = 1;
    r->speedup = 9.5;
    r->has_speedup_ci = 1;
    r->speedup_lo = 9.25;
    r->speedup_hi = 9.75;
    r->sm_mhz = 1980;
    r->launch_floor_ms = 0.0027;
    r->verified_elems = 33554432;
    r->seed = UINT64_C(0xfedcba9876543210);
    snprintf(r->samples_file, sizeof r->samples_file, "samples/rmsnorm/4096x8192-fp16-fused.csv");
    row_set_gpu(r, 1, "NVIDIA H200", "GPU-8f0c1a2b-3c4d-5e6f-7081-92a3b4c5d6e7");
}

static void test_every_column_round_trips(void **state)
{
    fixture *f = *state;
    char path[256], err[512] = "";
    snprintf(path, sizeof path, "%s/full.csv", f->dir);
    csv_sink s;
    assert_int_equal(csv_sink_open(&s, path, err, sizeof err), 0);
    klab_row r;
    full_row(&r);
    for (int i = 0; i < ROW_NCOLUMNS; i++) {
        char text[600];
        row_cell(&r, i, text, sizeof text);
        if (!*text)
            fail_msg("column %s is empty in the full row: the round trip cannot see it", row_schema[i].name);
    }
    assert_int_equal(csv_sink_row(&s, &r), 0);
    assert_int_equal(csv_sink_commit(&s, err, sizeof err), 0);

    klab_row *rows = NULL;
    int n = csv_read_rows(path, &rows, err, sizeof err);
    if (n < 0)
        fail_msg("table_read_csv: %s", err);
    assert_int_equal(n, 1);
    for (int i = 0; i < ROW_NCOLUMNS; i++) {
        char a[600], b[600];
        row_cell(&r, i, a, sizeof a);
        row_cell(&rows[0], i, b, sizeof b);
        if (strcmp(a, b) != 0)
            fail_msg("column %s: wrote '%s', read back '%s'", row_schema[i].name, a, b);
    }
    assert_memory_equal(&r, &rows[0], sizeof r);
    free(rows);
}

/* A schema 1 file (the committed evidence) still reads: by the header's names, the new columns
   empty. */
static void test_reads_schema_1(void **state)
{
    fixture *f = *state;
    char path[256], err[512] = "";
    snprintf(path, sizeof path, "%s/old.csv", f->dir);
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fputs("run_id,plugin,case,shape,dtype,profile,l2,launch,status,reason,flags,reps,discarded,median_ms,"
          "p95_ms,min_ms,max_ms,mean_ms,noise,bytes,flops,gbps,tflops,limit,limit_gbps,frac_limit,speedup,"
          "sm_mhz,launch_floor_ms,rel_l2_err,max_abs_err,tolerance,seed,schema\n"
          "r,rmsnorm,4096x8192,4096x8192,fp16,fused,cold,stream,passed,,,5000,0,0.0330573,0.0337171,"
          "0.0322573,0.045,0.0331,0.0101,134217728,,4060.18,,copy,3970.1,1.02268,10.9,1755,,0.000213,"
          "0.0039,0.002,1,1\n", fp);
    fclose(fp);
    klab_row *rows = NULL;
    assert_int_equal(csv_read_rows(path, &rows, err, sizeof err), 1);
    assert_int_equal(rows[0].has_time, 1);
    assert_true(rows[0].median_ms == 0.0330573);
    assert_true(rows[0].speedup == 10.9);
    assert_int_equal(rows[0].has_speedup, 1);
    assert_int_equal(rows[0].has_ci, 0);
    assert_int_equal(rows[0].has_speedup_ci, 0);
    assert_int_equal(rows[0].batch, 0);
    assert_string_equal(rows[0].config, "");
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

/* file_commit: the partial file becomes the named one; a rename that cannot happen is -1 with errno,
   the partial file left */
static void test_file_commit(void **state)
{
    fixture *f = *state;
    char partial[128], path[128], nowhere[160];
    snprintf(partial, sizeof partial, "%s/meta.ini.partial", f->dir);
    snprintf(path, sizeof path, "%s/meta.ini", f->dir);
    FILE *fp = fopen(partial, "w");
    assert_non_null(fp);
    fputs("[run]\n", fp);
    assert_int_equal(file_commit(fp, partial, path), 0);
    assert_int_equal(access(partial, F_OK), -1);
    size_t len = 0;
    char *got = file_read_all(path, &len);
    assert_non_null(got);
    assert_string_equal(got, "[run]\n");
    free(got);

    fp = fopen(partial, "w");
    assert_non_null(fp);
    snprintf(nowhere, sizeof nowhere, "%s/no/such/dir/meta.ini", f->dir);
    errno = 0;
    assert_int_equal(file_commit(fp, partial, nowhere), -1);
    assert_int_equal(errno, ENOENT);
    assert_int_equal(access(partial, F_OK), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_header_and_one_line_per_row, setup, teardown),
        cmocka_unit_test_setup_teardown(test_quoted_fields_round_trip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_failed_row_numbers_empty, setup, teardown),
        cmocka_unit_test_setup_teardown(test_every_column_round_trips, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reads_schema_1, setup, teardown),
        cmocka_unit_test_setup_teardown(test_partial_until_commit, setup, teardown),
        cmocka_unit_test_setup_teardown(test_discard_removes_partial, setup, teardown),
        cmocka_unit_test_setup_teardown(test_creates_missing_dirs, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unwritable_gives_path, setup, teardown),
        cmocka_unit_test_setup_teardown(test_csv_field_quotes_only_when_needed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_file_commit, setup, teardown),
    };
    KLAB_RUN_TESTS(tests);
}
