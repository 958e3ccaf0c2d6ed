/* Summary statistics of timing samples. */
#ifndef KLAB_STATS_H
#define KLAB_STATS_H

#include <stddef.h>

typedef struct stats {
    size_t n;
    double median, p95, min, max, mean;
    double noise; /* standard deviation over mean: the relative noise nvbench reports */
} stats;

/* Sorts a copy, so `samples` keeps its order. n == 0 gives all zeros and n == 0: callers check n
   before printing, so an empty row never shows a made-up 0. Returns -1 if out of memory. */
int stats_compute(const double *samples, size_t n, stats *out);

/* The q-quantile (0..1) of an ascending array by linear interpolation between closest ranks. */
double stats_quantile_sorted(const double *sorted, size_t n, double q);

#endif
