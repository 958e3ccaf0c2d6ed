/* The report's charts, each one <svg> element (svg.h) written into the HTML page, a chart of more
 * rows than CHART_ROWS in parts (chart_frame.h); the sweep has its own file (chart_sweep.h):
 *   rates     one case: a bar per row (klab's profiles and PyTorch's, grouped by dtype) of GB/s, or
 *             TFLOP/s where the row's limit is the tensor peak; its 95 % interval as a whisker; the
 *             limit it is measured against (klab's copy at the same bytes, or the tensor peak) as a
 *             dashed line over the rows of the run that measured it
 *   claim     a claim's instances (its metric and interval, the claim's number as a line)
 *   speedup   each row's speedup over the plugin's baseline profile, with its interval
 *             (both: log scale where the values span 2x or more)
 *   histogram a step row's raw samples (its samples file), p50 and p95 marked
 *   counters  each profiled row's DRAM throughput % and achieved occupancy % (its maximum over its
 *             kernels, as a claim reads it), a pair of bars per row */
#ifndef KLAB_REPORT_CHARTS_H
#define KLAB_REPORT_CHARTS_H

#include <stdio.h>

#include "report/report_eval.h"

/* Each returns 1 when it drew a chart, 0 when there was nothing to draw. */
int chart_rates(FILE *fp, const report *r, const report_exp *x, const char *kcase);
int chart_claim(FILE *fp, const report *r, const report_exp *x, int k);
int chart_speedup(FILE *fp, const report *r, const report_exp *x);
int chart_counters(FILE *fp, const report *r, const report_exp *x);
int chart_histogram(FILE *fp, const report *r, int run, const klab_row *row);

#endif
