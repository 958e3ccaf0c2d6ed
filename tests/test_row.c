/* row: flags, status and reason, and the text of each CSV cell (empty numbers for rows without time). */
#include "klab_test.h"

#include <string.h>

#include "row.h"

static void test_add_flag(void **state)
{
    (void)state;
    klab_row r;
    memset(&r, 0, sizeof r);
    row_add_flag(&r, "launch-bound");
    assert_string_equal(r.flags, "launch-bound");
    row_add_flag(&r, "launch-bound"); /* no duplicates */
    assert_string_equal(r.flags, "launch-bound");
    row_add_flag(&r, "few-samples");
    assert_string_equal(r.flags, "launch-bound;few-samples");
    row_add_flag(&r, "few-samples");
    row_add_flag(&r, "launch-bound");
    assert_string_equal(r.flags, "launch-bound;few-samples");
    /* a prefix, an inner part or a suffix of a flag already there is a flag of its own */
    row_add_flag(&r, "launch");
    assert_string_equal(r.flags, "launch-bound;few-samples;launch");
    row_add_flag(&r, "samples");
    assert_string_equal(r.flags, "launch-bound;few-samples;launch;samples");
    row_add_flag(&r, "bound;few");
    assert_string_equal(r.flags, "launch-bound;few-samples;launch;samples;bound;few");
    row_add_flag(&r, "launch");
    row_add_flag(&r, "samples");
    assert_string_equal(r.flags, "launch-bound;few-samples;launch;samples;bound;few");
}

static void test_add_flag_longer_than_existing(void **state)
{
    (void)state;
    klab_row r;
    memset(&r, 0, sizeof r);
    row_add_flag(&r, "few");
    row_add_flag(&r, "few-samples"); /* the one there is a prefix of the new one */
    assert_string_equal(r.flags, "few;few-samples");
    row_add_flag(&r, "exceeds-roofline");
    row_add_flag(&r, "few");
    row_add_flag(&r, "few-samples");
    assert_string_equal(r.flags, "few;few-samples;exceeds-roofline");
}

static void test_add_flag_never_overflows(void **state)
{
    (void)state;
    klab_row r;
    memset(&r, 0x7f, sizeof r);
    r.flags[0] = 0;
    char name[32];
    for (int i = 0; i < 40; i++) {
        snprintf(name, sizeof name, "flag-number-%d", i);
        row_add_flag(&r, name);
    }
    assert_true(strlen(r.flags) < sizeof r.flags);
    assert_int_equal(strncmp(r.flags, "flag-number-0;flag-number-1;", 28), 0);
    assert_int_equal(r.has_time, 0x7f7f7f7f); /* the field after flags is untouched */
}

static void test_fail_sets_status_and_reason(void **state)
{
    (void)state;
    klab_row r;
    memset(&r, 0, sizeof r);
    row_fail(&r, ROW_FAILED, "CUDA error %d in %s", 700, "run");
    assert_int_equal(r.status, ROW_FAILED);
    assert_string_equal(r.reason, "CUDA error 700 in run");
    /* a later reason replaces the earlier one */
    row_fail(&r, ROW_INCORRECT, "out: %zu of %zu elements off", (size_t)3, (size_t)10);
    assert_int_equal(r.status, ROW_INCORRECT);
    assert_string_equal(r.reason, "out: 3 of 10 elements off");
    /* a long reason is cut, not overflowed */
    char big[1000];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = 0;
    row_fail(&r, ROW_REFUSED, "%s", big);
    assert_int_equal(r.status, ROW_REFUSED);
    assert_int_equal(strlen(r.reason), sizeof r.reason - 1);
}

static void test_status_names(void **state)
{
    (void)state;
    assert_string_equal(row_status_name(ROW_PASSED), "passed");
    assert_string_equal(row_status_name(ROW_INCORRECT), "incorrect");
    assert_string_equal(row_status_name(ROW_FAILED), "failed");
    assert_string_equal(row_status_name(ROW_FLAGGED), "flagged");
    assert_string_equal(row_status_name(ROW_SKIPPED), "skipped");
    assert_string_equal(row_status_name(ROW_REFUSED), "refused");
    assert_string_equal(row_status_name((row_status)42), "?");
}

static int col(const char *name)
{
    for (int i = 0; i < ROW_NCOLUMNS; i++)
        if (strcmp(row_columns[i], name) == 0)
            return i;
    fail_msg("no column '%s'", name);
    return -1;
}

