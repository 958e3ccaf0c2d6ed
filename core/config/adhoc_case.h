/* A case made on the command line (--shape, --dim) rather than in a file. It is built by the same
 * rules and messages as a [case NAME] section (cfg_case_set, cfg_case_finish), takes the INI's
 * [defaults] like any case, and is named after what sizes it, so rows, the tuning cache and
 * compare can tell two such cases apart. */
#ifndef KLAB_ADHOC_CASE_H
#define KLAB_ADHOC_CASE_H

#include <stddef.h>

#include "config/ini_config.h"

#define CFG_ADHOC_PREFIX "adhoc-"

/* The name of the case `shape` ("4096x8192", or "") and `dims` ("m=4096,n=8192", or "") make:
   "adhoc-4096x8192", "adhoc-m4096-n8192", "adhoc-64x4096-k512". Both are checked as a case's
   shape and dim.NAME keys are. 0, or -1 with "--shape: why" / "--dim: why" in err. */
int cfg_adhoc_name(const char *shape, const char *dims, char *name, size_t len, char *err, size_t errlen);

/* Appends that case to e (after its file's cases). Returns its index, or -1 with why in err. */
int cfg_add_adhoc(cfg_experiment *e, const char *shape, const char *dims, char *err, size_t errlen);

#endif
