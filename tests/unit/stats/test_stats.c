/* stats (summary of timing samples, with the median's interval) and stopping (the precision of the
 * median, recomputed on a schedule, and the stop decision). */
#include "klab_test.h"

#include <math.h>
#include <string.h>

#include "stats/stats.h"
#include "timing/stopping.h"

#define assert_near(a, b, eps) assert_true(fabs((double)(a) - (double)(b)) <= (eps))

/* ---- stats_compute ---- */

static void test_odd_count(void **state)
{
    (void)state;
    const double x[] = {5, 1, 4, 2, 3};
    stats s;
    assert_int_equal(stats_compute(x, 5, &s), 0);
    assert_int_equal(s.n, 5);
    assert_true(s.median == 3);
    assert_true(s.min == 1);
    assert_true(s.max == 5);
    assert_true(s.mean == 3);
    /* p95: rank 0.95 * 4 = 3.8 -> 4 + 0.8 * (5 - 4) */
    assert_near(s.p95, 4.8, 1e-12);
    /* sample stddev sqrt(10 / 4) over mean 3 */
    assert_near(s.noise, sqrt(2.5) / 3, 1e-15);
    /* rank 0.99 * 4 = 3.96 */
    assert_near(s.p99, 4.96, 1e-12);
    /* five samples hold no 95 % interval of the median: none is made up */
    assert_int_equal(s.has_ci, 0);
    assert_true(s.median_lo == 0 && s.median_hi == 0 && s.precision == 0);
}

static void test_even_count(void **state)
{
    (void)state;
    const double x[] = {8, 2, 6, 4};
    stats s;
    assert_int_equal(stats_compute(x, 4, &s), 0);
    assert_int_equal(s.n, 4);
    /* the mean of the two middle values */
    assert_true(s.median == 5);
    assert_true(s.min == 2);
    assert_true(s.max == 8);
    assert_true(s.mean == 5);
    /* rank 0.95 * 3 = 2.85 -> 6 + 0.85 * 2 */
    assert_near(s.p95, 7.7, 1e-12);
    /* deviations -3 -1 1 3: sum of squares 20, over n - 1 = 3 */
    assert_near(s.noise, sqrt(20.0 / 3) / 5, 1e-15);
}

static void test_p95_interpolates(void **state)
{
    (void)state;
    double x[20];
    for (int i = 0; i < 20; i++)
        x[i] = 20 - i; /* 20..1, descending */
    stats s;
    assert_int_equal(stats_compute(x, 20, &s), 0);
    /* rank 0.95 * 19 = 18.05 between 19 and 20; 0.99 * 19 = 18.81 */
    assert_near(s.p95, 19.05, 1e-12);
    assert_near(s.p99, 19.81, 1e-12);
    /* the median's 95 % interval: order statistics 6 and 15 of 20 (test_interval.c) */
    assert_int_equal(s.has_ci, 1);
    assert_true(s.median_lo == 6 && s.median_hi == 15);
    assert_near(s.precision, 9 / (2 * 10.5), 1e-15);
    assert_near(s.median, 10.5, 1e-12);
    assert_true(s.min == 1);
    assert_true(s.max == 20);
    assert_near(s.mean, 10.5, 1e-12);
}

static void test_single_and_equal_samples(void **state)
{
    (void)state;
    const double one = 0.25;
    stats s;
    assert_int_equal(stats_compute(&one, 1, &s), 0);
    assert_int_equal(s.n, 1);
    assert_true(s.median == 0.25 && s.p95 == 0.25 && s.p99 == 0.25 && s.min == 0.25 && s.max == 0.25 &&
                s.mean == 0.25);
    assert_true(s.noise == 0); /* no spread from one sample */

    const double same[] = {1.5, 1.5, 1.5};
    assert_int_equal(stats_compute(same, 3, &s), 0);
    assert_true(s.noise == 0);
    assert_true(s.p95 == 1.5);
}

