/* klab --tune's verdict, in the parent: from a tune run's rows, the best configuration of each (case,
 * dtype, profile) into the tuning cache (tune_cache.h). Pure over the rows: medians are compared only
 * among rows of one run (the same rounds), never with a median of an earlier run. */
#ifndef KLAB_LAB_TUNE_H
#define KLAB_LAB_TUNE_H

#include <stdio.h>

#include "config/ini_config.h"
#include "config/tune_cache.h"
#include "evidence/row.h"

/* The best trial of (kcase, dtype, profile) among rows[0 .. n): a passed row flagged tune-trial, not the
   plugin's own choice, with a time and not few-samples, of the lowest median (a tie: the lower
   median_hi, a row without an interval losing; then the earlier row). -1 when none qualifies. *own is
   the plugin's own-choice trial row of the same triple, or -1. */
int tune_best(const klab_row *rows, int n, const char *kcase, const char *dtype, const char *profile, int *own);

/* The tune run whose rows tune_record reads: the GPU, plugin version and run that sign its cache entries. */
typedef struct tune_run_info {
    const char *gpu;     /* the DEVICE message's name */
    const char *version; /* the PLUGIN message's version */
    const char *run_id;
    const cfg_experiment *cfg; /* the cases' signatures */
} tune_run_info;

/* For each (case, dtype, profile) with tune-trial rows: puts its best into c, or, when the plugin's own
   choice (named outside its tuning space) beat every configuration, removes an entry of that key (the
   own choice is what runs without one). One line a choice to `out` ("rmsnorm 4096x8192 fp16 fused:
   threads=256,vec=8 (0.0331 ms, 1.07x the plugin's own choice)"), and one for a triple with no
   qualifying trial. Returns the number of entries put or removed; a field the cache cannot store is a
   line to `out` and that entry is left out. */
int tune_record(tune_cache *c, const klab_row *rows, int n, const tune_run_info *s, FILE *out);

#endif
