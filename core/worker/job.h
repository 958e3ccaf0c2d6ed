/* A job: what the parent asks a worker to do (probe, describe, validate, run, self-test), with the
 * experiment, the filter that selects its units and the timing options. Filled by the command line
 * (app/) or libklab_bench (bench/), carried to the worker by fork. */
#ifndef KLAB_JOB_H
#define KLAB_JOB_H

#include <stdint.h>

#include "config/ini_config.h"
#include "timing/timing.h"

typedef enum job_kind {
    JOB_PROBE,     /* the GPU and the timer's floors */
    JOB_DESCRIBE,  /* load a plugin and summarise its descriptor (no GPU) */
    JOB_VALIDATE,  /* check an INI against the plugin's descriptor (no GPU) */
    JOB_RUN,       /* verify and time every unit of an experiment */
    JOB_SELF_TEST  /* the timer against spins of known length */
} job_kind;

#define FILTER_MAX 32

/* A unit's entries, each a (profile, configuration) verified, timed and reported as one row: one per
   selected profile in a plain run; in a tune run also one per configuration of a tuning space, the
   first this many kept. */
#define UNIT_MAX_ENTRIES 96

typedef struct run_filter {
    int ncases;
    char cases[FILTER_MAX][64];
    uint32_t dtypes; /* 0: all */
    int nprofiles;
    char profiles[FILTER_MAX][64];
    int shard_k, shard_n; /* --shard K/N (shard.h): only slice K of N; shard_n 0: every unit */
} run_filter;

typedef struct job {
    job_kind kind;
    char plugin_path[4096];
    char plugin_name[64];
    const cfg_experiment *cfg;
    run_filter filter;
    timing_opts topts;
    int device;
    int start_unit; /* resume here after a worker died */
    int verify_only; /* set up, verify, tear down: no timing (for compute-sanitizer and quick checks) */
    int tune;        /* run: every configuration of each tuning space is an entry of its own;
                        validate: each case's configurations are listed */
    int verbose;     /* validate with tune: every configuration a line; else a case's spaces in its one line */
    char tune_cache[4096]; /* a plain run's tuning cache (tune_cache.h); "": none */
    char run_id[64];
    int profile_pass; /* --with-profiling's pass under ncu: each verified entry launched once inside the
                         NVTX range ncu profiles (profiling.h), nothing timed */
    int quick;        /* --quick: sampling cut short (stop_rule_for_run), every row flagged quick */
    double budget_ms; /* --budget-ms: every case's sampling budget; 0: the INI's */
} job;

#endif