static void test_empty(void **state)
{
    (void)state;
    stats s;
    memset(&s, 0x55, sizeof s);
    assert_int_equal(stats_compute(NULL, 0, &s), 0);
    assert_int_equal(s.n, 0);
    assert_true(s.median == 0 && s.p95 == 0 && s.p99 == 0 && s.min == 0 && s.max == 0 && s.mean == 0 &&
                s.noise == 0 && s.has_ci == 0);
}

static void test_input_order_unchanged(void **state)
{
    (void)state;
    double x[] = {3, 9, 1, 7, 5, 2};
    const double copy[] = {3, 9, 1, 7, 5, 2};
    stats s;
    assert_int_equal(stats_compute(x, 6, &s), 0);
    assert_memory_equal(x, copy, sizeof x);
    assert_true(s.median == 4);
}

static void test_quantile_sorted(void **state)
{
    (void)state;
    const double s[] = {10, 20, 30, 40, 50};
    assert_true(stats_quantile_sorted(s, 5, 0) == 10);
    assert_true(stats_quantile_sorted(s, 5, 1) == 50);
    assert_true(stats_quantile_sorted(s, 5, 0.5) == 30);
    assert_near(stats_quantile_sorted(s, 5, 0.25), 20, 1e-12);
    assert_near(stats_quantile_sorted(s, 5, 0.1), 14, 1e-12);  /* rank 0.4 */
    assert_near(stats_quantile_sorted(s, 5, 0.95), 48, 1e-12); /* rank 3.8 */
    assert_true(stats_quantile_sorted(s, 1, 0.95) == 10);
    assert_true(stats_quantile_sorted(s, 0, 0.5) == 0);
    const double two[] = {1, 3};
    assert_near(stats_quantile_sorted(two, 2, 0.75), 2.5, 1e-12);
}

/* ---- stopping ---- */

/* A deterministic pseudo-random sequence around 1.0 (a timing in ms, say). */
static double sample(unsigned *seed)
{
    *seed = *seed * 1664525u + 1013904223u;
    return 1.0 + ((*seed >> 8) / 16777216.0 - 0.5) * 0.1;
}

static void fill(double *x, int n, unsigned *seed)
{
    for (int i = 0; i < n; i++)
        x[i] = sample(seed);
}

/* ---- stats_ratio_interval ---- */

static void test_ratio_interval_of_unsorted_samples(void **state)
{
    (void)state;
    enum { N = 40 };
    double base[N], subj[N];
    unsigned seed = 99;
    fill(base, N, &seed);
    fill(subj, N, &seed);
    for (int i = 0; i < N; i++)
        base[i] *= 2; /* twice as slow */
    double keep[N], lo, hi;
    memcpy(keep, base, sizeof base);
    assert_int_equal(stats_ratio_interval(base, N, subj, N, &lo, &hi), 0);
    assert_memory_equal(keep, base, sizeof base); /* the caller's order is kept */
    stats b, s;
    assert_int_equal(stats_compute(base, N, &b), 0);
    assert_int_equal(stats_compute(subj, N, &s), 0);
    /* it brackets the ratio of medians, and is wider than the two 95 % intervals would make it */
    assert_true(lo < b.median / s.median && b.median / s.median < hi);
    assert_true(lo <= b.median_lo / s.median_hi && hi >= b.median_hi / s.median_lo);
    assert_true(lo > 1.8 && hi < 2.2);
    /* too few for a 97.5 % interval of each */
    assert_int_equal(stats_ratio_interval(base, 6, subj, N, &lo, &hi), -1);
}

/* ---- stopping ---- */

static void add_all(stop_acc *a, const double *x, int n)
{
    for (int i = 0; i < n; i++)
        assert_int_equal(stop_add(a, x[i]), 0);
}

static void add_n(stop_acc *a, int n, double v)
{
    for (int i = 0; i < n; i++)
        assert_int_equal(stop_add(a, v), 0);
}

