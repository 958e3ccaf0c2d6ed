/* timing's pure parts: how many runs a batched sample holds, when escaped work and a too-fast median
 * are flagged, how a row names its mode, and which CUDA errors are sticky. Needs only the CUDA runtime
 * library linked, no GPU. (The order of subjects in a round is core/rounds.c's: tests/unit/timing/test_rounds.c.) */
#include "klab_test.h"

#include <math.h>
#include <string.h>

#include "timing/timing.h"

#define FLOOR 0.0026 /* ms: the H200's empty launch */

static void test_batch_pays_the_floor_once_per_100_floors(void **state)
{
    (void)state;
    /* a 5 us kernel measured as 7.6 us between events: 100 floors of its 5 us is 52 runs */
    assert_int_equal(timing_choose_batch(0.0076, FLOOR, 0), 52);
    /* whatever the run, N runs of (run - floor) cover at least 100 floors, unless N is capped */
    for (double run = FLOOR * 1.05; run < 10; run *= 1.7) {
        int n = timing_choose_batch(run, FLOOR, 0);
        assert_true(n >= 2 && n <= 1000);
        if (n > 2 && n < 1000)
            assert_true(n * (run - FLOOR) >= 100 * FLOOR * (1 - 1e-9));
        if (n > 2) /* and not more than needed */
            assert_true((n - 1) * (run - FLOOR) < 100 * FLOOR);
    }
    /* long runs: two; an empty-looking run, or one under the floor: the most allowed */
    assert_int_equal(timing_choose_batch(5.0, FLOOR, 0), 2);
    assert_int_equal(timing_choose_batch(FLOOR, FLOOR, 0), 1000);
    assert_int_equal(timing_choose_batch(FLOOR / 2, FLOOR, 0), 1000);
    /* queued runs wait in the launch queue: fewer of them */
    assert_int_equal(timing_choose_batch(FLOOR, FLOOR, 1), 128);
    assert_int_equal(timing_choose_batch(0.0076, FLOOR, 1), 52);
    /* nothing measured: the least batch, never a division by zero */
    assert_int_equal(timing_choose_batch(NAN, FLOOR, 0), 2);
    assert_int_equal(timing_choose_batch(0.01, 0, 0), 2);
}

static void test_escape_threshold(void **state)
{
    (void)state;
    /* short runs: 6 us of escaped work is flagged; the honest excesses the H200 showed (up to 3.6 us
       on 5-40 us runs) are not */
    assert_false(timing_escape_flagged(0.0036, 0.009));
    assert_false(timing_escape_flagged(0.0059, 0.003));
    assert_true(timing_escape_flagged(0.0061, 0.003));
    assert_false(timing_escape_flagged(-0.001, 0.003));
    /* long runs: 5 % (the old rule let 25 % of a long kernel escape); the H200's tail_escapes case */
    assert_false(timing_escape_flagged(0.049, 1.0));
    assert_true(timing_escape_flagged(0.051, 1.0));
    assert_true(timing_escape_flagged(0.0271, 0.2627));
    assert_true(timing_escape_flagged(0.25, 1.0));
}

static void test_below_the_empty_launch(void **state)
{
    (void)state;
    /* the fork-no-join cheat: 1.28 us against a 2.6 us floor */
    assert_true(timing_below_floor(0.00128, FLOOR));
    assert_true(timing_below_floor(0.0023, FLOOR));
    /* an honest tiny kernel sits at the floor, give or take its measurement */
    assert_false(timing_below_floor(0.0025, FLOOR));
    assert_false(timing_below_floor(0.0030, FLOOR));
    assert_false(timing_below_floor(0.001, 0)); /* no floor measured: no judgement */
}

static void row_mode(const subject *s, timing_mode mode, char *l2, char *launch, int *batch, double *fp, char *note)
{
    timing_opts o;
    memset(&o, 0, sizeof o);
    o.mode = mode;
    timing_row_mode(s, &o, l2, 16, launch, 16, batch, fp, note, 256);
}

