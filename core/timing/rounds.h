/* The round scheduler: which subject is sampled when, and when sampling stops. Pure C and no CUDA, so
 * tests/unit/timing/test_rounds.c drives it with made-up times; core/timing.c drives it with the GPU's.
 *
 * A case's subjects are sampled in ROUNDS. Each round every subject still sampled takes one turn,
 * starting one place later each round, so drift in clocks or temperature touches all of them alike.
 * An ordinary subject's turn is one sample; a step subject's turn is a run of consecutive steps of
 * its sequence (each step one sample), restored to the sequence's start when it is complete.
 *
 *   rounds_init   the subjects, the stopping rule, the seed that picks the verified rounds
 *   rounds_next   after `elapsed` ms of the budget: 1 = run another round, 0 = sampling is over
 *   rounds_at     the subject at position j of this round, -1 when that subject sits it out
 *   rounds_turn   a step subject's turn: restore first?, the first step, how many steps
 *   rounds_verified  this round is the subject's verified one (poisoned, staged and checked)
 *   rounds_add    a sample of this round, tagged (its step, or its round), held until the round ends
 *   rounds_fail   the subject failed: no more turns
 *   rounds_end    the round ends: its samples are kept, or all of them discarded (throttled)
 *
 * Stopping. Ordinary subjects stop together, as one group: when each has met the rule (stop_check
 * says anything but STOP_NOT_YET), or when one of them reaches max_reps or the budget; so they share
 * the same rounds and a ratio of two of them compares like with like. A step subject stops on its own,
 * at the end of a sequence, once the rule is met with at least ROUNDS_STEP_MIN samples (its tail is
 * the point: p99 needs the samples), or when the budget is spent. Nothing stops before its verified
 * round has come. A subject that the budget stopped under its minimum is marked `few`. */
#ifndef KLAB_ROUNDS_H
#define KLAB_ROUNDS_H

#include <stddef.h>
#include <stdint.h>

#include "timing/stopping.h"

#define ROUNDS_STEP_MIN 1000    /* samples a step subject needs before it may stop */
#define ROUNDS_STEP_TURN 250    /* most steps in one turn: a long sequence spreads over rounds */
#define ROUNDS_VERIFY_WITHIN 16 /* verified rounds are distinct rounds among the first max(this, n) */

typedef struct rounds_member {
    int64_t steps;     /* > 0: a step subject with sequences of this many steps */
    int verify_round;  /* -1: none (nothing to check) */
    int live;          /* 0 once failed */
    int stopped;       /* no more turns */
    stop_reason reason; /* why it stopped */
    int few;           /* the budget stopped it under its minimum samples */
    stop_acc acc;      /* accepted samples, for the rule */
    int discarded;     /* samples dropped with throttled rounds */
    int64_t pos;       /* step subjects: the next step of the sequence; -1: restore first */

    /* this round */
    int in_round;
    int turn_restore;
    int64_t turn_first, turn_count;

    /* samples and their tags: accepted ones first, then this round's pending ones */
    double *samples;
    int64_t *tags;
    size_t n_kept, n_pending, cap;
} rounds_member;

typedef struct rounds {
    int n;
    rounds_member *m;
    stop_rule rule;      /* ordinary subjects */
    stop_rule step_rule; /* step subjects: the same, at least ROUNDS_STEP_MIN samples */
    int round;           /* the current round, -1 before the first */
    int *order;          /* this round's positions */
} rounds;

/* verifiable[i]: subject i has outputs to check (NULL: all have); steps[i]: its sequence length, 0 for
   an ordinary subject (NULL: all ordinary). 0, or -1 out of memory. */
int rounds_init(rounds *r, int n, const stop_rule *rule, uint64_t seed, const int *verifiable,
                const int64_t *steps);
void rounds_free(rounds *r);

int rounds_next(rounds *r, double elapsed_ms);
int rounds_at(const rounds *r, int j);
void rounds_turn(const rounds *r, int subj, int *restore, int64_t *first, int64_t *count);
int rounds_verified(const rounds *r, int subj);
int rounds_add(rounds *r, int subj, double ms, int64_t tag); /* 0, or -1 out of memory */
void rounds_fail(rounds *r, int subj);
void rounds_end(rounds *r, int throttled);

/* The accepted samples of subject i, in the order they were taken (and their tags, if tags). */
const double *rounds_samples(const rounds *r, int subj, size_t *n, const int64_t **tags);

/* Gives subject i's accepted samples and tags to the caller (free() both); the scheduler forgets them. */
double *rounds_take_samples(rounds *r, int subj, size_t *n, size_t *cap, int64_t **tags);

/* The position rule alone: in round r over n subjects, position j holds subject (j + r) mod n. */
int rounds_position(int n, int round, int j);

#endif