/* A fresh accumulator computes at once, and agrees with stats_compute on the same samples. */
static void test_precision_matches_stats(void **state)
{
    (void)state;
    enum { N = 1000 };
    double x[N];
    unsigned seed = 12345;
    fill(x, N, &seed);
    const int ns[] = {6, 7, 20, 21, 333, N};
    for (size_t t = 0; t < sizeof ns / sizeof ns[0]; t++) {
        stop_acc a = {0};
        add_all(&a, x, ns[t]);
        stats s;
        assert_int_equal(stats_compute(x, (size_t)ns[t], &s), 0);
        assert_int_equal(s.has_ci, 1);
        assert_near(stop_precision(&a), s.precision, 1e-15);
        assert_int_equal(a.computed, 1);
        assert_int_equal(a.n_at, ns[t]);
        stop_acc_free(&a);
    }
}

static void test_precision_needs_six_samples(void **state)
{
    (void)state;
    stop_acc a = {0};
    assert_true(isinf(stop_precision(&a)));
    add_n(&a, 5, 1.0);
    assert_true(isinf(stop_precision(&a))); /* no spread at all, but no interval either */
    assert_int_equal(a.computed, 0);        /* and nothing cached, so the sixth is looked at */
    add_n(&a, 1, 1.0);
    assert_true(stop_precision(&a) == 0);
    assert_int_equal(a.computed, 1);
    stop_acc_free(&a);
}

/* Recomputed every 16 samples, or every 10 % once that is more; the last value in between. */
static void test_recompute_schedule(void **state)
{
    (void)state;
    enum { N = 300 };
    double x[N];
    unsigned seed = 4242;
    fill(x, N, &seed);
    stop_acc a = {0};
    add_all(&a, x, 20);
    double p20 = stop_precision(&a);
    assert_int_equal(a.n_at, 20);
    /* the next 15 samples sit on one value: a fresh interval would be far tighter, the cached one is
       still used */
    add_n(&a, 15, 1.0);
    assert_true(stop_precision(&a) == p20);
    assert_int_equal(a.computed, 1);
    add_n(&a, 1, 1.0); /* 36 = 20 + 16 */
    assert_true(stop_precision(&a) < p20);
    assert_int_equal(a.computed, 2);
    assert_int_equal(a.n_at, 36);

    stop_acc b = {0};
    add_all(&b, x, 200);
    stop_precision(&b);
    add_all(&b, x + 200, 19);
    stop_precision(&b);
    assert_int_equal(b.n_at, 200); /* 10 % of 200 is 20, more than 16 */
    add_all(&b, x + 219, 1);
    stop_precision(&b);
    assert_int_equal(b.n_at, 220);
    assert_int_equal(b.computed, 2);
    stop_acc_free(&a);
    stop_acc_free(&b);
}

/* Checked after every sample up to max_reps (5000): about 45 sorts, not 5000. */
static void test_cheap_every_round(void **state)
{
    (void)state;
    stop_rule r = {.min_reps = 20, .max_reps = 5000, .precision = 1e-9, .budget_ms = 1e9};
    stop_acc a = {0};
    unsigned seed = 1;
    stop_reason why = STOP_NOT_YET;
    for (int i = 0; i < 6000 && why == STOP_NOT_YET; i++) {
        assert_int_equal(stop_add(&a, sample(&seed)), 0);
        why = stop_check(&r, &a, 0);
    }
    assert_int_equal(why, STOP_MAX);
    assert_int_equal(a.n, 5000);
    if (a.computed < 30 || a.computed > 50)
        fail_msg("computed %zu times for 5000 samples", a.computed);
    stop_acc_free(&a);
}

