/* klab compare's synthetic runs (test_compare, test_compare_gate): rows of known noise summarised by
 * klab's own statistics, written as CSV into run folders the tests make. */
#ifndef KLAB_COMPARE_FIXTURE_H
#define KLAB_COMPARE_FIXTURE_H

#include <limits.h>
#include <stdint.h>

#include "evidence/row.h"
#include "report/compare.h"

/* A passed row of `n` samples around median_ms, each within +-spread (relative), as a run reports it. */
klab_row row_of(const char *kcase, const char *profile, double median_ms, double spread, int n, uint64_t seed);

/* Three rows, two profiles and a tuned one, all at the same relative noise; `scale` multiplies every
   median (1.10: a 10 % slowdown). */
void three_rows(klab_row *r, double scale, double spread, int n, uint64_t seed);

/* dir/name: the rows, through csv_sink. */
void write_csv(const char *dir, const char *name, const klab_row *rows, int n);

/* kr_tmp/out/run-a and run-b: rmsnorm.csv (three_rows, B's medians times scale_b), rmsnorm.torch.csv,
   softmax.csv in B only, an interrupted swiglu.csv.partial and counters files in both. */
extern char dir_a[PATH_MAX], dir_b[PATH_MAX];
extern const cmp_opts opts; /* the default threshold, nothing allowed */
void make_runs(double scale_b, double spread);

#endif
