/* The run folder's meta.ini: what was measured, where, how, and with which build. Written atomically
 * like the CSVs. */
#ifndef KLAB_RUN_META_H
#define KLAB_RUN_META_H

#include <stdint.h>
#include <time.h>

#include "config/ini_config.h"
#include "evidence/phases.h"
#include "host/device_info.h"

/* A run's `started`, as strftime formats it in UTC. */
#define RUN_META_STARTED_FMT "%Y-%m-%dT%H:%M:%SZ"

/* What a meta.ini says, as data: klab's runs (lab_write_meta, app/lab.h) and libklab_bench's sessions
   (kb_write_meta) fill it, one writer turns it into the file, so the two never drift apart. */
typedef struct run_meta_info {
    const char *run_id, *started, *command;
    uint64_t seed;
    int csv_schema;
    int shard_k, shard_n; /* shard_n 0: not a shard */
    const device_desc *dev; /* NULL: no GPU was reached: no [device], no [method] */
    int hot, batched, verify_only, isolated;
    double throttle;
    int quick;        /* --quick: [method] says so (nothing is written when 0, as before the option) */
    double budget_ms; /* --budget-ms; 0: each case's INI budget (nothing written) */
    const cfg_experiment *cfgs;
    int ncfgs;
    /* the caller's own entries, "SECTION.KEY" = value, written after klab's sections in the order of
       their sections' first appearance; a section klab writes itself is refused (run, inis, ini_paths,
       device, method, merge, phases), so a reader never meets a key twice */
    const char *const *extra_keys;
    const char *const *extra_values;
    int nextra;
} run_meta_info;

/* meta.ini at `path`, written to `path`.partial and renamed, so a crash never leaves half a file.
   Returns 0, or -1 with the reason (an extra entry that is not SECTION.KEY, names a section of klab's,
   or holds a line break, is refused before anything is written). */
int run_meta_write_info(const char *path, const run_meta_info *m, char *err, size_t errlen);

/* meta.ini at `path` again with [phases] (phases.h) in place of any it had, every other byte kept
   (`started` above all), written atomically as above; no [phases] when phases_any(p) is 0. The end
   of a run adds where its time went to the file its start wrote. 0, or -1 with the reason. */
int run_meta_put_phases(const char *path, const run_phases *p, char *err, size_t errlen);

/* The hash [inis] records for the file at `path` (16 hex digits); "unreadable" when it cannot be read. */
void run_meta_ini_hash(const char *path, char *buf, size_t len);

/* A run's id: `given` (--run-id) when not empty, else the UTC date and time, and the commit. One rule
   for a run and for a --devices run, whose children and merged folder share the id. */
void run_meta_run_id(const char *given, const struct tm *utc, char *buf, size_t len);

/* What a meta.ini says, read back: the one reader (run_set's reports and compare, merge's checks).
   Unknown keys are passed over; a long line (a command) is cut, not refused. */
#define RUN_META_MAX_INIS 64
typedef struct run_meta {
    char id[64], started[40], commit[64], command[200], csv_schema[16]; /* [run] */
    char gpu[128], uuid[64];                                            /* [device] name, uuid */
    int quick;                                                          /* [method] quick = yes */
    int ninis;                                                          /* [inis] plugin = hash */
    char ini_plugin[RUN_META_MAX_INIS][64], ini_hash[RUN_META_MAX_INIS][32];
} run_meta;

/* path's keys into *m (zeroed first): 0, or -1 with the reason (a file that cannot be read or parsed). */
int run_meta_read(const char *path, run_meta *m, char *err, size_t errlen);

#endif
