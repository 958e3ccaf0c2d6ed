/* The round scheduler (core/rounds.c), driven with made-up times: the order rotates, verified rounds
 * come early and are never skipped, a throttled round is discarded for every subject, the budget
 * stops everything but a pending verified round, and step subjects reach their 1000 samples in whole
 * sequences unless the budget stops them (then they are marked few). */
#include "klab_test.h"

#include <string.h>

#include "timing/rounds.h"

static const stop_rule rule20 = {20, 5000, 0.005, 1500};

/* One round as timing.c runs it: each subject at its position adds its turn's samples (steady
   times: the precision rule is met as soon as min_reps is), then the round ends. Returns the subjects
   seen, in order, in seen[] (-1 terminated). */
static void play_round(rounds *r, int throttled, int *seen)
{
    int k = 0;
    for (int j = 0; j < r->n; j++) {
        int s = rounds_at(r, j);
        if (s < 0)
            continue;
        seen[k++] = s;
        int restore;
        int64_t first, count;
        rounds_turn(r, s, &restore, &first, &count);
        for (int64_t i = 0; i < count; i++)
            assert_int_equal(rounds_add(r, s, 1.0 + 0.001 * (double)s, r->m[s].steps ? first + i : r->round), 0);
    }
    seen[k] = -1;
    rounds_end(r, throttled);
}

static void test_position_rotates(void **state)
{
    (void)state;
    for (int n = 1; n <= 6; n++) {
        int first[6] = {0};
        for (int round = 0; round < n; round++) {
            int seen[6] = {0};
            for (int j = 0; j < n; j++) {
                int s = rounds_position(n, round, j);
                assert_true(s >= 0 && s < n);
                seen[s]++;
                if (j)
                    assert_int_equal(s, (rounds_position(n, round, j - 1) + 1) % n);
            }
            for (int s = 0; s < n; s++)
                assert_int_equal(seen[s], 1);
            first[rounds_position(n, round, 0)]++;
        }
        for (int s = 0; s < n; s++) /* over n rounds every subject goes first once */
            assert_int_equal(first[s], 1);
    }
}

static void test_rounds_follow_the_rotation(void **state)
{
    (void)state;
    rounds r;
    assert_int_equal(rounds_init(&r, 4, &rule20, 7, NULL, NULL), 0);
    int seen[8];
    for (int round = 0; round < 8; round++) {
        assert_int_equal(rounds_next(&r, 0), 1);
        assert_int_equal(r.round, round);
        play_round(&r, 0, seen);
        for (int j = 0; j < 4; j++)
            assert_int_equal(seen[j], (j + round) % 4);
        assert_int_equal(seen[4], -1);
    }
    rounds_free(&r);
}

static void test_verified_rounds_are_early_distinct_and_seeded(void **state)
{
    (void)state;
    int verifiable[5] = {1, 1, 0, 1, 1};
    int differs = 0;
    for (uint64_t seed = 1; seed < 40; seed++) {
        rounds r, q;
        assert_int_equal(rounds_init(&r, 5, &rule20, seed, verifiable, NULL), 0);
        assert_int_equal(rounds_init(&q, 5, &rule20, seed, verifiable, NULL), 0);
        assert_int_equal(r.m[2].verify_round, -1); /* nothing to check: no verified round */
        for (int i = 0; i < 5; i++) {
            assert_int_equal(r.m[i].verify_round, q.m[i].verify_round); /* the seed decides */
            if (i == 2)
                continue;
            assert_true(r.m[i].verify_round >= 0 && r.m[i].verify_round < ROUNDS_VERIFY_WITHIN);
            for (int k = 0; k < i; k++)
                if (k != 2)
                    assert_int_not_equal(r.m[i].verify_round, r.m[k].verify_round);
        }
        rounds p;
        assert_int_equal(rounds_init(&p, 5, &rule20, seed + 1000, verifiable, NULL), 0);
        differs |= p.m[0].verify_round != r.m[0].verify_round;
        rounds_free(&p);
        rounds_free(&r);
        rounds_free(&q);
    }
    assert_true(differs);
    /* more subjects than ROUNDS_VERIFY_WITHIN: still distinct, within the first n rounds */
    rounds r;
    assert_int_equal(rounds_init(&r, 40, &rule20, 3, NULL, NULL), 0);
    for (int i = 0; i < 40; i++) {
        assert_true(r.m[i].verify_round >= 0 && r.m[i].verify_round < 40);
        for (int k = 0; k < i; k++)
            assert_int_not_equal(r.m[i].verify_round, r.m[k].verify_round);
    }
    rounds_free(&r);
}

