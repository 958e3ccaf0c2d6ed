/* klab --devices A,B,...: the selected units spread over several GPUs of this host, one klab per GPU at
 * once. klab starts itself again for each GPU i of N with the same command line and
 * `--device D_i --shard i/N --out <out>/<run id>.devices/gpu<D_i> --run-id <run id> --tune-cache <its>`:
 * each child is an ordinary run (its own workers, watchdog and atomic CSVs) over its slice of the
 * units (shard.h), and when all have ended the parent merges their run folders into <out>/<run id>
 * (merge.h), whose rows each name their GPU. The children's output is in gpu<D>.log beside their folders; their progress
 * lines come to this terminal. SIGINT/SIGTERM reach the children (one process group; a signal sent to
 * this klab alone is passed on after 2 s to a child still running) and nothing is merged. */
#ifndef KLAB_DEVICES_H
#define KLAB_DEVICES_H

#include <stddef.h>

#include "process/exit_status.h"

/* What --devices needs of the command line. */
typedef struct devices_opts {
    int argc;              /* the command line as given, started again for each GPU */
    char *const *argv;
    const int *devices;    /* the GPUs, --devices's order */
    int ndevices;
    const char *run_id;    /* --run-id; "": the date, time and commit */
    const char *out_dir;   /* --out */
    const char *tune_cache; /* the parent's, shared by the children */
    char *merged;          /* out, when not NULL: the merged run folder, "" when nothing was merged */
    size_t merged_len;
} devices_opts;

#define DEVICES_MAX_ARGS 256
#define DEVICES_MAX 32 /* GPUs, as many as the command line takes */

/* Child i's command line (NULL-terminated, strings in `store`): o's own words without --devices,
   --device, --out, --run-id and --tune-cache, then the child's (the tuning cache is the parent's).
   Returns argc, or -1 when it does not fit. */
int devices_child_argv(const devices_opts *o, int i, const char *exe, const char *out, const char *run_id,
                       char *argv[DEVICES_MAX_ARGS], char store[DEVICES_MAX_ARGS][4200]);

/* The exit status of several children as one: a signal, then a bad command line or INI, no GPU,
   failed rows, success. */
int devices_exit_status(const int *rcs, int n);

/* The command. The merged folder's meta.ini gets [phases]: the children's, summed, and this klab's
   own wall time (merge.h drops the sources' own). */
int devices_run(const devices_opts *o);

#endif
