/* When to stop sampling: enough samples and a precise enough median, or out of samples or time.
 *
 * "Precise enough" is the relative half-width of the median's 95 % interval (interval.h),
 * (hi - lo) / (2 median), at or under `precision`. Unlike the sample CV, which settles at the
 * distribution's spread however long one samples, the interval shrinks as 1/sqrt(n), so the rule asks
 * the question a comparison needs: is the median pinned down? The budget and max_reps cap it.
 *
 * Cost: the interval needs the samples in order, so the accumulator keeps a copy and sorts it, but
 * only when n has grown by 16 samples or by 10 % since the last time, whichever is more (at n = 20,
 * 36, 52, ... 164, then every 10 %: about 45 sorts up to 5000 samples). Between those points the
 * decision uses the last interval, so a subject may run up to that many samples past the point where
 * its interval first became tight enough. The lag errs late rather than early: the interval it uses
 * comes from fewer samples, so it is, in expectation, wider than a fresh one. */
#ifndef KLAB_STOPPING_H
#define KLAB_STOPPING_H

#include <stddef.h>

typedef struct stop_rule {
    int min_reps;     /* never fewer accepted samples than this */
    int max_reps;     /* never more */
    double precision; /* stop once the median's 95 % interval is within +-this of it (0.005 = 0.5 %) */
    double budget_ms; /* wall-clock budget for the whole case, all profiles together */
} stop_rule;

/* --quick: a smoke pass. Every check still runs (setup, the float64 reference, the verified runs, the
   poisoned re-verification in its round, the escape check, the L2 flush); only sampling is short: a
   few untimed runs, then at least STOP_QUICK_MIN_REPS (above 6, the fewest samples with a 95 % interval
   of the median) and at most STOP_QUICK_MAX_REPS samples in STOP_QUICK_BUDGET_MS a case. The precision
   a median must reach is not lowered. Rounds still wait for each subject's verified round (rounds.h),
   and a step subject still asks for ROUNDS_STEP_MIN samples, so its rows say few-samples. Every row of
   such a run is flagged quick (row.h): its times are no evidence, and no claim is decided by them. */
#define STOP_QUICK_WARMUP 2
#define STOP_QUICK_MIN_REPS 10
#define STOP_QUICK_MAX_REPS 100
#define STOP_QUICK_BUDGET_MS 50.0

/* The largest --budget-ms: the INI's own limit for budget_ms, an hour. */
#define STOP_BUDGET_MAX_MS 3600e3

/* Caps a case's warm-up and rule to --quick's; a case that asks for less keeps its less. One rule for
   klab's runs and libklab_bench's (kb_set_quick). */
void stop_quick(stop_rule *r, int *warmup);

/* A case's sampling as the run's options leave it: its INI's warmup and rule, --quick's in their place
   (stop_quick), then budget_ms (> 0: --budget-ms) in place of the budget. */
void stop_rule_for_run(int *warmup, stop_rule *r, int quick, double budget_ms);

/* Zero-initialise (or stop_acc_reset) before the first stop_add; stop_acc_free when done. */
typedef struct stop_acc {
    size_t n;
    double *x;        /* the samples; sorted at each recomputation, appended to in between */
    size_t cap;
    size_t n_at;      /* n when `precision` was computed; 0 = not yet */
    double precision; /* the relative half-width at n_at */
    size_t computed;  /* how many times it was computed (the cost, for tests) */
} stop_acc;

typedef enum stop_reason {
    STOP_NOT_YET = 0,
    STOP_PRECISION, /* the median's interval is tight enough */
    STOP_MAX,       /* max_reps reached */
    STOP_BUDGET     /* time budget spent */
} stop_reason;

/* 0, or -1 when out of memory (the sample is not counted). */
int stop_add(stop_acc *a, double x);

/* The relative half-width of the median's 95 % interval, recomputed only when due (above); INFINITY
   while n is too small for an interval (n < 6). */
double stop_precision(stop_acc *a);

/* The decision for one subject after `elapsed_ms` of the case. Below min_reps only the budget can
   stop it, and then the caller reports too few samples. */
stop_reason stop_check(const stop_rule *r, stop_acc *a, double elapsed_ms);

/* Forgets the samples, keeps the memory. */
void stop_acc_reset(stop_acc *a);
void stop_acc_free(stop_acc *a);

const char *stop_reason_name(stop_reason r);

#endif