static void test_verified_flag_comes_once_in_its_round(void **state)
{
    (void)state;
    rounds r;
    assert_int_equal(rounds_init(&r, 3, &rule20, 11, NULL, NULL), 0);
    int flagged[3] = {0}, at[3] = {-1, -1, -1}, seen[4];
    while (rounds_next(&r, 0)) {
        for (int s = 0; s < 3; s++)
            if (rounds_verified(&r, s)) {
                flagged[s]++;
                at[s] = r.round;
            }
        play_round(&r, 0, seen);
    }
    for (int s = 0; s < 3; s++) {
        assert_int_equal(flagged[s], 1);
        assert_int_equal(at[s], r.m[s].verify_round);
    }
    rounds_free(&r);
}

static void test_throttled_round_is_discarded_for_all(void **state)
{
    (void)state;
    rounds r;
    assert_int_equal(rounds_init(&r, 3, &rule20, 5, NULL, NULL), 0);
    int seen[4];
    assert_int_equal(rounds_next(&r, 0), 1);
    play_round(&r, 0, seen);
    assert_int_equal(rounds_next(&r, 0), 1);
    play_round(&r, 1, seen); /* throttled */
    assert_int_equal(rounds_next(&r, 0), 1);
    play_round(&r, 0, seen);
    for (int s = 0; s < 3; s++) {
        size_t n;
        rounds_samples(&r, s, &n, NULL);
        assert_int_equal(n, 2);
        assert_int_equal(r.m[s].acc.n, 2);
        assert_int_equal(r.m[s].discarded, 1);
    }
    rounds_free(&r);
}

static void test_stops_when_every_subject_meets_the_rule(void **state)
{
    (void)state;
    rounds r;
    stop_rule rule = {20, 5000, 0.005, 1e9};
    assert_int_equal(rounds_init(&r, 3, &rule, 5, NULL, NULL), 0);
    int seen[4], rounds_run = 0;
    while (rounds_next(&r, 0)) {
        play_round(&r, 0, seen);
        rounds_run++;
    }
    /* steady samples meet the precision rule at min_reps, and every verified round is early */
    assert_int_equal(rounds_run, 20);
    for (int s = 0; s < 3; s++) {
        assert_true(r.m[s].stopped);
        assert_int_equal(r.m[s].reason, STOP_PRECISION);
        assert_false(r.m[s].few);
    }
    rounds_free(&r);
}

static void test_max_reps_of_one_stops_the_group(void **state)
{
    (void)state;
    rounds r;
    stop_rule rule = {5, 30, 0.0, 1e9}; /* a precision target no sample set meets */
    assert_int_equal(rounds_init(&r, 2, &rule, 5, NULL, NULL), 0);
    int seen[3], rounds_run = 0;
    while (rounds_next(&r, 0)) {
        /* subject 0 noisy, subject 1 steady: both stop when they reach max_reps together */
        for (int j = 0; j < 2; j++) {
            int s = rounds_at(&r, j);
            if (s >= 0)
                assert_int_equal(rounds_add(&r, s, s ? 1.0 : 1.0 + (rounds_run % 2), rounds_run), 0);
        }
        rounds_end(&r, 0);
        rounds_run++;
    }
    (void)seen;
    assert_int_equal(rounds_run, 30);
    assert_int_equal(r.m[0].reason, STOP_MAX);
    assert_int_equal(r.m[1].reason, STOP_MAX);
    assert_false(r.m[0].few); /* 30 samples, min_reps 5 */
    rounds_free(&r);
    /* a max_reps below min_reps (the INI refuses it; another caller might not) stops short of the
       minimum: few, whatever stopped it, decided here and nowhere else */
    stop_rule short_max = {50, 30, 0.0, 1e9};
    assert_int_equal(rounds_init(&r, 1, &short_max, 5, NULL, NULL), 0);
    rounds_run = 0;
    while (rounds_next(&r, 0)) {
        int s = rounds_at(&r, 0);
        if (s >= 0)
            assert_int_equal(rounds_add(&r, s, 1.0, rounds_run), 0);
        rounds_end(&r, 0);
        rounds_run++;
    }
    assert_int_equal(r.m[0].reason, STOP_MAX);
    assert_true(r.m[0].few);
    rounds_free(&r);
}

