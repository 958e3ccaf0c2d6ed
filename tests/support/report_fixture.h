/* Rows for the report's tests (test_claims, test_report), written as a real run folder: a CSV
 * through csv_sink, as klab writes it, and a meta.ini. */
#ifndef KLAB_REPORT_FIXTURE_H
#define KLAB_REPORT_FIXTURE_H

#include "evidence/ncu_csv.h"
#include "evidence/row.h"

/* A passed, timed row of plugin "fx", run "fixture": median m with interval m*(1 -+ h), speedup s
   over the baseline with interval s*(1 -+ 2h), frac_limit f of klab's copy (0: no limit). Case
   "big" is 4096x8192 and moves 64 MiB; any other case moves 1 MiB with the shape "64xN" when its
   name is "nN", else 64x1024. Profiles named torch* are flagged external. */
klab_row fx_row(const char *kcase, const char *dtype, const char *profile, double m, double h, double s, double f);

/* dir/name.csv of the rows, and dir/meta.ini naming the run `id` and the GPU. */
void fx_write_run(const char *dir, const char *name, const klab_row *rows, int n, const char *id);

/* Appends a kernel to r (status measured) with the counters given as ncu writes them ("" or NULL:
   none): dram_pct, achieved_occupancy_pct, registers. */
void fx_kernel(ncu_result *r, const char *name, const char *dram, const char *occ, const char *regs);

/* dir/<plugin>.counters.csv through counters.c's own writer: row i gets res[i]'s lines (its kernels,
   or one line of its status and reason), none when res[i] is NULL. */
void fx_write_counters(const char *dir, const char *plugin, const klab_row *rows, ncu_result *const *res, int n);

/* path's contents, replaced */
void fx_write(const char *path, const char *text);

#endif
