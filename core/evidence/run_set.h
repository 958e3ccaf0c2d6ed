/* Run folders read back: each one's meta.ini, every *.csv in it (table_read_csv) and its counters
 * files (counters_read) joined to the rows by the key counters.h names, for the commands
 * that judge or compare evidence after the fact (klab report). A RUN given on the command line is a
 * run folder, one CSV file of one, or a folder with run folders below it at any depth (a set of runs,
 * like experiments/evidence/2026-11-22-h200-rows, or an archive of such sets): each is then one run. */
#ifndef KLAB_RUN_SET_H
#define KLAB_RUN_SET_H

#include <stddef.h>

#include "evidence/csv_read.h"
#include "evidence/ncu_csv.h"
#include "evidence/row.h"

/* One kernel's line of a <plugin>.counters.csv (counters.h), joined to the row its key names. */
typedef struct run_kernel {
    int row;                    /* its index in run_dir.rows */
    int next;                   /* the row's next kernel in kernels[], or -1 */
    const char *name;           /* its first 199 bytes, in run_dir.text */
    char grid[32], block[32];
    int has[NCU_NMETRICS];      /* ncu gave the metric (ncu_metrics' order) */
    double v[NCU_NMETRICS];
} run_kernel;

/* A row's counters: present when a line of a counters file names it. status is the file's
   (measured, refused, no-ncu, no-kernels, failed, not-profiled); reason the first one given. */
typedef struct run_counters {
    int present;
    char status[16];
    const char *reason;         /* its first 299 bytes, in run_dir.text; "" when none */
    int nkernels;
    int first_kernel, last_kernel; /* the row's kernels: a chain through run_kernel.next; -1 none */
} run_counters;

/* One CSV of a run as read: its rows are run_dir.rows[first .. first + n), or err says why it has none. */
typedef struct run_file {
    char path[4400];
    int first, n;
    char *err; /* malloc'd; NULL when it was read */
} run_file;

typedef struct run_dir {
    char path[4096];  /* the folder, or the CSV file when one was given */
    int is_file;
    int has_meta;     /* meta.ini was there and read */
    char id[64];      /* meta.ini's id, else the folder's name */
    char started[40], commit[64], gpu[128], command[200];
    klab_row *rows;   /* every CSV's rows, files in name order */
    int nrows;
    int ncsv;
    int ncounters_files;     /* <plugin>.counters.csv files read (klab --with-profiling) */
    run_counters *counters;  /* nrows of them beside rows, NULL when the run has no counters file */
    run_kernel *kernels;     /* every kernel line, in file order */
    int nkernels;
    struct strpool *text;    /* the counters' kernel names and reasons, each once: a million lines repeat a few */
    struct run_sibling *sib; /* the rows by what they measured, for run_set_vs; private to run_set.c */
    int *profile_first;      /* each profile's first row, in the order rows first name one (run_set_profile_first) */
    int nprofiles;
    run_file *files;         /* every CSV of rows, in name order, read or not */
    int nfiles;
} run_dir;

#define RUN_SET_NOTES 16
#define RUN_SET_DEPTH 8 /* folders looked into below a RUN: enough for archives, and no link loop forever */

typedef struct run_set {
    run_dir *runs;
    int n, cap;
    int nnotes;        /* what was passed over, each in words: a CSV that is not klab's, ... */
    char notes[RUN_SET_NOTES][600];
    int defer_ids;     /* run_set_add_all's own: two runs' ids made unique when they are joined */
} run_set;

/* Adds the run(s) at `path`. Returns 0, or -1 with err (no such path, no CSV there or below). */
int run_set_add(run_set *s, const char *path, char *err, size_t errlen);

/* Adds the runs at each of paths[0 .. n), in that order: each path read on a thread of its own (as many
   at once as there are CPUs), the result the one run_set_add gives path after path. Returns 0, or -1
   with the first failing path's err. */
int run_set_add_all(run_set *s, const char *const *paths, int n, char *err, size_t errlen);

/* A run folder's meta.ini ([run] id, started, commit, command; [device] name) into r, has_meta saying
   whether it was there and read; with no id there, the folder's name (run_meta_read reads the file). */
void run_set_read_meta(run_dir *r, const char *dir);

/* The newest run folder under out_dir (by meta.ini's time, then name): 0 and its path, or -1 with err. */
int run_set_latest(const char *out_dir, char *path, size_t len, char *err, size_t errlen);

/* The counters joined to `row` (one of r's rows), or NULL when r has no counters file. */
const run_counters *run_set_counters(const run_dir *r, const klab_row *row);

/* The row of profile `profile` measured beside `like` (the same run id, plugin, case, dtype and L2
   mode), preferring one of like's launch (PyTorch under a graph is "queued" beside a "batched"
   profile), else the first in file order; NULL when there is none. Through an index sorted once per
   run: a claim's `vs` row used to be a scan of the run per row, quadratic over a large run. */
const klab_row *run_set_vs(const run_dir *r, const klab_row *like, const char *profile);

/* The first row of r (in file order) whose profile is `profile`, or NULL: through the run's few
   profiles, not its rows (a claim asks whether a profile is PyTorch's for each of its rows). */
const klab_row *run_set_profile_first(const run_dir *r, const char *profile);

/* The first of a row's kernels in r->kernels (the next: kernels[i].next), or -1: a row's kernels
   without a scan of every kernel of the run. */
int run_set_first_kernel(const run_dir *r, const klab_row *row);

/* A row's value of counter m (ncu_metrics' index) over its kernels: the maximum. ncu's list has no
   kernel duration to weigh them by, so the busiest kernel speaks for the row (for DRAM % the one
   nearest the bound; for registers and shared memory the largest need). 1 and *v, or 0 when no
   kernel of the row has it. */
int run_set_counter_value(const run_dir *r, const klab_row *row, int m, double *v);

void run_set_free(run_set *s);

#endif