static const char *cell(const klab_row *r, const char *name)
{
    static char buf[1024];
    memset(buf, '#', sizeof buf);
    row_cell(r, col(name), buf, sizeof buf);
    return buf;
}

static void full_row(klab_row *r)
{
    memset(r, 0, sizeof *r);
    snprintf(r->run_id, sizeof r->run_id, "2025-01-01-abc");
    snprintf(r->plugin, sizeof r->plugin, "rmsnorm");
    snprintf(r->kcase, sizeof r->kcase, "ragged");
    snprintf(r->shape, sizeof r->shape, "1024x4093");
    snprintf(r->dtype, sizeof r->dtype, "bf16");
    snprintf(r->profile, sizeof r->profile, "fused");
    snprintf(r->l2, sizeof r->l2, "cold");
    snprintf(r->launch, sizeof r->launch, "graph");
    r->status = ROW_PASSED;
    r->has_time = 1;
    r->reps = 250;
    r->discarded = 2;
    r->median_ms = 0.0123456;
    r->p95_ms = 0.0150001;
    r->min_ms = 0.012;
    r->max_ms = 1.5;
    r->mean_ms = 0.0130000;
    r->noise = 0.0042;
    r->bytes = 16769024;
    r->flops = 4e6;
    r->gbps = 1358.3;
    r->tflops = 0.324;
    r->has_limit = 1;
    snprintf(r->limit, sizeof r->limit, "copy");
    r->limit_gbps = 4100;
    r->frac_limit = 0.331;
    r->has_speedup = 1;
    r->speedup = 2.5;
    r->sm_mhz = 1980;
    r->launch_floor_ms = 0.0021;
    r->has_err = 1;
    r->rel_l2_err = 3.25e-3;
    r->max_abs_err = 0.0078125;
    r->tol = 1.6e-2;
    r->seed = UINT64_C(18446744073709551615);
}

static void test_columns(void **state)
{
    (void)state;
    assert_string_equal(row_columns[0], "run_id");
    assert_string_equal(row_columns[ROW_NCOLUMNS - 1], "schema");
    for (int i = 0; i < ROW_NCOLUMNS; i++)
        for (int j = i + 1; j < ROW_NCOLUMNS; j++)
            assert_true(strcmp(row_columns[i], row_columns[j]) != 0);
}

static void test_cells_of_passed_row(void **state)
{
    (void)state;
    klab_row r;
    full_row(&r);
    assert_string_equal(cell(&r, "run_id"), "2025-01-01-abc");
    assert_string_equal(cell(&r, "plugin"), "rmsnorm");
    assert_string_equal(cell(&r, "case"), "ragged");
    assert_string_equal(cell(&r, "shape"), "1024x4093");
    assert_string_equal(cell(&r, "dtype"), "bf16");
    assert_string_equal(cell(&r, "profile"), "fused");
    assert_string_equal(cell(&r, "l2"), "cold");
    assert_string_equal(cell(&r, "launch"), "graph");
    assert_string_equal(cell(&r, "status"), "passed");
    assert_string_equal(cell(&r, "reason"), "");
    assert_string_equal(cell(&r, "flags"), "");
    assert_string_equal(cell(&r, "reps"), "250");
    assert_string_equal(cell(&r, "discarded"), "2");
    assert_string_equal(cell(&r, "median_ms"), "0.0123456");
    assert_string_equal(cell(&r, "p95_ms"), "0.0150001");
    assert_string_equal(cell(&r, "min_ms"), "0.012");
    assert_string_equal(cell(&r, "max_ms"), "1.5");
    assert_string_equal(cell(&r, "mean_ms"), "0.013");
    assert_string_equal(cell(&r, "noise"), "0.0042");
    assert_string_equal(cell(&r, "bytes"), "16769024");
    assert_string_equal(cell(&r, "flops"), "4000000");
    assert_string_equal(cell(&r, "gbps"), "1358.3");
    assert_string_equal(cell(&r, "tflops"), "0.324");
    assert_string_equal(cell(&r, "limit"), "copy");
    assert_string_equal(cell(&r, "limit_gbps"), "4100");
    assert_string_equal(cell(&r, "frac_limit"), "0.331");
    assert_string_equal(cell(&r, "speedup"), "2.5");
    assert_string_equal(cell(&r, "sm_mhz"), "1980");
    assert_string_equal(cell(&r, "launch_floor_ms"), "0.0021");
    assert_string_equal(cell(&r, "rel_l2_err"), "0.00325");
    assert_string_equal(cell(&r, "max_abs_err"), "0.0078125");
    assert_string_equal(cell(&r, "tolerance"), "0.016");
    assert_string_equal(cell(&r, "seed"), "18446744073709551615");
    assert_string_equal(cell(&r, "schema"), "1");
    /* out of range: empty */
    char buf[16] = "junk";
    row_cell(&r, ROW_NCOLUMNS, buf, sizeof buf);
    assert_string_equal(buf, "");
}

