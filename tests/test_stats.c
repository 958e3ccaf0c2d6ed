/* stats (summary of timing samples) and stopping (running moments and the stop decision). */
#include "klab_test.h"

#include <math.h>
#include <string.h>

#include "stats.h"
#include "stopping.h"

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
    /* rank 0.95 * 19 = 18.05 between 19 and 20 */
    assert_near(s.p95, 19.05, 1e-12);
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
    assert_true(s.median == 0.25 && s.p95 == 0.25 && s.min == 0.25 && s.max == 0.25 && s.mean == 0.25);
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
    assert_true(s.median == 0 && s.p95 == 0 && s.min == 0 && s.max == 0 && s.mean == 0 && s.noise == 0);
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

static void test_welford_matches_direct(void **state)
{
    (void)state;
    enum { N = 1000 };
    double x[N];
    unsigned seed = 12345;
    stop_acc a = {0};
    for (int i = 0; i < N; i++) {
        x[i] = sample(&seed);
        stop_add(&a, x[i]);
        /* check along the way too, not only at the end */
        if (i == 1 || i == 9 || i == 99 || i == N - 1) {
            size_t n = (size_t)i + 1;
            double sum = 0, ss = 0;
            for (size_t k = 0; k < n; k++)
                sum += x[k];
            double mean = sum / (double)n;
            for (size_t k = 0; k < n; k++)
                ss += (x[k] - mean) * (x[k] - mean);
            assert_int_equal(a.n, n);
            assert_near(a.mean, mean, 1e-12);
            double want = sqrt(ss / (double)(n - 1)) / mean;
            assert_near(stop_noise(&a), want, 1e-12 * want + 1e-15);
        }
    }
    /* and it agrees with stats_compute on the same samples */
    stats s;
    assert_int_equal(stats_compute(x, N, &s), 0);
    assert_near(stop_noise(&a), s.noise, 1e-12);
}

static void test_noise_needs_two_samples(void **state)
{
    (void)state;
    stop_acc a = {0};
    assert_true(isinf(stop_noise(&a)));
    stop_add(&a, 2.0);
    assert_true(isinf(stop_noise(&a)));
    stop_add(&a, 2.0);
    assert_true(stop_noise(&a) == 0);
    stop_add(&a, 5.0); /* 2 2 5: mean 3, sample variance 3 */
    assert_near(stop_noise(&a), sqrt(3.0) / 3, 1e-15);
}

static void add_n(stop_acc *a, int n, double v)
{
    for (int i = 0; i < n; i++)
        stop_add(a, v);
}

static void test_below_min_reps_only_budget_stops(void **state)
{
    (void)state;
    stop_rule r = {.min_reps = 20, .max_reps = 5000, .noise = 0.005, .budget_ms = 1500};
    stop_acc a = {0};
    add_n(&a, 19, 1.0); /* no noise at all, but too few */
    assert_true(stop_noise(&a) <= r.noise);
    assert_int_equal(stop_check(&r, &a, 0), STOP_NOT_YET);
    assert_int_equal(stop_check(&r, &a, 1499.9), STOP_NOT_YET);
    assert_int_equal(stop_check(&r, &a, 1500), STOP_BUDGET);
    assert_int_equal(stop_check(&r, &a, 1e9), STOP_BUDGET);
}

static void test_noise_target(void **state)
{
    (void)state;
    stop_rule r = {.min_reps = 4, .max_reps = 100, .noise = 0.01, .budget_ms = 1000};
    stop_acc a = {0};
    add_n(&a, 4, 1.0);
    assert_int_equal(stop_check(&r, &a, 10), STOP_NOISE);

    /* too noisy: keep going */
    stop_acc b = {0};
    stop_add(&b, 1.0);
    stop_add(&b, 1.2);
    stop_add(&b, 0.8);
    stop_add(&b, 1.0);
    assert_true(stop_noise(&b) > r.noise);
    assert_int_equal(stop_check(&r, &b, 10), STOP_NOT_YET);

    /* exactly at the target stops ("at or under") */
    r.noise = stop_noise(&b);
    assert_int_equal(stop_check(&r, &b, 10), STOP_NOISE);
}

static void test_max_reps(void **state)
{
    (void)state;
    stop_rule r = {.min_reps = 2, .max_reps = 10, .noise = 1e-9, .budget_ms = 1000};
    stop_acc a = {0};
    for (int i = 0; i < 9; i++)
        stop_add(&a, i % 2 ? 1.0 : 2.0);
    assert_int_equal(stop_check(&r, &a, 0), STOP_NOT_YET);
    stop_add(&a, 1.0);
    assert_int_equal(stop_check(&r, &a, 0), STOP_MAX);
    /* max_reps is checked before the budget */
    assert_int_equal(stop_check(&r, &a, 5000), STOP_MAX);
}

static void test_budget_with_noisy_samples(void **state)
{
    (void)state;
    stop_rule r = {.min_reps = 2, .max_reps = 1000, .noise = 1e-9, .budget_ms = 50};
    stop_acc a = {0};
    for (int i = 0; i < 30; i++)
        stop_add(&a, i % 2 ? 1.0 : 3.0);
    assert_int_equal(stop_check(&r, &a, 49), STOP_NOT_YET);
    assert_int_equal(stop_check(&r, &a, 50), STOP_BUDGET);
}

static void test_reason_names(void **state)
{
    (void)state;
    assert_string_equal(stop_reason_name(STOP_NOT_YET), "running");
    assert_string_equal(stop_reason_name(STOP_NOISE), "noise");
    assert_string_equal(stop_reason_name(STOP_MAX), "max_reps");
    assert_string_equal(stop_reason_name(STOP_BUDGET), "budget");
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
        cmocka_unit_test(test_welford_matches_direct),
        cmocka_unit_test(test_noise_needs_two_samples),
        cmocka_unit_test(test_below_min_reps_only_budget_stops),
        cmocka_unit_test(test_noise_target),
        cmocka_unit_test(test_max_reps),
        cmocka_unit_test(test_budget_with_noisy_samples),
        cmocka_unit_test(test_reason_names),
    };
    KLAB_RUN_TESTS(tests);
}
