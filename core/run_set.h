/* Run folders read back: each one's meta.ini and every *.csv in it (table_read_csv), for the commands
 * that judge or compare evidence after the fact (klab report). A RUN given on the command line is a
 * run folder, one CSV file of one, or a folder whose subfolders are run folders (a sitting, like
 * experiments/evidence/2026-11-22-h200-rows): each subfolder is then one run. */
#ifndef KLAB_RUN_SET_H
#define KLAB_RUN_SET_H

#include <stddef.h>

#include "row.h"

typedef struct run_dir {
    char path[4096];  /* the folder, or the CSV file when one was given */
    int is_file;
    int has_meta;     /* meta.ini was there and read */
    char id[64];      /* meta.ini's id, else the folder's name */
    char started[40], commit[64], gpu[128], command[200];
    klab_row *rows;   /* every CSV's rows, files in name order */
    int nrows;
    int ncsv;
} run_dir;

#define RUN_SET_NOTES 16

typedef struct run_set {
    run_dir *runs;
    int n, cap;
    int nnotes;        /* what was passed over, each in words: a CSV that is not klab's, ... */
    char notes[RUN_SET_NOTES][600];
} run_set;

/* Adds the run(s) at `path`. Returns 0, or -1 with err (no such path, no CSV there or below). */
int run_set_add(run_set *s, const char *path, char *err, size_t errlen);

/* The newest run folder under out_dir (by meta.ini's time, then name): 0 and its path, or -1 with err. */
int run_set_latest(const char *out_dir, char *path, size_t len, char *err, size_t errlen);

void run_set_free(run_set *s);

#endif
