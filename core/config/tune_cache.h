/* The tuning cache: the best configuration found by `klab --tune` for each (GPU, plugin, plugin
 * version, case, dtype, profile), kept in one INI file (out/tune-cache.ini by default) that later runs
 * read, so a row says which configuration it ran and why (`config` column). The key holds the plugin's
 * version and the case's signature (shape, params, dims): a changed kernel or case never inherits a
 * stale choice.
 *
 *   [entry 1]
 *   gpu = NVIDIA H200
 *   plugin = rmsnorm
 *   version = 2.0.0
 *   case = 4096x8192
 *   signature = 4096x8192;eps=1e-6
 *   dtype = fp16
 *   profile = fused
 *   config = threads=256,vec=8
 *   median_ms = 0.0331
 *   run_id = 20261122-101500
 *
 * The file is rewritten whole (temporary file, then rename), so a crash never leaves half of it. */
#ifndef KLAB_TUNE_CACHE_H
#define KLAB_TUNE_CACHE_H

#include <stddef.h>

#include "config/ini_config.h"

/* The row flags of tuning: every row of a tune run's tuned profile is a trial, the plugin's own choice
   (config -1) among them marked as such; a plain run's row that took its configuration from the cache
   is tuned. */
#define TUNE_FLAG_TRIAL "tune-trial"
#define TUNE_FLAG_OWN "own-choice"
#define TUNE_FLAG_TUNED "tuned"

typedef struct tune_key {
    char gpu[128];
    char plugin[64];
    char version[64];
    char kcase[64];
    /* At most 160: Debian's inih reads lines of 200 bytes (INI_MAX_LINE, no realloc), and a longer
       "signature = ..." line came back cut, making the whole cache unreadable. case_signature hashes
       what does not fit. */
    char signature[161];
    char dtype[16];
    char profile[64];
} tune_key;

typedef struct tune_entry {
    tune_key key;
    /* one inih line (200 bytes in Debian's build) holds "config = " and 190 more: matmul_h200's
       configurations run to ~150 characters (a tune run on the H200 found 128 too few) */
    char config[191];
    double median_ms;
    char run_id[64];
} tune_entry;

typedef struct tune_cache {
    char path[4096];
    tune_entry *e;
    int n, cap;
} tune_cache;

/* The key of case c's entry: the GPU's name, the plugin's name and version, the case's name and
   signature (case_signature), the dtype and the profile. The run that reads the cache and the tune run
   that writes it both name entries this way. */
void tune_key_make(tune_key *k, const char *gpu, const char *plugin, const char *version, const cfg_case *c,
                   const char *dtype, const char *profile);

/* Reads `path` into c. A missing file is an empty cache (0). -1 with "path:line: why" in err for a file
   that exists but is malformed (never silently dropped: a bad cache is the user's to fix or delete). */
int tune_cache_load(const char *path, tune_cache *c, char *err, size_t errlen);

/* The entry for k, or NULL. */
const tune_entry *tune_cache_find(const tune_cache *c, const tune_key *k);

/* Adds e, replacing an entry with the same key. -1 when a field cannot be stored in the file (a control
   character, '[', ']', ';' or '#') or out of memory, with the reason. */
int tune_cache_put(tune_cache *c, const tune_entry *e, char *err, size_t errlen);

/* Removes the entry for k (a tune run found the plugin's own choice faster than every configuration).
   1 when there was one, else 0. */
int tune_cache_remove(tune_cache *c, const tune_key *k);

/* Writes the cache to c->path (temporary file + rename). 0 or -1 with the reason. */
int tune_cache_save(const tune_cache *c, char *err, size_t errlen);

void tune_cache_free(tune_cache *c);

#endif
