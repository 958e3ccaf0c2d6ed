/* Rows for the report's tests (test_claims, test_report), written as a real run folder: a CSV
 * through csv_sink, as klab writes it, and a meta.ini. */
#ifndef KLAB_REPORT_FIXTURE_H
#define KLAB_REPORT_FIXTURE_H

#include "row.h"

/* A passed, timed row of plugin "fx", run "fixture": median m with interval m*(1 -+ h), speedup s
   over the baseline with interval s*(1 -+ 2h), frac_limit f of klab's copy (0: no limit). Case
   "big" is 4096x8192 and moves 64 MiB; any other case moves 1 MiB with the shape "64xN" when its
   name is "nN", else 64x1024. Profiles named torch* are flagged external. */
klab_row fx_row(const char *kcase, const char *dtype, const char *profile, double m, double h, double s, double f);

/* dir/name.csv of the rows, and dir/meta.ini naming the run `id` and the GPU. */
void fx_write_run(const char *dir, const char *name, const klab_row *rows, int n, const char *id);

/* path's contents, replaced */
void fx_write(const char *path, const char *text);

#endif
