/* row: flags, status and reason; the schema: the text of each CSV cell (empty numbers for rows without
 * time), each cell read back, and the terminal's text. */
#include "klab_test.h"

#include <math.h>
#include <string.h>

#include "evidence/row.h"

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
    int i = row_column_index(name);
    if (i < 0)
        fail_msg("no column '%s'", name);
    return i;
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
    snprintf(r->config, sizeof r->config, "block=256 vec=8");
    r->batch = 16;
    r->footprint_bytes = UINT64_C(268435456);
    r->status = ROW_PASSED;
    r->has_time = 1;
    r->reps = 250;
    r->discarded = 2;
    r->median_ms = 0.0123456;
    r->has_ci = 1;
    r->median_lo = 0.0123;
    r->median_hi = 0.0124;
    r->precision = 0.00412;
    r->p95_ms = 0.0150001;
    r->p99_ms = 0.0199;
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
    r->has_speedup_ci = 1;
    r->speedup_lo = 2.4;
    r->speedup_hi = 2.63;
    r->sm_mhz = 1980;
    r->launch_floor_ms = 0.0021;
    r->has_err = 1;
    r->rel_l2_err = 3.25e-3;
    r->max_abs_err = 0.0078125;
    r->tol = 1.6e-2;
    r->verified_elems = 4190208;
    r->seed = UINT64_C(18446744073709551615);
    snprintf(r->samples_file, sizeof r->samples_file, "samples/rmsnorm/ragged-bf16-fused.csv");
    row_set_gpu(r, 0, "NVIDIA H200", "GPU-8f0c1a2b-3c4d-5e6f-7081-92a3b4c5d6e7");
}

