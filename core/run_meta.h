/* The run folder's meta.ini: what was measured, where, how, and with which build. Written atomically
 * like the CSVs. */
#ifndef KLAB_RUN_META_H
#define KLAB_RUN_META_H

#include <time.h>

#include "cli.h"
#include "ini_config.h"
#include "wire.h"

/* `dev` may be NULL (no GPU was reached). The experiments' INI files are named and hashed in [inis]
   (plugin = FNV-1a 64 of the file's bytes, in hex) and [ini_paths], so that `klab merge` can refuse
   runs of different INIs. Returns 0, or -1 with the reason. */
int run_meta_write(const char *path, const char *run_id, const char *started, const cli_opts *o,
                   uint64_t seed, const wire_device *dev, const cfg_experiment *cfgs, int ncfgs, char *err,
                   size_t errlen);

/* The hash [inis] records for the file at `path` (16 hex digits); "unreadable" when it cannot be read. */
void run_meta_ini_hash(const char *path, char *buf, size_t len);

/* A run's id: `given` (--run-id) when not empty, else the UTC date and time, and the commit. One rule
   for a run and for a --devices run, whose children and merged folder share the id. */
void run_meta_run_id(const char *given, const struct tm *utc, char *buf, size_t len);

#endif
