/* Summary statistics of timing samples, with the confidence intervals of interval.h. */
#ifndef KLAB_STATS_H
#define KLAB_STATS_H

#include <stddef.h>

typedef struct stats {
    size_t n;
    double median, p95, p99, min, max, mean;
    double noise; /* standard deviation over mean: the relative noise nvbench reports */
    int has_ci;   /* the median's 95 % interval exists (n >= 6) */
    double median_lo, median_hi;
    double precision; /* its relative half-width, (hi - lo) / (2 median) */
} stats;

/* Sorts a copy, so `samples` keeps its order. n == 0 gives all zeros and n == 0: callers check n
   before printing, so an empty row never shows a made-up 0. Returns -1 if out of memory. */
int stats_compute(const double *samples, size_t n, stats *out);

/* The q-quantile (0..1) of an ascending array by linear interpolation between closest ranks. */
double stats_quantile_sorted(const double *sorted, size_t n, double q);

/* The 95 % interval of median(num) / median(den) from unsorted samples (interval_ratio: each median
   at 97.5 %). Returns 0, or -1 when a set is too small for it (n < 7) or out of memory. */
int stats_ratio_interval(const double *num, size_t nn, const double *den, size_t nd, double *lo, double *hi);

#endif