static void test_below_min_reps_only_budget_stops(void **state)
{
    (void)state;
    stop_rule r = {.min_reps = 20, .max_reps = 5000, .precision = 0.005, .budget_ms = 1500};
    stop_acc a = {0};
    add_n(&a, 19, 1.0); /* no spread at all, but too few */
    assert_true(stop_precision(&a) <= r.precision);
    assert_int_equal(stop_check(&r, &a, 0), STOP_NOT_YET);
    assert_int_equal(stop_check(&r, &a, 1499.9), STOP_NOT_YET);
    assert_int_equal(stop_check(&r, &a, 1500), STOP_BUDGET);
    assert_int_equal(stop_check(&r, &a, 1e9), STOP_BUDGET);
    stop_acc_free(&a);
}

static void test_precision_target(void **state)
{
    (void)state;
    stop_rule r = {.min_reps = 4, .max_reps = 1000, .precision = 0.01, .budget_ms = 1000};
    stop_acc a = {0};
    add_n(&a, 4, 1.0);
    /* min_reps met, but four samples hold no interval: an interval is required, not assumed */
    assert_int_equal(stop_check(&r, &a, 10), STOP_NOT_YET);
    add_n(&a, 2, 1.0);
    assert_int_equal(stop_check(&r, &a, 10), STOP_PRECISION);

    /* +-5 % uniform: the interval at n = 20 is about +-2 %, too wide */
    stop_acc b = {0};
    double x[20];
    unsigned seed = 777;
    fill(x, 20, &seed);
    add_all(&b, x, 20);
    assert_true(stop_precision(&b) > r.precision);
    assert_int_equal(stop_check(&r, &b, 10), STOP_NOT_YET);
    /* exactly at the target stops ("at or under") */
    r.precision = stop_precision(&b);
    assert_int_equal(stop_check(&r, &b, 10), STOP_PRECISION);

    /* the median's interval shrinks with n, unlike the CV: the same spread meets 1 % in time */
    r.precision = 0.01;
    stop_acc c = {0};
    stop_reason why = STOP_NOT_YET;
    while (why == STOP_NOT_YET) {
        assert_int_equal(stop_add(&c, sample(&seed)), 0);
        why = stop_check(&r, &c, 10);
    }
    assert_int_equal(why, STOP_PRECISION);
    assert_true(c.n > 20 && c.n < 1000);
    stop_acc_free(&a);
    stop_acc_free(&b);
    stop_acc_free(&c);
}

static void test_max_reps(void **state)
{
    (void)state;
    stop_rule r = {.min_reps = 2, .max_reps = 10, .precision = 1e-9, .budget_ms = 1000};
    stop_acc a = {0};
    for (int i = 0; i < 9; i++)
        assert_int_equal(stop_add(&a, i % 2 ? 1.0 : 2.0), 0);
    assert_int_equal(stop_check(&r, &a, 0), STOP_NOT_YET);
    assert_int_equal(stop_add(&a, 1.0), 0);
    assert_int_equal(stop_check(&r, &a, 0), STOP_MAX);
    /* max_reps is checked before the budget */
    assert_int_equal(stop_check(&r, &a, 5000), STOP_MAX);
    stop_acc_free(&a);
}

static void test_budget_with_noisy_samples(void **state)
{
    (void)state;
    stop_rule r = {.min_reps = 2, .max_reps = 1000, .precision = 1e-9, .budget_ms = 50};
    stop_acc a = {0};
    for (int i = 0; i < 30; i++)
        assert_int_equal(stop_add(&a, i % 2 ? 1.0 : 3.0), 0);
    assert_int_equal(stop_check(&r, &a, 49), STOP_NOT_YET);
    assert_int_equal(stop_check(&r, &a, 50), STOP_BUDGET);
    stop_acc_free(&a);
}