static void test_budget_never_stops_before_the_verified_round(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed < 30; seed++) {
        rounds r;
        assert_int_equal(rounds_init(&r, 4, &rule20, seed, NULL, NULL), 0);
        int checked[4] = {0}, seen[5], last_round = -1;
        /* the budget is spent from the start: only subjects still owed their verified round go on */
        while (rounds_next(&r, 1e9)) {
            for (int j = 0; j < 4; j++) {
                int s = rounds_at(&r, j);
                if (s < 0)
                    continue;
                assert_true(r.m[s].verify_round >= r.round); /* nobody samples past its check */
                checked[s] += rounds_verified(&r, s);
            }
            play_round(&r, 0, seen);
            last_round = r.round;
        }
        int latest = 0;
        for (int s = 0; s < 4; s++) {
            assert_int_equal(checked[s], 1);
            assert_int_equal(r.m[s].reason, STOP_BUDGET);
            assert_true(r.m[s].few); /* under min_reps */
            if (r.m[s].verify_round > latest)
                latest = r.m[s].verify_round;
        }
        assert_int_equal(last_round, latest);
        rounds_free(&r);
    }
}

static void test_failed_subject_sits_out(void **state)
{
    (void)state;
    rounds r;
    assert_int_equal(rounds_init(&r, 3, &rule20, 9, NULL, NULL), 0);
    int seen[4];
    assert_int_equal(rounds_next(&r, 0), 1);
    rounds_fail(&r, 1);
    for (int j = 0; j < 3; j++)
        assert_int_not_equal(rounds_at(&r, j), 1);
    play_round(&r, 0, seen);
    while (rounds_next(&r, 0)) {
        for (int j = 0; j < 3; j++)
            assert_int_not_equal(rounds_at(&r, j), 1);
        play_round(&r, 0, seen);
    }
    size_t n;
    rounds_samples(&r, 1, &n, NULL);
    assert_int_equal(n, 0);
    rounds_samples(&r, 0, &n, NULL);
    assert_int_equal(n, 20);
    rounds_free(&r);
}

