/* table: the terminal table of a run and of `klab report`. Its cells come from INI files, plugins'
 * errors and CSV files read back: a control character in any of them is shown escaped, never sent to
 * the terminal. */
#include "klab_test.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/table.h"

static void put(const char *dir, const char *name, const char *text)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fputs(text, fp);
    assert_int_equal(fclose(fp), 0);
}

static char *report_of(const char *dir, int rc_want, char *err, size_t errlen)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    assert_non_null(fp);
    err[0] = 0;
    assert_int_equal(table_report(fp, dir, err, errlen), rc_want);
    assert_int_equal(fclose(fp), 0);
    return buf;
}

/* klab report DIR: the rows CSVs in name order, under the meta.ini lines that say which run; a counters
   file (ncu's) is no rows file, hidden and partial files are passed over; a folder without rows says so. */
static void test_report_of_a_folder(void **state)
{
    (void)state;
    char dir[] = "/tmp/klab-test-table-XXXXXX", err[600];
    assert_non_null(mkdtemp(dir));
    char *out = report_of(dir, -1, err, sizeof err);
    free(out);
    assert_non_null(strstr(err, ": no CSV files here"));
    put(dir, "softmax.counters.csv", "run_id,plugin\nr,softmax\n");
    put(dir, "swiglu.csv.partial", "run_id\n");
    out = report_of(dir, -1, err, sizeof err);
    free(out);
    assert_non_null(strstr(err, ": no CSV files here"));
    put(dir, "meta.ini", "[run]\nid = r\nseed = 1\n[device]\nname = NVIDIA H200\n");
    put(dir, "softmax.csv", "run_id,plugin,case,dtype,profile,status\nr,softmax,4096,fp32,fused,passed\n");
    put(dir, "rmsnorm.csv", "run_id,plugin,case,dtype,profile,status\nr,rmsnorm,4096,fp16,fused,passed\n"
                            "r,rmsnorm,8192,fp16,fused,passed\n");
    out = report_of(dir, 0, err, sizeof err);
    assert_non_null(strstr(out, "id = r\nname = NVIDIA H200\n"));
    assert_null(strstr(out, "seed"));
    char *a = strstr(out, "/rmsnorm.csv (2 rows)\n"), *b = strstr(out, "/softmax.csv (1 rows)\n");
    assert_non_null(a);
    assert_non_null(b);
    assert_true(a < b);
    assert_null(strstr(out, "counters"));
    assert_null(strstr(out, "swiglu"));
    free(out);
    const char *names[] = {"meta.ini", "softmax.counters.csv", "swiglu.csv.partial", "softmax.csv", "rmsnorm.csv"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char path[4200];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        assert_int_equal(unlink(path), 0);
    }
    assert_int_equal(rmdir(dir), 0);
    out = report_of(dir, -1, err, sizeof err);
    free(out);
    assert_non_null(strstr(err, ": cannot open: No such file or directory"));
}

static void test_cells_are_escaped(void **state)
{
    (void)state;
    klab_row r;
    memset(&r, 0, sizeof r);
    snprintf(r.kcase, sizeof r.kcase, "big\x1b[2J");
    snprintf(r.dtype, sizeof r.dtype, "fp32");
    snprintf(r.profile, sizeof r.profile, "fused");
    snprintf(r.l2, sizeof r.l2, "cold");
    snprintf(r.launch, sizeof r.launch, "stream");
    r.status = ROW_FAILED;
    snprintf(r.reason, sizeof r.reason, "setup: bad\nFAILED nothing\a");
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    assert_non_null(fp);
    table_print(fp, "t\x1b]0;title\a: 1 row", &r, 1);
    assert_int_equal(fclose(fp), 0);
    assert_non_null(strstr(buf, "\nt\\x1b]0;title\\x07: 1 row\n"));
    assert_non_null(strstr(buf, "\nbig\\x1b[2J       fp32  fused "));
    assert_non_null(strstr(buf, "setup: bad\\x0aFAILED nothing\\x07\n"));
    for (const char *p = buf; *p; p++)
        if ((unsigned char)*p < 0x20 && *p != '\n')
            fail_msg("raw control character \\x%02x at offset %d", *p, (int)(p - buf));
    free(buf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cells_are_escaped),
        cmocka_unit_test(test_report_of_a_folder),
    };
    KLAB_RUN_TESTS(tests);
}
