#include "stats/interval.h"

#include <math.h>

int interval_median_ranks(size_t n, double conf, size_t *j, size_t *k)
{
    if (n == 0 || !(conf > 0 && conf < 1))
        return -1;
    double tail = (1 - conf) / 2;
    /* P(B = i) in logs: 2^-n underflows to zero past n = 1074, and the sum must still see the terms
       near the ranks. Summing from the small end keeps the rounding where it does not matter. */
    double logp = -(double)n * log(2.0), cdf = 0;
    size_t i = 0;
    while (i < n) {
        double p = exp(logp);
        /* the relative slack only lets an exact tie (1/32 against 0.0625 / 2, say) count as reached */
        if (cdf + p > tail * (1 + 1e-12))
            break;
        cdf += p;
        logp += log((double)(n - i) / (double)(i + 1));
        i++;
    }
    /* i terms fit: P(B <= i - 1) <= tail < P(B <= i), so the lower rank is i; tail < 1/2 keeps it
       under the middle */
    if (i == 0)
        return -1;
    *j = i;
    *k = n + 1 - i;
    return 0;
}

int interval_median(const double *sorted, size_t n, double conf, double *lo, double *hi)
{
    size_t j, k;
    if (interval_median_ranks(n, conf, &j, &k) != 0)
        return -1;
    *lo = sorted[j - 1];
    *hi = sorted[k - 1];
    return 0;
}

int interval_ratio(const double *num_sorted, size_t nn, const double *den_sorted, size_t nd, double conf,
                   double *lo, double *hi)
{
    double each = 1 - (1 - conf) / 2, nlo, nhi, dlo, dhi;
    if (interval_median(num_sorted, nn, each, &nlo, &nhi) != 0 ||
        interval_median(den_sorted, nd, each, &dlo, &dhi) != 0)
        return -1;
    if (!(nlo > 0 && dlo > 0))
        return -1;
    *lo = nlo / dhi;
    *hi = nhi / dlo;
    return 0;
}

double interval_precision(double lo, double hi, double median)
{
    if (!(median > 0))
        return INFINITY;
    return (hi - lo) / (2 * median);
}