static void test_step_subject_reaches_1000_in_whole_sequences(void **state)
{
    (void)state;
    rounds r;
    int64_t steps[2] = {0, 300}; /* an ordinary subject beside a step subject of 300-step sequences */
    assert_int_equal(rounds_init(&r, 2, &rule20, 4, NULL, steps), 0);
    int seen[3], restores = 0, verified_turns = 0;
    int64_t expect_next = -1;
    while (rounds_next(&r, 0)) {
        if (r.m[1].in_round) {
            int restore;
            int64_t first, count;
            rounds_turn(&r, 1, &restore, &first, &count);
            restores += restore;
            if (rounds_verified(&r, 1)) {
                /* the verified turn is a whole sequence from its start */
                assert_true(restore);
                assert_int_equal(first, 0);
                assert_int_equal(count, 300);
                verified_turns++;
            } else {
                assert_true(count >= 1 && count <= ROUNDS_STEP_TURN);
                if (restore)
                    assert_int_equal(first, 0);
                else
                    assert_int_equal(first, expect_next);
            }
            assert_true(first + count <= 300);
            expect_next = first + count;
        }
        play_round(&r, 0, seen);
    }
    assert_int_equal(verified_turns, 1);
    size_t n;
    const int64_t *tags;
    rounds_samples(&r, 1, &n, &tags);
    assert_true(n >= ROUNDS_STEP_MIN);
    int64_t per_step[300] = {0};
    for (size_t i = 0; i < n; i++) {
        assert_true(tags[i] >= 0 && tags[i] < 300);
        per_step[tags[i]]++;
    }
    /* whole sequences only: every step of the sequence was sampled the same number of times, except
       the steps a verified turn cut short before re-running them from the start */
    int64_t lo = per_step[0], hi = per_step[0];
    for (int i = 1; i < 300; i++) {
        lo = per_step[i] < lo ? per_step[i] : lo;
        hi = per_step[i] > hi ? per_step[i] : hi;
    }
    assert_true(hi - lo <= 1);
    assert_int_equal(r.m[1].pos, 300); /* stopped at the end of a sequence */
    assert_false(r.m[1].few);
    assert_true(restores >= 4);
    rounds_samples(&r, 0, &n, NULL); /* the ordinary subject stopped at its own rule long before */
    assert_int_equal(n, 20);
    rounds_free(&r);
}

static void test_budget_stops_a_step_subject_short(void **state)
{
    (void)state;
    rounds r;
    int64_t steps[1] = {32};
    assert_int_equal(rounds_init(&r, 1, &rule20, 4, NULL, steps), 0);
    int seen[2], round = 0;
    /* the budget runs out after 5 rounds; even the latest verified round leaves 16 x 32 samples, short of 1000 */
    while (rounds_next(&r, round >= 5 ? 2000.0 : 0.0)) {
        play_round(&r, 0, seen);
        round++;
    }
    size_t n;
    rounds_samples(&r, 0, &n, NULL);
    assert_true(n < ROUNDS_STEP_MIN);
    assert_true(r.m[0].few);
    assert_int_equal(r.m[0].reason, STOP_BUDGET);
    assert_true(round > r.m[0].verify_round);
    rounds_free(&r);
}

static void test_take_samples(void **state)
{
    (void)state;
    rounds r;
    assert_int_equal(rounds_init(&r, 1, &rule20, 1, NULL, NULL), 0);
    int seen[2];
    while (rounds_next(&r, 0))
        play_round(&r, 0, seen);
    size_t n, cap;
    int64_t *tags;
    double *s = rounds_take_samples(&r, 0, &n, &cap, &tags);
    assert_non_null(s);
    assert_non_null(tags);
    assert_int_equal(n, 20);
    assert_true(cap >= n);
    assert_true(s[0] == 1.0);
    for (size_t i = 0; i < n; i++) /* an ordinary subject's samples are tagged with their round */
        assert_int_equal(tags[i], (int64_t)i);
    free(s);
    free(tags);
    rounds_samples(&r, 0, &n, NULL);
    assert_int_equal(n, 0);
    rounds_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_position_rotates),
        cmocka_unit_test(test_rounds_follow_the_rotation),
        cmocka_unit_test(test_verified_rounds_are_early_distinct_and_seeded),
        cmocka_unit_test(test_verified_flag_comes_once_in_its_round),
        cmocka_unit_test(test_throttled_round_is_discarded_for_all),
        cmocka_unit_test(test_stops_when_every_subject_meets_the_rule),
        cmocka_unit_test(test_max_reps_of_one_stops_the_group),
        cmocka_unit_test(test_budget_never_stops_before_the_verified_round),
        cmocka_unit_test(test_failed_subject_sits_out),
        cmocka_unit_test(test_step_subject_reaches_1000_in_whole_sequences),
        cmocka_unit_test(test_budget_stops_a_step_subject_short),
        cmocka_unit_test(test_take_samples),
    };
    KLAB_RUN_TESTS(tests);
}