/* Schema 3, in this order: a reader by position (pandas' usecols, say) depends on it. */
static void test_columns(void **state)
{
    (void)state;
    static const char *const want[] = {
        "run_id", "plugin", "case", "shape", "dtype", "profile", "config", "l2", "launch", "batch",
        "footprint_bytes", "status", "reason", "flags", "reps", "discarded", "median_ms", "median_lo",
        "median_hi", "p95_ms", "p99_ms", "min_ms", "max_ms", "mean_ms", "noise", "precision", "bytes",
        "flops", "gbps", "tflops", "limit", "limit_gbps", "frac_limit", "speedup", "speedup_lo",
        "speedup_hi", "sm_mhz", "launch_floor_ms", "rel_l2_err", "max_abs_err", "tolerance",
        "verified_elems", "seed", "schema", "samples_file", "gpu", "gpu_name", "gpu_uuid",
    };
    assert_int_equal(sizeof want / sizeof want[0], ROW_NCOLUMNS);
    for (int i = 0; i < ROW_NCOLUMNS; i++)
        assert_string_equal(row_schema[i].name, want[i]);
    for (int i = 0; i < ROW_NCOLUMNS; i++)
        for (int j = i + 1; j < ROW_NCOLUMNS; j++)
            assert_true(strcmp(row_schema[i].name, row_schema[j].name) != 0);
    assert_int_equal(row_column_index("run_id"), 0);
    assert_int_equal(row_column_index("samples_file"), ROW_NCOLUMNS - 4);
    assert_int_equal(row_column_index("gpu_uuid"), ROW_NCOLUMNS - 1);
    assert_int_equal(row_column_index("nope"), -1);
    /* every field lies inside the row */
    for (int i = 0; i < ROW_NCOLUMNS; i++)
        assert_true(row_schema[i].off + row_schema[i].size <= sizeof(klab_row));
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
    assert_string_equal(cell(&r, "config"), "block=256 vec=8");
    assert_string_equal(cell(&r, "batch"), "16");
    assert_string_equal(cell(&r, "footprint_bytes"), "268435456");
    assert_string_equal(cell(&r, "status"), "passed");
    assert_string_equal(cell(&r, "reason"), "");
    assert_string_equal(cell(&r, "flags"), "");
    assert_string_equal(cell(&r, "reps"), "250");
    assert_string_equal(cell(&r, "discarded"), "2");
    assert_string_equal(cell(&r, "median_ms"), "0.0123456");
    assert_string_equal(cell(&r, "median_lo"), "0.0123");
    assert_string_equal(cell(&r, "median_hi"), "0.0124");
    assert_string_equal(cell(&r, "p95_ms"), "0.0150001");
    assert_string_equal(cell(&r, "p99_ms"), "0.0199");
    assert_string_equal(cell(&r, "min_ms"), "0.012");
    assert_string_equal(cell(&r, "max_ms"), "1.5");
    assert_string_equal(cell(&r, "mean_ms"), "0.013");
    assert_string_equal(cell(&r, "noise"), "0.0042");
    assert_string_equal(cell(&r, "precision"), "0.00412");
    assert_string_equal(cell(&r, "bytes"), "16769024");
    assert_string_equal(cell(&r, "flops"), "4000000");
    assert_string_equal(cell(&r, "gbps"), "1358.3");
    assert_string_equal(cell(&r, "tflops"), "0.324");
    assert_string_equal(cell(&r, "limit"), "copy");
    assert_string_equal(cell(&r, "limit_gbps"), "4100");
    assert_string_equal(cell(&r, "frac_limit"), "0.331");
    assert_string_equal(cell(&r, "speedup"), "2.5");
    assert_string_equal(cell(&r, "speedup_lo"), "2.4");
    assert_string_equal(cell(&r, "speedup_hi"), "2.63");
    assert_string_equal(cell(&r, "sm_mhz"), "1980");
    assert_string_equal(cell(&r, "launch_floor_ms"), "0.0021");
    assert_string_equal(cell(&r, "rel_l2_err"), "0.00325");
    assert_string_equal(cell(&r, "max_abs_err"), "0.0078125");
    assert_string_equal(cell(&r, "tolerance"), "0.016");
    assert_string_equal(cell(&r, "verified_elems"), "4190208");
    assert_string_equal(cell(&r, "seed"), "18446744073709551615");
    assert_string_equal(cell(&r, "schema"), "3");
    assert_string_equal(cell(&r, "samples_file"), "samples/rmsnorm/ragged-bf16-fused.csv");
    assert_string_equal(cell(&r, "gpu"), "0"); /* ordinal 0 is a value: has_gpu says so, not the number */
    assert_string_equal(cell(&r, "gpu_name"), "NVIDIA H200");
    assert_string_equal(cell(&r, "gpu_uuid"), "GPU-8f0c1a2b-3c4d-5e6f-7081-92a3b4c5d6e7");
    /* out of range: empty */
    char buf[16] = "junk";
    row_cell(&r, ROW_NCOLUMNS, buf, sizeof buf);
    assert_string_equal(buf, "");
    snprintf(buf, sizeof buf, "junk");
    row_cell(&r, -1, buf, sizeof buf);
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
    const char *empty[] = {"batch", "reps", "discarded", "median_ms", "median_lo", "median_hi", "p95_ms",
                           "p99_ms", "min_ms", "max_ms", "mean_ms", "noise", "precision", "gbps", "tflops",
                           "limit", "limit_gbps", "frac_limit", "speedup", "speedup_lo", "speedup_hi",
                           "sm_mhz", "launch_floor_ms", "rel_l2_err", "max_abs_err", "tolerance"};
    for (size_t i = 0; i < sizeof empty / sizeof empty[0]; i++) {
        const char *c = cell(&r, empty[i]);
        if (*c)
            fail_msg("column %s of a failed row is '%s', want empty", empty[i], c);
    }
    /* what the case is stays known */
    assert_string_equal(cell(&r, "bytes"), "16769024");
    assert_string_equal(cell(&r, "seed"), "18446744073709551615");
    assert_string_equal(cell(&r, "schema"), "3");
    /* what the setup and verification declared stays too */
    assert_string_equal(cell(&r, "footprint_bytes"), "268435456");
    assert_string_equal(cell(&r, "config"), "block=256 vec=8");

    /* a zeroed failed row: nothing in any column but its status, reason and schema (no 0 anywhere) */
    klab_row z;
    memset(&z, 0, sizeof z);
    row_fail(&z, ROW_SKIPPED, "fp16 unsupported");
    for (int i = 0; i < ROW_NCOLUMNS; i++) {
        if (i == col("status") || i == col("reason") || i == col("schema"))
            continue;
        char buf[64];
        row_cell(&z, i, buf, sizeof buf);
        if (*buf)
            fail_msg("column %s of an empty row is '%s', want empty", row_schema[i].name, buf);
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
    r.has_speedup_ci = 0;
    r.has_ci = 0;
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
    assert_string_equal(cell(&r, "speedup_lo"), "");
    assert_string_equal(cell(&r, "speedup_hi"), "");
    assert_string_equal(cell(&r, "median_lo"), "");
    assert_string_equal(cell(&r, "median_hi"), "");
    assert_string_equal(cell(&r, "precision"), "");
    assert_string_equal(cell(&r, "p99_ms"), "0.0199"); /* a time, not an interval */
    assert_string_equal(cell(&r, "sm_mhz"), "");
    assert_string_equal(cell(&r, "launch_floor_ms"), "");
    assert_string_equal(cell(&r, "rel_l2_err"), "");
    assert_string_equal(cell(&r, "seed"), "");
    /* a small buffer is cut, and terminated */
    char small[5];
    row_cell(&r, col("run_id"), small, sizeof small);
    assert_string_equal(small, "2025");
}

/* Every column, written and read back: the row that comes back is the row that went (the values are
   exact in %.6g), so a column written but not read, or read into another field, fails here. */
static void test_every_cell_reads_back(void **state)
{
    (void)state;
    klab_row r, back;
    full_row(&r);
    snprintf(r.reason, sizeof r.reason, "a reason");
    snprintf(r.flags, sizeof r.flags, "launch-bound;few-samples");
    r.status = ROW_FLAGGED;
    memset(&back, 0, sizeof back);
    for (int i = 0; i < ROW_NCOLUMNS; i++) {
        char text[600];
        row_cell(&r, i, text, sizeof text);
        if (!*text)
            fail_msg("column %s is empty in a full row: the test cannot see it", row_schema[i].name);
        char why[200];
        assert_int_equal(row_parse(&back, i, text, why, sizeof why), 0);
    }
    for (int i = 0; i < ROW_NCOLUMNS; i++) {
        char a[600], b[600];
        row_cell(&r, i, a, sizeof a);
        row_cell(&back, i, b, sizeof b);
        if (strcmp(a, b) != 0)
            fail_msg("column %s: '%s' came back as '%s'", row_schema[i].name, a, b);
    }
    assert_memory_equal(&r, &back, sizeof r);

    /* an empty cell sets nothing: no flag claims a value that was not there */
    klab_row z;
    memset(&z, 0, sizeof z);
    char why[200];
    for (int i = 0; i < ROW_NCOLUMNS; i++)
        assert_int_equal(row_parse(&z, i, "", why, sizeof why), 0);
    klab_row zero;
    memset(&zero, 0, sizeof zero);
    assert_memory_equal(&z, &zero, sizeof z);
    /* a text longer than its field is refused, not cut: cut, it would read as another name */
    char big[1000];
    memset(big, 'c', sizeof big - 1);
    big[sizeof big - 1] = 0;
    assert_int_equal(row_parse(&z, col("case"), big, why, sizeof why), -1);
    assert_string_equal(why, "column 'case': 999 bytes, more than its 63");
    assert_int_equal(z.kcase[0], 0);
    big[63] = 0;
    assert_int_equal(row_parse(&z, col("case"), big, why, sizeof why), 0);
    assert_int_equal(strlen(z.kcase), 63);
    /* what is not the column's kind: a status klab never writes (it used to read as passed), a
       number that is not one, a NaN, a whole number with a sign or a fraction */
    struct {
        const char *col, *text, *why;
    } bad[] = {
        {"status", "pased", "column 'status': 'pased' is no status klab writes"},
        {"status", "PASSED", "column 'status': 'PASSED' is no status klab writes"},
        {"median_ms", "0.5ms", "column 'median_ms': '0.5ms' is not a number"},
        {"median_ms", " 0.5", "column 'median_ms': ' 0.5' is not a number"},
        {"median_ms", "nan", "column 'median_ms': 'nan' is not a finite number"},
        {"median_hi", "inf", "column 'median_hi': 'inf' is not a finite number"},
        {"reps", "12.5", "column 'reps': '12.5' is not a whole number"},
        {"reps", "99999999999", "column 'reps': '99999999999' is not a whole number"},
        {"seed", "-1", "column 'seed': '-1' is not a whole number"},
        {"seed", "0x10", "column 'seed': '0x10' is not a whole number"},
        {"seed", "18446744073709551616", "column 'seed': '18446744073709551616' is not a whole number"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        klab_row b;
        memset(&b, 0, sizeof b);
        assert_int_equal(row_parse(&b, col(bad[k].col), bad[k].text, why, sizeof why), -1);
        assert_string_equal(why, bad[k].why);
    }
    assert_int_equal(row_parse(&z, col("reps"), "-3", why, sizeof why), 0);
    assert_int_equal(z.reps, -3);
    assert_int_equal(row_parse(&z, col("seed"), "18446744073709551615", why, sizeof why), 0);
    assert_true(z.seed == UINT64_MAX);
}

/* Numbers are read without strtod where they can be (a fast path for klab's own %.6g): every value
   must come back as strtod reads it, to the bit. */
static void test_numbers_read_as_strtod_reads_them(void **state)
{
    (void)state;
    uint64_t x = 88172645463325252ull;
    int med = col("median_ms");
    char why[200];
    for (int i = 0; i < 200000; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17; /* xorshift64 */
        double v;
        memcpy(&v, &x, sizeof v);
        if (!isfinite(v))
            continue;
        char text[64];
        const char *fmt[] = {"%.6g", "%.0f", "%.15g", "%.17g", "%g", "%.3f"};
        /* values of every size, and the sizes klab's rows hold */
        double w = i % 2 ? v : ldexp((double)(x >> 11) / 9007199254740992.0, (int)(x % 64) - 40);
        snprintf(text, sizeof text, fmt[i % 6], w);
        if (strlen(text) > 60)
            continue;
        klab_row r;
        memset(&r, 0, sizeof r);
        assert_int_equal(row_parse(&r, med, text, why, sizeof why), 0);
        double want = strtod(text, NULL);
        if (memcmp(&want, &r.median_ms, sizeof want) != 0)
            fail_msg("'%s' read as %.17g, strtod reads %.17g", text, r.median_ms, want);
    }
    const char *edge[] = {"0", "-0", "0.5", "1e-22", "9.99999e+22", "123456789012345", "1234567890123456",
                          "0.000001", "1e22", "1e23", "4060.18", "0.0330573", "-1.5e-7", "1E5"};
    for (size_t i = 0; i < sizeof edge / sizeof edge[0]; i++) {
        klab_row r;
        memset(&r, 0, sizeof r);
        assert_int_equal(row_parse(&r, med, edge[i], why, sizeof why), 0);
        double want = strtod(edge[i], NULL);
        assert_memory_equal(&want, &r.median_ms, sizeof want);
    }
    const char *bad[] = {".", "-", "1e", "1e+", "1.2.3", "1,5", "--1", "e5"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        klab_row r;
        memset(&r, 0, sizeof r);
        if (row_parse(&r, med, bad[i], why, sizeof why) != -1)
            fail_msg("'%s' read as a number", bad[i]);
    }
}

static const char *term(const klab_row *r, const char *name)
{
    static char buf[700];
    row_term(r, col(name), buf, sizeof buf);
    return buf;
}

static void test_terminal_text(void **state)
{
    (void)state;
    klab_row r;
    full_row(&r);
    assert_string_equal(term(&r, "case"), "ragged");
    assert_string_equal(term(&r, "l2"), "cold+g");
    assert_string_equal(term(&r, "median_ms"), "12.35");
    assert_string_equal(term(&r, "precision"), "0.41%");
    assert_string_equal(term(&r, "gbps"), "1358");
    assert_string_equal(term(&r, "frac_limit"), "33.1%");
    assert_string_equal(term(&r, "speedup"), "2.50x");
    assert_string_equal(term(&r, "speedup_lo"), "2.40-2.63x");
    assert_string_equal(term(&r, "status"), "passed");
    /* the launch floor is the note of a launch-bound row without a reason */
    assert_string_equal(term(&r, "reason"), "under 10 us: the empty launch alone takes 2.10 us (try --batched)");
    /* not on the terminal */
    assert_string_equal(term(&r, "run_id"), "");
    assert_string_equal(term(&r, "seed"), "");

    row_fail(&r, ROW_FAILED, "hook error");
    row_add_flag(&r, "few-samples");
    r.has_time = 0;
    snprintf(r.launch, sizeof r.launch, "stream");
    assert_string_equal(term(&r, "l2"), "cold");
    assert_string_equal(term(&r, "median_ms"), "-");
    assert_string_equal(term(&r, "speedup_lo"), "-");
    assert_string_equal(term(&r, "status"), "failed few-samples");
    assert_string_equal(term(&r, "reason"), "hook error");
    /* every column the terminal shows has a header and a width, but the free-width ones */
    for (int i = 0; i < ROW_NCOLUMNS; i++) {
        const row_column *c = &row_schema[i];
        if (c->show == SHOW_NO || c->show == SHOW_NOTE)
            continue;
        assert_non_null(c->head);
        assert_true(c->show == SHOW_STATUS || c->width != 0);
    }
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
        cmocka_unit_test(test_every_cell_reads_back),
        cmocka_unit_test(test_numbers_read_as_strtod_reads_them),
        cmocka_unit_test(test_terminal_text),
    };
    KLAB_RUN_TESTS(tests);
}
