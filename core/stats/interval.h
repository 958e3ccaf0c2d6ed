/* Confidence intervals for medians of timing samples, and for a ratio of two medians (a speedup).
 *
 * The median's interval comes from order statistics: with B ~ binomial(n, 1/2) the number of samples
 * below the true median, P(x_(j) <= median < x_(k)) = P(j <= B <= k - 1) for any continuous
 * distribution. So the interval is exact without knowing the distribution (timings are skewed and
 * often bimodal) and without resampling; it is conservative where B's steps do not land on the level
 * (n = 50 at 95 % covers 96.7 %). Pure C, no allocation: callers pass samples already sorted. */
#ifndef KLAB_INTERVAL_H
#define KLAB_INTERVAL_H

#include <stddef.h>

/* The level of every interval klab reports. */
#define INTERVAL_CONF 0.95

/* The 1-based ranks j <= k of the symmetric order-statistic interval [x_(j), x_(k)], k = n + 1 - j,
   with the largest j whose coverage 1 - 2 P(B <= j - 1) is still >= conf. Returns 0, or -1 when no
   j >= 1 reaches conf (n < 6 at 95 %, n < 7 at 97.5 %) or conf is not in (0, 1). O(j). */
int interval_median_ranks(size_t n, double conf, size_t *j, size_t *k);

/* The conf-level interval [lo, hi] of the median of `sorted` (ascending). Returns 0, or -1 (lo and hi
   untouched) when n is too small for the level. */
int interval_median(const double *sorted, size_t n, double conf, double *lo, double *hi);

/* The interval of median(num) / median(den) (a speedup is baseline over subject) at joint level
   `conf`. Each median's interval is taken at 1 - (1 - conf) / 2 (97.5 % for 95 %): by Bonferroni both
   hold together with probability >= conf, whatever their dependence, and when both hold the ratio lies
   in [num_lo / den_hi, num_hi / den_lo]. Conservative on purpose: the interval is wider than an exact
   one would be, so a claim "lower bound >= 1.0" (faster than the baseline) is not easy to win by luck.
   Samples must be positive times. Returns 0, or -1 when either set is too small for its level (n < 7
   at 95 %) or an interval reaches zero. */
int interval_ratio(const double *num_sorted, size_t nn, const double *den_sorted, size_t nd, double conf,
                   double *lo, double *hi);

/* The relative half-width (hi - lo) / (2 median): what the stopping rule compares with `precision`
   and what rows report. Infinite when the median is not positive. */
double interval_precision(double lo, double hi, double median);

#endif