static void test_reset_forgets_and_keeps_memory(void **state)
{
    (void)state;
    stop_acc a = {0};
    add_n(&a, 40, 2.0);
    assert_true(stop_precision(&a) == 0);
    double *mem = a.x;
    stop_acc_reset(&a);
    assert_int_equal(a.n, 0);
    assert_int_equal(a.computed, 0);
    assert_true(isinf(stop_precision(&a)));
    assert_ptr_equal(a.x, mem);
    add_n(&a, 3, 1.0);
    add_n(&a, 3, 5.0);
    /* 1 1 1 5 5 5: interval 1..5 around a median of 3 */
    assert_near(stop_precision(&a), 4 / 6.0, 1e-15);
    stop_acc_free(&a);
    assert_null(a.x);
    assert_int_equal(a.n, 0);
}

static void test_reason_names(void **state)
{
    (void)state;
    assert_string_equal(stop_reason_name(STOP_NOT_YET), "running");
    assert_string_equal(stop_reason_name(STOP_PRECISION), "precision");
    assert_string_equal(stop_reason_name(STOP_MAX), "max_reps");
    assert_string_equal(stop_reason_name(STOP_BUDGET), "budget");
}

/* --quick and --budget-ms over an INI's rule: quick caps (never raises) warmup, min_reps, max_reps and
   the budget; --budget-ms replaces the budget whatever came before, and touches nothing else. */
static void test_rule_for_run(void **state)
{
    (void)state;
    const stop_rule ini = {20, 5000, 0.005, 1500};
    stop_rule r = ini;
    int warmup = 10;
    stop_rule_for_run(&warmup, &r, 0, 0);
    assert_int_equal(warmup, 10);
    assert_memory_equal(&r, &ini, sizeof r);
    stop_rule_for_run(&warmup, &r, 0, 250);
    assert_int_equal(warmup, 10);
    assert_int_equal(r.min_reps, 20);
    assert_int_equal(r.max_reps, 5000);
    assert_true(r.precision == 0.005);
    assert_true(r.budget_ms == 250);
    r = ini;
    stop_rule_for_run(&warmup, &r, 1, 0);
    assert_int_equal(warmup, STOP_QUICK_WARMUP);
    assert_int_equal(r.min_reps, STOP_QUICK_MIN_REPS);
    assert_int_equal(r.max_reps, STOP_QUICK_MAX_REPS);
    assert_true(r.precision == 0.005); /* the bar a median must reach is not lowered */
    assert_true(r.budget_ms == STOP_QUICK_BUDGET_MS);
    r = ini;
    warmup = 10;
    stop_rule_for_run(&warmup, &r, 1, 300); /* --budget-ms wins over quick's budget */
    assert_int_equal(r.max_reps, STOP_QUICK_MAX_REPS);
    assert_true(r.budget_ms == 300);
    const stop_rule small = {3, 8, 0.01, 5};
    r = small;
    warmup = 1;
    stop_rule_for_run(&warmup, &r, 1, 0); /* already under the caps: its own numbers */
    assert_int_equal(warmup, 1);
    assert_memory_equal(&r, &small, sizeof r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_odd_count),
        cmocka_unit_test(test_even_count),
        cmocka_unit_test(test_p95_interpolates),
        cmocka_unit_test(test_single_and_equal_samples),
        cmocka_unit_test(test_empty),
        cmocka_unit_test(test_input_order_unchanged),
        cmocka_unit_test(test_quantile_sorted),
        cmocka_unit_test(test_ratio_interval_of_unsorted_samples),
        cmocka_unit_test(test_precision_matches_stats),
        cmocka_unit_test(test_precision_needs_six_samples),
        cmocka_unit_test(test_recompute_schedule),
        cmocka_unit_test(test_cheap_every_round),
        cmocka_unit_test(test_below_min_reps_only_budget_stops),
        cmocka_unit_test(test_precision_target),
        cmocka_unit_test(test_max_reps),
        cmocka_unit_test(test_budget_with_noisy_samples),
        cmocka_unit_test(test_reset_forgets_and_keeps_memory),
        cmocka_unit_test(test_reason_names),
        cmocka_unit_test(test_rule_for_run),
    };
    KLAB_RUN_TESTS(tests);
}
