/* csv_read: a run's CSV read back by the one reader, which must not be fooled. Each damaged file (a
 * row with a cell too few or too many, a quote that never closes, a NUL byte, a cell cut or over its
 * field, a status klab never writes, a file cut in its last line) is an error naming the file and the
 * line; a UTF-8 byte order mark and CRLF line endings are accepted; a FIFO or a link to /dev/zero
 * named *.csv is refused by its type at once, never waited on or read forever. */
#include "klab_test.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "evidence/counters.h"
#include "evidence/csv_read.h"
#include "evidence/csv_sink.h"
#include "klab_run.h"

static char path[PATH_MAX + 64], err[2000];

/* A passed row, as klab writes it. */
static klab_row good_row(const char *kcase)
{
    klab_row r;
    memset(&r, 0, sizeof r);
    snprintf(r.run_id, sizeof r.run_id, "r1");
    snprintf(r.plugin, sizeof r.plugin, "rmsnorm");
    snprintf(r.kcase, sizeof r.kcase, "%s", kcase);
    snprintf(r.shape, sizeof r.shape, "%s", kcase);
    snprintf(r.dtype, sizeof r.dtype, "fp16");
    snprintf(r.profile, sizeof r.profile, "fused");
    snprintf(r.config, sizeof r.config, "cta=256,vpt=8"); /* quoted by the writer */
    snprintf(r.l2, sizeof r.l2, "cold");
    snprintf(r.launch, sizeof r.launch, "stream");
    r.batch = 1;
    r.status = ROW_PASSED;
    r.has_time = 1;
    r.reps = 100;
    r.median_ms = 0.5;
    r.has_ci = 1;
    r.median_lo = 0.49;
    r.median_hi = 0.51;
    r.p95_ms = r.p99_ms = r.max_ms = 0.6;
    r.min_ms = 0.45;
    r.mean_ms = 0.5;
    r.has_speedup = r.has_speedup_ci = 1;
    r.speedup = 2;
    r.speedup_lo = 1.9;
    r.speedup_hi = 2.1;
    r.seed = 7;
    return r;
}

/* The text klab writes for three rows a, b, c (malloc'd). */
static char *good_text(void)
{
    snprintf(path, sizeof path, "%s/good.csv", kr_tmp);
    csv_sink s;
    assert_int_equal(csv_sink_open(&s, path, err, sizeof err), 0);
    const char *cases[] = {"a", "b", "c"};
    for (int i = 0; i < 3; i++) {
        klab_row r = good_row(cases[i]);
        assert_int_equal(csv_sink_row(&s, &r), 0);
    }
    assert_int_equal(csv_sink_commit(&s, err, sizeof err), 0);
    size_t len;
    char *text = file_read_all(path, &len);
    assert_non_null(text);
    return text;
}

