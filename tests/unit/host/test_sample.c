/* sample: the element indices a sampled verified run compares. Distinct, ascending and in range; the
 * same for the same seed and counter (a run's seed reproduces it); fresh for the next counter; and,
 * over many runs, every element sampled about as often as any other, so an element wrong in every run
 * is found. */
#include "klab_test.h"

#include <string.h>

#include "host/sample.h"

static void expect_valid(const size_t *x, size_t n, size_t k)
{
    for (size_t i = 0; i < k; i++) {
        if (x[i] >= n)
            fail_msg("index %zu of %zu is %zu, outside [0, %zu)", i, k, x[i], n);
        if (i && x[i] <= x[i - 1])
            fail_msg("indices %zu and %zu are %zu and %zu: not ascending and distinct", i - 1, i, x[i - 1], x[i]);
    }
}

static void test_sorted_unique_in_range(void **state)
{
    (void)state;
    static const size_t sizes[][2] = {{10, 3}, {1000, 999}, {1000, 1}, {(size_t)1 << 26, 4096}, {7, 6}};
    for (int t = 0; t < 5; t++) {
        size_t n = sizes[t][0], k = sizes[t][1];
        size_t *x = malloc(k * sizeof *x);
        assert_int_equal(sample_indices(42, (uint64_t)t + 1, n, k, x), 0);
        expect_valid(x, n, k);
        free(x);
    }
}

static void test_whole_when_k_covers_n(void **state)
{
    (void)state;
    size_t x[8];
    assert_int_equal(sample_indices(1, 1, 8, 8, x), 0);
    for (size_t i = 0; i < 8; i++)
        assert_int_equal(x[i], i);
    assert_int_equal(sample_indices(1, 1, 5, 9, x), 0);
    for (size_t i = 0; i < 5; i++)
        assert_int_equal(x[i], i);
    assert_int_equal(sample_indices(1, 1, 5, 0, x), 0);
}

static void test_deterministic_and_fresh(void **state)
{
    (void)state;
    size_t a[64], b[64], c[64], d[64];
    assert_int_equal(sample_indices(7, 1, 100000, 64, a), 0);
    assert_int_equal(sample_indices(7, 1, 100000, 64, b), 0);
    assert_int_equal(sample_indices(7, 2, 100000, 64, c), 0);
    assert_int_equal(sample_indices(8, 1, 100000, 64, d), 0);
    assert_memory_equal(a, b, sizeof a);     /* the same seed and counter: the same sample */
    assert_memory_not_equal(a, c, sizeof a); /* the next verified run: a fresh one */
    assert_memory_not_equal(a, d, sizeof a); /* another run's seed: another one */
}

/* 64 elements, a quarter sampled per run, 2000 runs: each element about 500 times. */
static void test_every_element_sampled_across_runs(void **state)
{
    (void)state;
    int seen[64] = {0};
    size_t x[16];
    for (uint64_t run = 1; run <= 2000; run++) {
        assert_int_equal(sample_indices(0x9e3779b97f4a7c15ull, run, 64, 16, x), 0);
        expect_valid(x, 64, 16);
        for (int i = 0; i < 16; i++)
            seen[x[i]]++;
    }
    for (int e = 0; e < 64; e++)
        if (seen[e] < 400 || seen[e] > 600)
            fail_msg("element %d sampled %d times in 2000 runs of 16 of 64; about 500 expected", e, seen[e]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sorted_unique_in_range),
        cmocka_unit_test(test_whole_when_k_covers_n),
        cmocka_unit_test(test_deterministic_and_fresh),
        cmocka_unit_test(test_every_element_sampled_across_runs),
    };
    KLAB_RUN_TESTS(tests);
}
