#include "stopping.h"

#include <math.h>

void stop_add(stop_acc *a, double x)
{
    a->n++;
    double d = x - a->mean;
    a->mean += d / (double)a->n;
    a->m2 += d * (x - a->mean);
}

double stop_noise(const stop_acc *a)
{
    if (a->n < 2 || a->mean <= 0)
        return INFINITY;
    return sqrt(a->m2 / (double)(a->n - 1)) / a->mean;
}

stop_reason stop_check(const stop_rule *r, const stop_acc *a, double elapsed_ms)
{
    if (r->max_reps > 0 && a->n >= (size_t)r->max_reps)
        return STOP_MAX;
    if (elapsed_ms >= r->budget_ms)
        return STOP_BUDGET;
    if (a->n >= (size_t)r->min_reps && stop_noise(a) <= r->noise)
        return STOP_NOISE;
    return STOP_NOT_YET;
}

const char *stop_reason_name(stop_reason r)
{
    switch (r) {
    case STOP_NOISE: return "noise";
    case STOP_MAX: return "max_reps";
    case STOP_BUDGET: return "budget";
    default: return "running";
    }
}
