/* results: a row's arithmetic from a timed subject (statistics, GB/s, TFLOP/s, flags, fraction of
 * limit, speedup), judged against the row dtype's roofline: an honest fp8 row above the fp16 tensor
 * peak is not flagged, an fp16 one is. Pure C: subjects are made by hand. */
#include "klab_test.h"

#include <math.h>
#include <string.h>

#include "worker/results.h"

#define assert_near(a, b, eps) assert_true(fabs((double)(a) - (double)(b)) <= (eps))

static double samples_1ms[3] = {1.0, 1.0, 1.0}, samples_2ms[3] = {2.0, 2.0, 2.0};

static subject timed(double *samples, size_t n)
{
    subject s;
    memset(&s, 0, sizeof s);
    s.samples = samples;
    s.n = n;
    s.clock_mhz = 1980;
    return s;
}

static roofline h200(void)
{
    device_info d;
    memset(&d, 0, sizeof d);
    d.cc = 90;
    d.sms = 132;
    d.clock_khz = 1980000;
    d.mem_clock_khz = 3201000;
    d.bus_width_bits = 6144;
    roofline r;
    roofline_from_device(&d, &r);
    return r;
}

static timing_opts opts(void)
{
    timing_opts o;
    memset(&o, 0, sizeof o);
    o.stop.min_reps = 3;
    o.stop.budget_ms = 100;
    o.throttle = 0.75;
    return o;
}

static void test_timing_figures(void **state)
{
    (void)state;
    roofline r = h200(), r16 = roofline_for_dtype(&r, KLAB_FP16);
    timing_opts o = opts();
    subject s = timed(samples_1ms, 3);
    klab_row row;
    memset(&row, 0, sizeof row);
    row.bytes = 2e9;
    row.flops = 1e9;
    results_fill_timing(&row, &s, &r16, 0.004, &o);
    assert_int_equal(row.status, ROW_PASSED);
    assert_true(row.has_time);
    assert_int_equal(row.reps, 3);
    assert_near(row.median_ms, 1.0, 0);
    assert_near(row.gbps, 2000, 1e-9);  /* 2 GB in 1 ms */
    assert_near(row.tflops, 1.0, 1e-12); /* 1 GFLOP in 1 ms */
    assert_string_equal(row.flags, "");
    /* fewer samples than asked for: the rounds decide it (rounds.c), the row says it */
    o.stop.min_reps = 5;
    memset(&row, 0, sizeof row);
    results_fill_timing(&row, &s, &r16, 0.004, &o);
    assert_null(strstr(row.flags, "few-samples")); /* not decided here a second time */
    s.few_samples = 1;
    memset(&row, 0, sizeof row);
    results_fill_timing(&row, &s, &r16, 0.004, &o);
    assert_non_null(strstr(row.flags, "few-samples"));
}

static void test_roofline_by_dtype(void **state)
{
    (void)state;
    roofline r = h200();
    timing_opts o = opts();
    subject s = timed(samples_1ms, 3);
    /* 1.5 PFLOP in a second: above the fp16 peak (1070 TFLOP/s), below fp8's (2141) */
    klab_row row;
    memset(&row, 0, sizeof row);
    row.flops = 1.5e12;
    roofline r8 = roofline_for_dtype(&r, KLAB_FP8_E4M3), r16 = roofline_for_dtype(&r, KLAB_FP16);
    results_fill_timing(&row, &s, &r8, 0, &o);
    assert_int_equal(row.status, ROW_PASSED);
    memset(&row, 0, sizeof row);
    row.flops = 1.5e12;
    results_fill_timing(&row, &s, &r16, 0, &o);
    assert_int_equal(row.status, ROW_FLAGGED);
    assert_non_null(strstr(row.flags, "exceeds-roofline"));
    assert_non_null(strstr(row.reason, "over the peak 1070.5 TFLOP/s"));
}

static void test_limit_and_speedup(void **state)
{
    (void)state;
    roofline r = h200(), r16 = roofline_for_dtype(&r, KLAB_FP16), ri = roofline_for_dtype(&r, KLAB_INT32);
    timing_opts o = opts();
    subject fast = timed(samples_1ms, 3), slow = timed(samples_2ms, 3), copy = timed(samples_1ms, 3);
    klab_row row;
    memset(&row, 0, sizeof row);
    row.bytes = 4e9;
    row.flops = 1e9;
    results_fill_timing(&row, &slow, &r16, 0, &o);
    results_fill_limit(&row, &copy, &r16);
    assert_true(row.has_limit);
    assert_string_equal(row.limit, "copy"); /* half the copy's rate beats a sliver of the tensor peak */
    assert_near(row.frac_limit, 0.5, 1e-12);
    assert_near(row.limit_gbps, 4000, 1e-9);
    results_fill_speedup(&row, &slow, &fast);
    assert_true(row.has_speedup);
    assert_near(row.speedup, 0.5, 1e-12);
    assert_false(row.has_speedup_ci); /* 3 samples each: too few for an interval */
    /* with enough samples the speedup gets an interval that holds it */
    double a[40], b[40];
    for (int i = 0; i < 40; i++) {
        a[i] = 1.0 + 0.001 * (i % 7);
        b[i] = 2.0 + 0.002 * (i % 5);
    }
    subject fa = timed(a, 40), sb = timed(b, 40);
    memset(&row, 0, sizeof row);
    row.bytes = 4e9;
    results_fill_timing(&row, &fa, &r16, 0, &o);
    results_fill_speedup(&row, &fa, &sb);
    assert_true(row.has_speedup_ci);
    assert_true(row.speedup_lo <= row.speedup && row.speedup <= row.speedup_hi);
    assert_true(row.speedup_lo > 1.9 && row.speedup_hi < 2.1);
    /* an integer row has no tensor peak: only the copy can be its limit */
    memset(&row, 0, sizeof row);
    row.flops = 1e12;
    results_fill_timing(&row, &fast, &ri, 0, &o);
    results_fill_limit(&row, NULL, &ri);
    assert_false(row.has_limit);
    /* a failed baseline gives no speedup */
    slow.state = SUBJ_FAILED;
    memset(&row, 0, sizeof row);
    results_fill_timing(&row, &fast, &r16, 0, &o);
    results_fill_speedup(&row, &fast, &slow);
    assert_false(row.has_speedup);
}

static void test_no_sample_flags(void **state)
{
    (void)state;
    roofline r = h200();
    timing_opts o = opts();
    subject s = timed(NULL, 0);
    s.discarded = 7;
    klab_row row;
    memset(&row, 0, sizeof row);
    results_fill_timing(&row, &s, &r, 0, &o);
    assert_int_equal(row.status, ROW_FLAGGED);
    assert_false(row.has_time);
    assert_string_equal(row.reason, "no accepted sample: all 7 ran below 75% of the peak SM clock (throttled)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_timing_figures),
        cmocka_unit_test(test_roofline_by_dtype),
        cmocka_unit_test(test_limit_and_speedup),
        cmocka_unit_test(test_no_sample_flags),
    };
    KLAB_RUN_TESTS(tests);
}
