/* When to stop sampling: enough samples, low enough noise, or out of time (nvbench's stdrel rule
   with a budget). Running moments, so checking after every round costs O(1). */
#ifndef KLAB_STOPPING_H
#define KLAB_STOPPING_H

#include <stddef.h>

typedef struct stop_rule {
    int min_reps;     /* never fewer accepted samples than this */
    int max_reps;     /* never more */
    double noise;     /* stop once stddev/mean is at or under this (0.005 = 0.5 %) */
    double budget_ms; /* wall-clock budget for the whole case, all profiles together */
} stop_rule;

typedef struct stop_acc {
    size_t n;
    double mean, m2; /* Welford */
} stop_acc;

typedef enum stop_reason {
    STOP_NOT_YET = 0,
    STOP_NOISE,  /* noise target met */
    STOP_MAX,    /* max_reps reached */
    STOP_BUDGET  /* time budget spent */
} stop_reason;

void stop_add(stop_acc *a, double x);
double stop_noise(const stop_acc *a);

/* The decision for one subject after `elapsed_ms` of the case. Below min_reps only the budget can
   stop it, and then the caller reports too few samples. */
stop_reason stop_check(const stop_rule *r, const stop_acc *a, double elapsed_ms);

const char *stop_reason_name(stop_reason r);

#endif
