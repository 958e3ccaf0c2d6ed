/* A row's arithmetic: from a timed subject's samples to the row's statistics, throughput, flags,
 * fraction of limit and speedup. No CUDA: what a row says about a measurement is decided here. */
#ifndef KLAB_RESULTS_H
#define KLAB_RESULTS_H

#include <stddef.h>

#include "evidence/row.h"
#include "timing/roofline.h"
#include "timing/timing.h"

#define LAUNCH_BOUND_MS 0.010 /* under 10 us a row shows the empty-launch floor beside it */

/* The row's statistics from its samples (stats_compute: the median and its 95 % interval, p95, p99,
   min, max, mean, noise, reps) and its GB/s and TFLOP/s from its bytes and flops: the one place a
   row's numbers are made from samples, for the worker's subjects and libklab_bench's rows alike.
   Returns 0, or -1 (the row untouched) when there is no sample or no memory. */
int results_fill_stats(klab_row *r, const double *samples, size_t n);

/* Statistics, GB/s and TFLOP/s of a subject timed without failing; flags few-samples, launch-bound
   (with launch_floor_ms) and, on a cold row above `roof` (the row dtype's roofline), exceeds-roofline
   (the row flagged). A subject without an accepted sample flags the row, saying why. */
void results_fill_timing(klab_row *r, const subject *s, const roofline *roof, double launch_floor_ms,
                         const timing_opts *o);

/* Fraction of limit: against klab's copy at the same bytes in the same rounds (`copy`, NULL or failed
   when there is none), or against the dtype's tensor peak, whichever the row is closer to. */
void results_fill_limit(klab_row *r, const subject *copy, const roofline *roof);

/* The baseline's median over the row's (subject s), when both were timed, with its 95 % interval
   (interval_ratio: each median's interval at 97.5 %). */
void results_fill_speedup(klab_row *r, const subject *s, const subject *base);

#endif
