/* A unit's rows, and every verdict on them that needs no GPU: one row per entry (unit_entries.h),
 * named for the run, the plugin, the case and the device; skips for the device; each entry's
 * configuration picked and named; a verified run's and a timed subject's outcome on its row.
 * session.c does the GPU work between them; the unit tests drive these without one. */
#ifndef KLAB_UNIT_ROWS_H
#define KLAB_UNIT_ROWS_H

#include "config/tune_cache.h"
#include "evidence/row.h"
#include "host/device_info.h"
#include "host/loader.h"
#include "host/verify.h"
#include "process/wire.h"
#include "timing/timing.h"
#include "worker/job.h"
#include "worker/subjects.h"
#include "worker/unit_entries.h"

typedef struct unit_rows {
    const job *j;
    const loaded_plugin *lp;
    const device_info *dev;
    const cfg_case *c;
    klab_dtype dtype;
    char label[192]; /* "plugin case dtype", for notes */
    int n;
    klab_row rows[UNIT_MAX_ENTRIES + MAX_EXTERNAL]; /* entry i's is row i; externals follow */
} unit_rows;

/* No rows yet; the label set. The pointers must outlive ur. */
void unit_rows_init(unit_rows *ur, const job *j, const loaded_plugin *lp, const device_info *dev,
                    const cfg_case *c, klab_dtype dtype);

/* A row for `profile` (an entry's or an external's label): run, plugin, case, shape, dtype, mode, seed
   and GPU filled in, flagged quick in a --quick run. */
klab_row *unit_row_new(unit_rows *ur, const char *profile);

/* The entries' rows, in order; a tune run's trials flagged as such (and the own choice's). */
void unit_rows_for_entries(unit_rows *ur, const unit_entry *e, int ne);

/* 1 for a row nothing has decided yet: neither skipped, failed nor judged. */
int unit_row_open(const klab_row *r);

/* How many rows are open. */
int unit_rows_open(const unit_rows *ur);

/* Every open row fails with status st and the reason (fmt, one %s). */
void unit_rows_fail_open(unit_rows *ur, row_status st, const char *fmt, const char *reason);

/* The device: the plugin's minimum compute capability for every row, then each entry's profile's
   exact architectures (its own list, else the plugin's). */
void unit_rows_skip_for_device(unit_rows *ur, const unit_entry *e, int ne);

/* Each entry's tuning configuration (a trial's is fixed; unit_entry_config picks a plain entry's from
   the case, `cache` (NULL: none) or the plugin's own) and its name in the row: a config the space lacks
   fails the row, a cached one flags it tuned, a stale cache entry is a NOTE on out. */
void unit_rows_pick_configs(unit_rows *ur, unit_entry *e, int ne, const klab_case *kcase,
                            const tune_cache *cache, const job_out *out);

/* The outcome of an entry's verified run on its row: rc (INST_OK, INST_MISMATCH, INST_ERROR or
   INST_REFUSED) with its message err and the comparison `last`, `elems` compared; changed as
   inst_inputs_changed says (> 0 changed, < 0 could not tell, why). Returns 1 when the entry passed:
   it is then timed. */
int unit_row_verified(klab_row *r, int rc, const char *err, const verify_result *last, uint64_t elems,
                      int changed, const char *why);

/* The outcome of a timed subject on its row, changed over the timed runs as above. Returns 1 when
   the subject's numbers are to fill the row. */
int unit_row_timed(klab_row *r, const subject *sb, int changed, const char *why);

#endif