static void test_row_mode(void **state)
{
    (void)state;
    subject s;
    memset(&s, 0, sizeof s);
    char l2[16], launch[16], note[256];
    int batch;
    double fp;
    row_mode(&s, TIMING_PLAIN, l2, launch, &batch, &fp, note);
    assert_string_equal(l2, "cold");
    assert_string_equal(launch, "stream");
    assert_int_equal(batch, 1);
    assert_true(fp == 0);
    assert_string_equal(note, "");
    row_mode(&s, TIMING_HOT, l2, launch, &batch, &fp, note);
    assert_string_equal(l2, "hot");
    assert_string_equal(launch, "stream");

    s.batch = 52;
    s.rotated = 1;
    s.footprint = 52 * 33554432.0;
    row_mode(&s, TIMING_BATCHED, l2, launch, &batch, &fp, note);
    assert_string_equal(l2, "cold");
    assert_string_equal(launch, "batched");
    assert_int_equal(batch, 52);
    assert_true(fp == 52 * 33554432.0);
    assert_string_equal(note, "");

    /* a batch that could not rotate says why, and claims no footprint */
    s.rotated = 0;
    snprintf(s.batch_note, sizeof s.batch_note, "batched without rotation: 3 copies of 9.6 GB do not fit");
    row_mode(&s, TIMING_BATCHED, l2, launch, &batch, &fp, note);
    assert_string_equal(note, "batched without rotation: 3 copies of 9.6 GB do not fit");
    assert_true(fp == 0);

    s.owns_graph = 1;
    row_mode(&s, TIMING_BATCHED, l2, launch, &batch, &fp, note);
    assert_string_equal(launch, "queued");

    /* steps are one per sample in every mode */
    s.steps = 64;
    row_mode(&s, TIMING_BATCHED, l2, launch, &batch, &fp, note);
    assert_string_equal(launch, "steps");
    assert_int_equal(batch, 1);
    row_mode(&s, TIMING_HOT, l2, launch, &batch, &fp, note);
    assert_string_equal(l2, "hot");
    assert_string_equal(launch, "steps");

    /* the names fit the row's current 8-byte columns */
    char small[8];
    s.steps = 0;
    timing_opts o;
    memset(&o, 0, sizeof o);
    o.mode = TIMING_BATCHED;
    s.owns_graph = 0;
    timing_row_mode(&s, &o, small, sizeof small, launch, sizeof small, &batch, &fp, note, sizeof note);
    assert_string_equal(launch, "batched");
}

/* What run() left in L2's persisting state, read back after its runs: nothing is fine; a limit, a
   window or both fail the row, and the reason says which, how large, and that klab reset it. */
static void test_l2_residue(void **state)
{
    (void)state;
    char why[512] = "";
    assert_int_equal(timing_l2_residue(0, 0, 0, 0, why, sizeof why), 0);
    assert_string_equal(why, "");
    assert_int_equal(timing_l2_residue(4194304, 0, 0, 0, why, sizeof why), 1);
    assert_string_equal(why, "run() left a persisting-L2 limit of 4194304 bytes (cudaLimitPersistingL2CacheSize) "
                             "behind: lines it keeps in L2 would carry one sample's data into the next (a cold sample "
                             "must find none); klab reset it, and the row is not timed");
    assert_int_equal(timing_l2_residue(0, 1048576, 0.6, 1, why, sizeof why), 1);
    assert_non_null(strstr(why, "run() left an access-policy window of 1048576 bytes (hitRatio 0.6, persisting) on "
                                "the timed stream behind"));
    assert_int_equal(timing_l2_residue(4194304, 1048576, 1, 0, why, sizeof why), 1);
    assert_non_null(strstr(why, "limit of 4194304 bytes (cudaLimitPersistingL2CacheSize) and an access-policy "
                                "window of 1048576 bytes (hitRatio 1, not persisting)"));
    assert_non_null(strstr(why, "klab reset both"));
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
        cmocka_unit_test(test_batch_pays_the_floor_once_per_100_floors),
        cmocka_unit_test(test_escape_threshold),
        cmocka_unit_test(test_below_the_empty_launch),
        cmocka_unit_test(test_row_mode),
        cmocka_unit_test(test_l2_residue),
        cmocka_unit_test(test_sticky_errors),
    };
    KLAB_RUN_TESTS(tests);
}
