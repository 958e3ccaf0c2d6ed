/* klab --with-profiling: after a plugin's timed run, each passed row once more, alone, under Nsight
 * Compute. The parent starts, per row,
 *
 *   ncu --clock-control none --target-processes all --nvtx --nvtx-include klab-timed/ --csv --page raw
 *       --print-units base --metrics <ncu_csv.h's list> --log-file <row>.ncu.log
 *       klab --profile-pass --no-isolate --config INI --case C --dtype D --profile P --device N --seed S ...
 *
 * The child klab sets the case up and verifies it as any run does, then launches each verified entry
 * once inside the NVTX push/pop range "klab-timed" and times nothing: ncu profiles the plugin's
 * kernels in that range only (not klab's fills, copies or reference). The clocks stay as found.
 * The parent reads ncu's log (ncu_csv.h) into <plugin>.counters.csv (counters.h). No ncu, no
 * permission for the counters, an ncu error: the counters file says so for each row, and the run's
 * exit status is what its timed rows make it. ncu is $KLAB_NCU if set, else `ncu` on PATH. */
#ifndef KLAB_PROFILING_H
#define KLAB_PROFILING_H

#include <stddef.h>

#include "evidence/ncu_csv.h"
#include "evidence/row.h"
#include "host/nvtx_range.h"

#define PROFILING_RANGE NVTX_RANGE_TIMED


/* ncu's path into buf: $KLAB_NCU, else the first executable `ncu` on PATH; "" when there is none. */
void profiling_find_ncu(char *buf, size_t len);

/* What --with-profiling needs of the command line: the timed run's device, watchdog, tuning cache
   and plugin folders, so the run under ncu loads and configures what was timed. */
#define PROFILING_MAX_PATHS 32
typedef struct profiling_opts {
    int device;
    double timeout_s;
    const char *tune_cache;
    const char *const *plugin_paths;
    int npaths;
} profiling_opts;

typedef struct profiling_ctx {
    const profiling_opts *o;
    const char *ncu;     /* its path */
    const char *exe;     /* this klab */
    const char *ini;     /* the plugin's experiment file */
    const char *workdir; /* ncu's logs and the child runs: <run>/profiling/<plugin> */
    double timeout_s;    /* one row's ncu, at most */
    unsigned skip;       /* metrics this ncu refused to know (1 << index): left out of later rows */
} profiling_ctx;

#define PROFILING_MAX_ARGS (40 + 2 * PROFILING_MAX_PATHS)

/* ncu's command line for one row, NULL-terminated; its strings live in `store`. Returns argc. */
int profiling_argv(const profiling_ctx *c, const klab_row *row, const char *log, char *argv[PROFILING_MAX_ARGS],
                   char store[PROFILING_MAX_ARGS][4200]);

/* Runs ncu for one row and reads what it wrote into *r (a refusal, too, is a result). An ncu that
   names one of the metrics as unknown is run again without it (c->skip remembers it); the row's
   reason says which were left out. */
void profiling_row(profiling_ctx *c, const klab_row *row, ncu_result *r);

/* The whole of --with-profiling for one plugin's rows: <run_dir>/<plugin>.counters.csv. Returns 0, or
   -1 with the reason when the counters file itself could not be written. */
int profiling_plugin(const profiling_opts *o, const char *plugin, const char *ini, const char *run_dir,
                     const klab_row *rows, int n, char *err, size_t errlen);

#endif
