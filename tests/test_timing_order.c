/* timing's pure parts: the rotating order of subjects within a round, and which CUDA errors are
 * sticky. Needs only the CUDA runtime library linked, no GPU. */
#include "klab_test.h"

#include <string.h>

#include "timing.h"

static void test_each_round_is_a_permutation(void **state)
{
    (void)state;
    for (int n = 1; n <= 6; n++)
        for (int r = 0; r < 20; r++) {
            int seen[6] = {0};
            for (int j = 0; j < n; j++) {
                int s = timing_round_order(n, r, j);
                if (s < 0 || s >= n)
                    fail_msg("n=%d round %d position %d: subject %d out of range", n, r, j, s);
                seen[s]++;
            }
            for (int s = 0; s < n; s++)
                if (seen[s] != 1)
                    fail_msg("n=%d round %d: subject %d appears %d times", n, r, s, seen[s]);
        }
}

static void test_round_starts_at_r_mod_n(void **state)
{
    (void)state;
    for (int n = 1; n <= 6; n++)
        for (int r = 0; r < 20; r++) {
            assert_int_equal(timing_round_order(n, r, 0), r % n);
            /* and the rest follow in cyclic order */
            for (int j = 1; j < n; j++)
                assert_int_equal(timing_round_order(n, r, j), (timing_round_order(n, r, j - 1) + 1) % n);
        }
}

/* Over n consecutive rounds every subject goes first once and takes every position once. */
static void test_no_subject_always_first(void **state)
{
    (void)state;
    for (int n = 2; n <= 6; n++) {
        int first[6] = {0}, pos[6][6];
        memset(pos, 0, sizeof pos);
        for (int r = 0; r < n; r++)
            for (int j = 0; j < n; j++) {
                int s = timing_round_order(n, r, j);
                pos[s][j]++;
                if (j == 0)
                    first[s]++;
            }
        for (int s = 0; s < n; s++) {
            assert_int_equal(first[s], 1);
            for (int j = 0; j < n; j++)
                assert_int_equal(pos[s][j], 1);
        }
        /* over 20 rounds the first places are spread evenly, to within one */
        int counts[6] = {0};
        for (int r = 0; r < 20; r++)
            counts[timing_round_order(n, r, 0)]++;
        for (int s = 0; s < n; s++)
            assert_true(counts[s] == 20 / n || counts[s] == 20 / n + 1);
    }
    /* one subject: always itself */
    for (int r = 0; r < 20; r++)
        assert_int_equal(timing_round_order(1, r, 0), 0);
}

static void test_sticky_errors(void **state)
{
    (void)state;
    assert_int_equal(cuda_error_is_sticky(700), 1); /* cudaErrorIllegalAddress */
    assert_int_equal(cuda_error_is_sticky(719), 1); /* cudaErrorLaunchFailure */
    assert_int_equal(cuda_error_is_sticky(710), 1); /* cudaErrorAssert */
    assert_int_equal(cuda_error_is_sticky(0), 0);   /* cudaSuccess */
    assert_int_equal(cuda_error_is_sticky(1), 0);   /* cudaErrorInvalidValue */
    assert_int_equal(cuda_error_is_sticky(2), 0);   /* cudaErrorMemoryAllocation */
    assert_int_equal(cuda_error_is_sticky(100), 0); /* cudaErrorNoDevice */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_each_round_is_a_permutation),
        cmocka_unit_test(test_round_starts_at_r_mod_n),
        cmocka_unit_test(test_no_subject_always_first),
        cmocka_unit_test(test_sticky_errors),
    };
    KLAB_RUN_TESTS(tests);
}
