#include "timing/stopping.h"

#include <math.h>
#include <stdlib.h>

#include "stats/interval.h"
#include "stats/stats.h"

/* Recompute no more often than every 16 samples, nor than every 10 % growth (stopping.h). */
#define STOP_EVERY 16
#define STOP_GROWTH 10 /* per cent */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int stop_add(stop_acc *a, double x)
{
    if (a->n == a->cap) {
        size_t cap = a->cap ? 2 * a->cap : 256;
        double *p = realloc(a->x, cap * sizeof *p);
        if (!p)
            return -1;
        a->x = p;
        a->cap = cap;
    }
    a->x[a->n++] = x;
    return 0;
}

double stop_precision(stop_acc *a)
{
    if (a->n_at) {
        size_t step = (a->n_at * STOP_GROWTH + 99) / 100;
        if (step < STOP_EVERY)
            step = STOP_EVERY;
        if (a->n < a->n_at + step)
            return a->precision;
    }
    size_t j, k;
    /* too few for an interval: nothing cached, so the first n that has one is looked at */
    if (interval_median_ranks(a->n, INTERVAL_CONF, &j, &k) != 0)
        return INFINITY;
    /* the prefix is sorted from last time: qsort on nearly sorted data is cheap enough at this rate */
    qsort(a->x, a->n, sizeof *a->x, cmp_double);
    a->precision = interval_precision(a->x[j - 1], a->x[k - 1], stats_quantile_sorted(a->x, a->n, 0.5));
    a->n_at = a->n;
    a->computed++;
    return a->precision;
}

stop_reason stop_check(const stop_rule *r, stop_acc *a, double elapsed_ms)
{
    if (r->max_reps > 0 && a->n >= (size_t)r->max_reps)
        return STOP_MAX;
    if (elapsed_ms >= r->budget_ms)
        return STOP_BUDGET;
    if (a->n >= (size_t)r->min_reps && stop_precision(a) <= r->precision)
        return STOP_PRECISION;
    return STOP_NOT_YET;
}

void stop_quick(stop_rule *r, int *warmup)
{
    /* capped, never raised: an INI that asks for fewer runs keeps its own numbers */
    if (*warmup > STOP_QUICK_WARMUP)
        *warmup = STOP_QUICK_WARMUP;
    if (r->min_reps > STOP_QUICK_MIN_REPS)
        r->min_reps = STOP_QUICK_MIN_REPS;
    if (r->max_reps > STOP_QUICK_MAX_REPS)
        r->max_reps = STOP_QUICK_MAX_REPS;
    if (r->budget_ms > STOP_QUICK_BUDGET_MS)
        r->budget_ms = STOP_QUICK_BUDGET_MS;
}

void stop_acc_reset(stop_acc *a)
{
    a->n = a->n_at = a->computed = 0;
    a->precision = INFINITY;
}

void stop_acc_free(stop_acc *a)
{
    free(a->x);
    a->x = NULL;
    a->cap = 0;
    stop_acc_reset(a);
}

const char *stop_reason_name(stop_reason r)
{
    switch (r) {
    case STOP_PRECISION: return "precision";
    case STOP_MAX: return "max_reps";
    case STOP_BUDGET: return "budget";
    default: return "running";
    }
}

void stop_rule_for_run(int *warmup, stop_rule *r, int quick, double budget_ms)
{
    if (quick)
        stop_quick(r, warmup);
    if (budget_ms > 0)
        r->budget_ms = budget_ms;
}
