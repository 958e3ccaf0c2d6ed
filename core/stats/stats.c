#include "stats/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats/interval.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double *sorted_copy(const double *x, size_t n)
{
    double *s = malloc((n ? n : 1) * sizeof *s);
    if (!s)
        return NULL;
    memcpy(s, x, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_double);
    return s;
}

double stats_quantile_sorted(const double *s, size_t n, double q)
{
    if (n == 0)
        return 0;
    double pos = q * (double)(n - 1);
    size_t lo = (size_t)floor(pos);
    size_t hi = lo + 1 < n ? lo + 1 : lo;
    double frac = pos - (double)lo;
    return s[lo] + (s[hi] - s[lo]) * frac;
}

int stats_compute(const double *samples, size_t n, stats *out)
{
    memset(out, 0, sizeof *out);
    if (n == 0)
        return 0;
    double *s = sorted_copy(samples, n);
    if (!s)
        return -1;
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += s[i];
    double mean = sum / (double)n, var = 0;
    for (size_t i = 0; i < n; i++)
        var += (s[i] - mean) * (s[i] - mean);
    out->n = n;
    out->min = s[0];
    out->max = s[n - 1];
    out->mean = mean;
    out->median = stats_quantile_sorted(s, n, 0.5);
    out->p95 = stats_quantile_sorted(s, n, 0.95);
    out->p99 = stats_quantile_sorted(s, n, 0.99);
    out->noise = n > 1 && mean > 0 ? sqrt(var / (double)(n - 1)) / mean : 0;
    if (interval_median(s, n, INTERVAL_CONF, &out->median_lo, &out->median_hi) == 0) {
        out->has_ci = 1;
        out->precision = interval_precision(out->median_lo, out->median_hi, out->median);
    }
    free(s);
    return 0;
}

int stats_ratio_interval(const double *num, size_t nn, const double *den, size_t nd, double *lo, double *hi)
{
    double *a = sorted_copy(num, nn), *b = sorted_copy(den, nd);
    int rc = a && b ? interval_ratio(a, nn, b, nd, INTERVAL_CONF, lo, hi) : -1;
    free(a);
    free(b);
    return rc;
}
