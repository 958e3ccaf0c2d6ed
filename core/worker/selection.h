/* Which units and profiles a run's filter keeps: cases, dtypes and profiles by name, and --shard's
 * slice (shard.h). Pure, so the parent (--with-torch, --tune --validate) and the worker agree. */
#ifndef KLAB_SELECTION_H
#define KLAB_SELECTION_H

#include "worker/job.h"

/* The (case, dtype) units a filter selects (its shard's only, under --shard), in the order a worker
   runs them. Returns how many; with u >= 0, also sets *case_index and *dtype of unit u. */
int job_units(const cfg_experiment *cfg, const run_filter *f, int u, int *case_index, klab_dtype *dtype);

/* 1 if the filter keeps this case (--case). */
int job_keeps_case(const cfg_case *c, const run_filter *f);

/* 1 if the filter keeps this profile name for this case. */
int job_keeps_profile(const cfg_case *c, const run_filter *f, const char *profile);

#endif
