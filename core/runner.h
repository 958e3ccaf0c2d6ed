/* What a worker does: the jobs that touch plugins and the GPU. A job reports only through messages
 * (wire.h), whether it runs in a forked worker (the default) or in the parent (--no-isolate), so
 * the parent handles both alike and is the only writer of files. */
#ifndef KLAB_RUNNER_H
#define KLAB_RUNNER_H

#include <stdint.h>

#include "ini_config.h"
#include "timing.h"
#include "wire.h"

typedef enum job_kind {
    JOB_PROBE,     /* the GPU and the timer's floors */
    JOB_DESCRIBE,  /* load a plugin and summarise its descriptor (no GPU) */
    JOB_VALIDATE,  /* check an INI against the plugin's descriptor (no GPU) */
    JOB_RUN,       /* verify and time every unit of an experiment */
    JOB_SELF_TEST  /* the timer against spins of known length */
} job_kind;

#define FILTER_MAX 32

typedef struct run_filter {
    int ncases;
    char cases[FILTER_MAX][64];
    uint32_t dtypes; /* 0: all */
    int nprofiles;
    char profiles[FILTER_MAX][64];
} run_filter;

typedef struct job {
    job_kind kind;
    char plugin_path[4096];
    char plugin_name[64];
    char ceiling_path[4096]; /* vector_add.so, whose copy gives "fraction of limit"; "" if none */
    const cfg_experiment *cfg;
    run_filter filter;
    timing_opts topts;
    int device;
    int start_unit; /* resume here after a worker died */
    char run_id[64];
} job;

typedef struct job_out {
    int (*send)(void *user, wire_type type, const void *payload, uint32_t length);
    void *user;
} job_out;

/* Runs the job; returns the worker's exit code: 0, WIRE_EXIT_CONTEXT_LOST, or 1 after a FATAL. */
int job_execute(const job *j, const job_out *out);

/* The (case, dtype) units a filter selects, in the order a worker runs them. Returns how many; with
   u >= 0, also sets *case_index and *dtype of unit u. */
int job_units(const cfg_experiment *cfg, const run_filter *f, int u, int *case_index, klab_dtype *dtype);

/* 1 if the filter keeps this profile name for this case. */
int job_keeps_profile(const cfg_case *c, const run_filter *f, const char *profile);

#endif