static void test_cells_of_failed_row(void **state)
{
    (void)state;
    klab_row r;
    full_row(&r);
    /* the numbers are still in the struct, but the row has no time: none may be written */
    r.has_time = 0;
    r.has_err = 0;
    row_fail(&r, ROW_FAILED, "worker crashed (signal 11)");
    row_add_flag(&r, "few-samples");
    assert_string_equal(cell(&r, "status"), "failed");
    assert_string_equal(cell(&r, "reason"), "worker crashed (signal 11)");
    assert_string_equal(cell(&r, "flags"), "few-samples");
    const char *empty[] = {"reps", "discarded", "median_ms", "p95_ms", "min_ms", "max_ms", "mean_ms",
                           "noise", "gbps", "tflops", "limit", "limit_gbps", "frac_limit", "speedup",
                           "sm_mhz", "launch_floor_ms", "rel_l2_err", "max_abs_err", "tolerance"};
    for (size_t i = 0; i < sizeof empty / sizeof empty[0]; i++) {
        const char *c = cell(&r, empty[i]);
        if (*c)
            fail_msg("column %s of a failed row is '%s', want empty", empty[i], c);
    }
    /* what the case is stays known */
    assert_string_equal(cell(&r, "bytes"), "16769024");
    assert_string_equal(cell(&r, "seed"), "18446744073709551615");
    assert_string_equal(cell(&r, "schema"), "1");

    /* a zeroed failed row: still no 0 anywhere in a number column */
    klab_row z;
    memset(&z, 0, sizeof z);
    row_fail(&z, ROW_SKIPPED, "fp16 unsupported");
    for (int i = col("reps"); i <= col("seed"); i++) {
        char buf[64];
        row_cell(&z, i, buf, sizeof buf);
        if (*buf)
            fail_msg("column %s of an empty row is '%s', want empty", row_columns[i], buf);
    }
    assert_string_equal(cell(&z, "status"), "skipped");
}

/* Timed, but without limit, speedup, clock or error: those cells stay empty, the times do not. */
static void test_cells_of_partial_row(void **state)
{
    (void)state;
    klab_row r;
    full_row(&r);
    r.has_limit = 0;
    r.has_speedup = 0;
    r.has_err = 0;
    r.sm_mhz = 0;
    r.launch_floor_ms = 0;
    r.flops = 0;
    r.seed = 0;
    assert_string_equal(cell(&r, "median_ms"), "0.0123456");
    assert_string_equal(cell(&r, "gbps"), "1358.3");
    assert_string_equal(cell(&r, "tflops"), "");
    assert_string_equal(cell(&r, "flops"), "");
    assert_string_equal(cell(&r, "limit"), "");
    assert_string_equal(cell(&r, "limit_gbps"), "");
    assert_string_equal(cell(&r, "frac_limit"), "");
    assert_string_equal(cell(&r, "speedup"), "");
    assert_string_equal(cell(&r, "sm_mhz"), "");
    assert_string_equal(cell(&r, "launch_floor_ms"), "");
    assert_string_equal(cell(&r, "rel_l2_err"), "");
    assert_string_equal(cell(&r, "seed"), "");
    /* a small buffer is cut, and terminated */
    char small[5];
    row_cell(&r, col("run_id"), small, sizeof small);
    assert_string_equal(small, "2025");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_add_flag),
        cmocka_unit_test(test_add_flag_longer_than_existing),
        cmocka_unit_test(test_add_flag_never_overflows),
        cmocka_unit_test(test_fail_sets_status_and_reason),
        cmocka_unit_test(test_status_names),
        cmocka_unit_test(test_columns),
        cmocka_unit_test(test_cells_of_passed_row),
        cmocka_unit_test(test_cells_of_failed_row),
        cmocka_unit_test(test_cells_of_partial_row),
    };
    KLAB_RUN_TESTS(tests);
}
