/* The run folder's meta.ini: what was measured, where, how, and with which build. Written atomically
 * like the CSVs. */
#ifndef KLAB_RUN_META_H
#define KLAB_RUN_META_H

#include "cli.h"
#include "wire.h"

/* `dev` may be NULL (no GPU was reached). Returns 0, or -1 with the reason. */
int run_meta_write(const char *path, const char *run_id, const char *started, const cli_opts *o,
                   uint64_t seed, const wire_device *dev, char *err, size_t errlen);

#endif
