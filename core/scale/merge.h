/* klab merge OUT RUN...: one run folder from several, the shards of a Slurm array or the GPUs of
 * --devices. The runs must agree on the commit, the CSV schema and every INI (meta.ini's [run] and
 * [inis]); otherwise nothing is written and the refusal names what differs and where. Rows are keyed
 * by (plugin, case, dtype, profile, config, l2, launch, gpu_uuid): a row found twice with the same
 * text is kept once, a key found twice with different results is refused. So merging is idempotent:
 * the same runs merged again, in any order, give the same bytes, and a merged folder can be merged
 * again with its sources. Rows are ordered by (case, dtype, GPU), each unit's rows as its worker sent
 * them; counters files (counters.h) and step samples (<plugin>.samples/) are merged alike. Every file
 * is written whole and renamed into place. */
#ifndef KLAB_MERGE_H
#define KLAB_MERGE_H

#include <stddef.h>
#include <stdio.h>

#include "process/exit_status.h"

#define MERGE_REFUSED (-2)

/* Returns 0; MERGE_REFUSED with the refusal in err (nothing written); -1 with the error. Progress
   lines go to `log` (may be NULL). */
int merge_runs(const char *out, const char *const *runs, int nruns, FILE *log, char *err, size_t errlen);

/* The command: klab merge OUT RUN... (exit status 0, 2 for a refusal, 1 for an error). */
int merge_main(char *const *args, int nargs);

#endif
