/* The row-length sweep: GB/s against the row length N (the shape's last dimension), one chart per
 * dtype, a line per profile (and run, over several runs) with klab's copy at the same bytes dashed red.
 * Past SWEEP_SERIES lines a chart leaves out the oldest runs' and says which; never the copy. */
#ifndef KLAB_CHART_SWEEP_H
#define KLAB_CHART_SWEEP_H

#include <stdio.h>

#include "report/report_eval.h"

#define SWEEP_SERIES 24 /* lines a chart draws besides the copy: more than a legend can be read by */

/* 1 when it drew a chart, 0 when no profile has two row lengths. */
int chart_sweep(FILE *fp, const report *r, const report_exp *x);

#endif
