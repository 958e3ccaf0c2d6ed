/* A unit's entries: which (profile, configuration) pairs one case and dtype verifies, times and reports
 * as rows, and which configuration each runs. Pure: the descriptor's profiles and tuning spaces, the
 * case, the selection and the tuning cache decide, before anything is set up or launched, so
 * `klab --tune --validate` lists what a tune run would time without a GPU.
 *
 *   a plain run   one entry per selected profile; its configuration is the case's `config`, else the
 *                 tuning cache's, else the plugin's own choice (-1)
 *   a tune run    a profile with a tuning space has one entry for its own choice and one per
 *                 configuration (trials: their configuration is fixed); one without, a plain entry */
#ifndef KLAB_UNIT_ENTRIES_H
#define KLAB_UNIT_ENTRIES_H

#include "host/loader.h"
#include "worker/job.h"

typedef struct unit_entry {
    int prof;        /* index into the plugin's profiles */
    int config;      /* index into the profile's tuning space, or -1: the plugin's own choice */
    int trial;       /* a tune run's: the configuration is fixed, not picked */
    char label[200]; /* "tiled threads=128" for a trial, else the profile's name */
} unit_entry;

/* Configurations a tuning space is searched through (for a name, or counted). */
#define UNIT_MAX_CONFIGS 100000

/* The entries of case c (built as kcase) into e[0 .. max), grouped by profile in the descriptor's order.
   Every selected profile keeps its own entry; in a tune run the configurations fill the room left, in
   order, and *left_out says how many did not fit. Returns the number of entries. */
int unit_entries_make(const loaded_plugin *lp, const cfg_case *c, const run_filter *f, const klab_case *kcase,
                      int tune, unit_entry *e, int max, int *left_out);

/* Configurations in a profile's tuning space for this case (0: none, or no space). */
int unit_space_size(const klab_profile *pr, const klab_case *kcase);

/* Where a plain entry's configuration comes from. */
typedef enum config_source {
    CONFIG_OWN,          /* the plugin's own choice: no space, no `config`, nothing cached */
    CONFIG_CASE,         /* the case's `config` */
    CONFIG_NOT_IN_SPACE, /* the case's `config` is not in the space: the row fails */
    CONFIG_CACHE,        /* the tuning cache's (the row is flagged tuned) */
    CONFIG_STALE         /* the cache's is not in the space any more: the own choice runs, a NOTE says so */
} config_source;

/* The configuration a plain entry of profile pr runs: the case's `config` wins over `cached` (the
   tuning cache's config string, or NULL), which wins over the plugin's own choice. *index is the
   configuration (-1: the own choice); *n the space's size when a name was not found in it. */
config_source unit_entry_config(const klab_profile *pr, const klab_case *kcase, const char *case_config,
                                const char *cached, int *index, int *n);

#endif