/* text with the first `from` after `after` replaced by `to` (malloc'd). */
static char *edit(const char *text, const char *after, const char *from, const char *to)
{
    const char *at = strstr(text, after);
    assert_non_null(at);
    at = strstr(at, from);
    assert_non_null(at);
    size_t n = strlen(text) - strlen(from) + strlen(to);
    char *out = malloc(n + 1);
    assert_non_null(out);
    snprintf(out, n + 1, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
    return out;
}

/* Writes len bytes to <tmp>/name.csv and reads it: the count, or -1 with err. */
static int read_bytes(const char *name, const char *bytes, size_t len)
{
    snprintf(path, sizeof path, "%s/%s", kr_tmp, name);
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    assert_int_equal(fwrite(bytes, 1, len, fp), len);
    assert_int_equal(fclose(fp), 0);
    klab_row *rows = NULL;
    err[0] = 0;
    int n = csv_read_rows(path, &rows, err, sizeof err);
    free(rows);
    if (n < 0)
        print_message("# %s\n", err);
    return n;
}

static int read_text(const char *name, const char *text)
{
    return read_bytes(name, text, strlen(text));
}

/* err is "<tmp>/name:line: why..." */
static void expect_error(const char *name, int line, const char *why)
{
    char want[PATH_MAX + 600];
    snprintf(want, sizeof want, "%s/%s:%d: %s", kr_tmp, name, line, why);
    if (strncmp(err, want, strlen(want)) != 0)
        fail_msg("error \"%s\", expected it to start \"%s\"", err, want);
}

static void test_good_file_reads(void **state)
{
    (void)state;
    char *text = good_text();
    csv_table t;
    assert_int_equal(csv_read_table(path, &t, err, sizeof err), 0);
    assert_int_equal(t.n, 3);
    assert_string_equal(t.rows[2].kcase, "c");
    assert_string_equal(t.rows[2].config, "cta=256,vpt=8");
    assert_int_equal(t.line[0], 2);
    assert_int_equal(t.line[2], 4);
    for (int i = 0; i < ROW_NCOLUMNS; i++)
        assert_int_equal(t.has[i], 1);
    csv_table_free(&t);
    /* CRLF line endings, and a byte order mark before the header (a spreadsheet's export) */
    size_t n = strlen(text);
    char *crlf = malloc(2 * n + 4), *o = crlf;
    memcpy(o, "\xef\xbb\xbf", 3), o += 3;
    for (const char *p = text; *p; p++) {
        if (*p == '\n')
            *o++ = '\r';
        *o++ = *p;
    }
    assert_int_equal(read_bytes("crlf.csv", crlf, (size_t)(o - crlf)), 3);
    free(crlf);
    /* a line break inside a quoted cell: the next row's line counts it */
    char *multi = edit(text, "\nr1,rmsnorm,b,", "cta=256,vpt=8", "cta=256,\nvpt=8");
    char *bad = edit(multi, "\nr1,rmsnorm,c,", ",passed,", ",pased,");
    assert_int_equal(read_text("multi.csv", bad), -1);
    expect_error("multi.csv", 5, "column 'status': 'pased' is no status klab writes");
    free(multi);
    free(bad);
    free(text);
}

static void test_wrong_cell_count(void **state)
{
    (void)state;
    char *text = good_text();
    /* the last cell of row b dropped (its line ends one comma early), and an extra cell in row c */
    char *shorter = edit(text, "\nr1,rmsnorm,b,", ",3,,,,\n", ",3,,,\n");
    assert_int_equal(read_text("short.csv", shorter), -1);
    char want[100];
    snprintf(want, sizeof want, "%d cells, but the header has %d", ROW_NCOLUMNS - 1, ROW_NCOLUMNS);
    expect_error("short.csv", 3, want);
    char *longer = edit(text, "\nr1,rmsnorm,c,", ",3,,,,\n", ",3,,,,,\n");
    assert_int_equal(read_text("long.csv", longer), -1);
    snprintf(want, sizeof want, "%d cells, but the header has %d", ROW_NCOLUMNS + 1, ROW_NCOLUMNS);
    expect_error("long.csv", 4, want);
    /* a blank line is a record of one empty cell */
    char *blank = edit(text, "\nr1,rmsnorm,b,", "\nr1,rmsnorm,c,", "\n\nr1,rmsnorm,c,");
    assert_int_equal(read_text("blank.csv", blank), -1);
    expect_error("blank.csv", 4, "1 cells, but the header has");
    free(shorter);
    free(longer);
    free(blank);
    free(text);
}

static void test_quotes_and_bytes(void **state)
{
    (void)state;
    char *text = good_text();
    struct {
        const char *name, *after, *from, *to;
        int line;
        const char *why;
    } cases[] = {
        /* the quote before config's text gone: the closing one then stands inside a plain cell */
        {"openq.csv", "\nr1,rmsnorm,b,", "\"cta=256", "cta=256", 3, "a quote inside a cell that does not start with one"},
        {"after.csv", "\nr1,rmsnorm,b,", "vpt=8\",", "vpt=8\"x,", 3, "text after the quote that closes a cell"},
        {"cr.csv", "\nr1,rmsnorm,b,", ",fused,", ",fu\rsed,", 3, "a carriage return not followed by a line feed"},
        /* a quote that never closes swallows the rest of the file: refused, not read as one long cell */
        {"unbalanced.csv", "\nr1,rmsnorm,c,", "vpt=8\",", "vpt=8,", 4, "a quote opens a cell here and never closes"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *bad = edit(text, cases[i].after, cases[i].from, cases[i].to);
        assert_int_equal(read_text(cases[i].name, bad), -1);
        expect_error(cases[i].name, cases[i].line, cases[i].why);
        free(bad);
    }
    /* a NUL byte: C would read the cell as ending there */
    char *nul = edit(text, "\nr1,rmsnorm,b,", ",fused,", ",fu@ed,");
    *strchr(nul, '@') = 0;
    assert_int_equal(read_bytes("nul.csv", nul, strlen(text)), -1);
    expect_error("nul.csv", 3, "a NUL byte");
    free(nul);
    /* the file cut inside its last row: the cut cell must not read as the whole one */
    size_t n = strlen(text);
    assert_int_equal(read_bytes("cut.csv", text, n - 1), -1);
    expect_error("cut.csv", 4, "the last line has no line ending: the file was cut short");
    free(text);
}

static void test_cells_that_do_not_fit(void **state)
{
    (void)state;
    char *text = good_text();
    /* a reason over its field's 511 bytes: cut, it would read as another text (this used to happen) */
    char reason[700];
    memset(reason, 'r', 600);
    snprintf(reason + 600, sizeof reason - 600, ",");
    char cell[700];
    snprintf(cell, sizeof cell, ",passed,%.*s,", 600, reason);
    char *big = edit(text, "\nr1,rmsnorm,b,", ",passed,,", cell);
    assert_int_equal(read_text("reason.csv", big), -1);
    expect_error("reason.csv", 3, "column 'reason': 600 bytes, more than its 511");
    free(big);
    /* a cell past the reader's own bound, in a column klab does not know */
    size_t huge = CSV_CELL_MAX + 10;
    char *wide = malloc(huge + 100);
    int k = snprintf(wide, 100, "run_id,plugin,case,dtype,profile,status,extra\nr,p,c,fp16,f,passed,");
    memset(wide + k, 'x', huge);
    memcpy(wide + k + huge, "\n", 2);
    assert_int_equal(read_text("huge.csv", wide), -1);
    expect_error("huge.csv", 2, "cell 7 is longer than 65536 bytes");
    free(wide);
    free(text);
}

static void test_status_is_checked(void **state)
{
    (void)state;
    char *text = good_text();
    /* a status klab never writes used to read as passed (the enum's first value) */
    char *odd = edit(text, "\nr1,rmsnorm,b,", ",passed,", ",timed-out,");
    assert_int_equal(read_text("odd.csv", odd), -1);
    expect_error("odd.csv", 3, "column 'status': 'timed-out' is no status klab writes");
    char *none = edit(text, "\nr1,rmsnorm,b,", ",passed,", ",,");
    assert_int_equal(read_text("none.csv", none), -1);
    expect_error("none.csv", 3, "the row has no status");
    /* a number that is not one, a NaN */
    char *word = edit(text, "\nr1,rmsnorm,b,", ",0.5,", ",fast,");
    assert_int_equal(read_text("word.csv", word), -1);
    expect_error("word.csv", 3, "column 'median_ms': 'fast' is not a number");
    char *nan = edit(text, "\nr1,rmsnorm,b,", ",0.5,", ",nan,");
    assert_int_equal(read_text("nan.csv", nan), -1);
    expect_error("nan.csv", 3, "column 'median_ms': 'nan' is not a finite number");
    /* no status column at all: every row would read as passed */
    assert_int_equal(read_text("nostatus.csv", "run_id,plugin,case,dtype,profile,median_ms\nr,p,c,fp16,f,0.5\n"), -1);
    snprintf(path, sizeof path, "%s/nostatus.csv: not a klab CSV: the header has no 'status' column", kr_tmp);
    assert_string_equal(err, path);
    assert_int_equal(read_text("twice.csv", "run_id,plugin,case,dtype,profile,status,case\nr,p,c,fp16,f,passed,d\n"), -1);
    expect_error("twice.csv", 1, "the header names column 'case' twice");
    free(odd);
    free(none);
    free(word);
    free(nan);
    free(text);
}

static void on_alarm(int sig)
{
    (void)sig;
    static const char msg[] = "Bail out! the reader waited on a file that is not a regular one\n";
    ssize_t w = write(1, msg, sizeof msg - 1);
    (void)w;
    _exit(1);
}

/* A FIFO named *.csv would wait for a writer; a link to /dev/zero would be read for ever; a folder is
   no file: each is refused by its type, at once (the alarm fails the test if the reader waits). */
static void test_only_regular_files(void **state)
{
    (void)state;
    signal(SIGALRM, on_alarm);
    alarm(20);
    char fifo[PATH_MAX + 64], zero[PATH_MAX + 64], dir[PATH_MAX + 64];
    snprintf(fifo, sizeof fifo, "%s/fifo.csv", kr_tmp);
    snprintf(zero, sizeof zero, "%s/zero.csv", kr_tmp);
    snprintf(dir, sizeof dir, "%s/dir.csv", kr_tmp);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    assert_int_equal(symlink("/dev/zero", zero), 0);
    assert_int_equal(mkdir(dir, 0700), 0);
    klab_row *rows = NULL;
    assert_int_equal(csv_read_rows(fifo, &rows, err, sizeof err), -1);
    kr_expect_in(err, "fifo.csv: is a FIFO, not a regular file");
    assert_int_equal(csv_read_rows(zero, &rows, err, sizeof err), -1);
    kr_expect_in(err, "zero.csv: is a character device, not a regular file");
    assert_int_equal(csv_read_rows(dir, &rows, err, sizeof err), -1);
    kr_expect_in(err, "dir.csv: is a directory, not a regular file");
    /* the whole-file reads of meta.ini, samples and counters files too */
    size_t len;
    assert_null(file_read_all(fifo, &len));
    assert_null(file_read_all(zero, &len));
    csv_records rec;
    assert_int_equal(counters_read(zero, &rec, err, sizeof err), -1);
    kr_expect_in(err, "is a character device");
    alarm(0);
}

/* The counters file through the same reader: a line with a cell too few is refused by line. */
static void test_counters_lines(void **state)
{
    (void)state;
    csv_sink s;
    assert_int_equal(counters_open(&s, kr_tmp, "rmsnorm", err, sizeof err), 0);
    klab_row r = good_row("a");
    assert_int_equal(counters_add_status(&s, &r, "no-ncu", "ncu is not installed"), 0);
    assert_int_equal(counters_add_status(&s, &r, "no-ncu", "ncu is still not installed"), 0);
    assert_int_equal(csv_sink_commit(&s, err, sizeof err), 0);
    csv_records rec;
    snprintf(path, sizeof path, "%s/rmsnorm.counters.csv", kr_tmp);
    assert_int_equal(counters_read(path, &rec, err, sizeof err), 0);
    assert_int_equal(rec.n, 3);
    csv_records_free(&rec);
    size_t len;
    char *text = file_read_all(path, &len);
    assert_non_null(text);
    char *cut = edit(text, "still not", "installed,,,,,,,,,\n", "installed,,,,,,,,\n");
    assert_int_equal(read_text("x.counters.csv", cut), -1); /* not a rows file either */
    snprintf(path, sizeof path, "%s/x.counters.csv", kr_tmp);
    assert_int_equal(counters_read(path, &rec, err, sizeof err), -1);
    expect_error("x.counters.csv", 3, "22 cells, but the header has 23");
    free(cut);
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        KR_TEST(test_good_file_reads),
        KR_TEST(test_wrong_cell_count),
        KR_TEST(test_quotes_and_bytes),
        KR_TEST(test_cells_that_do_not_fit),
        KR_TEST(test_status_is_checked),
        KR_TEST(test_only_regular_files),
        KR_TEST(test_counters_lines),
    };
    KLAB_RUN_TESTS(tests);
}
