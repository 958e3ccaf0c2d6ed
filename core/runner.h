/* What a worker does: the jobs that touch plugins and the GPU. A job reports only through messages
 * (wire.h), whether it runs in a forked worker (the default) or in the parent (--no-isolate), so
 * the parent handles both alike and is the only writer of files.
 *
 * Behind this interface: jobs.c (job_execute and the jobs, top-down), session.c (a session and its
 * units: set up, verify, time, tear down), results.c (a row's arithmetic), copy_ref.c (klab's copy,
 * the bandwidth ceiling), case_instance.c (one plugin set up for one unit). */
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
    char tune_cache[4096]; /* a plain run's tuning cache (tune_cache.h); "": none */
    char run_id[64];
    int profile_pass; /* --with-profiling's pass under ncu: each verified entry launched once inside the
                         NVTX range ncu profiles (profiling.h), nothing timed */
} job;

typedef struct job_out {
    int (*send)(void *user, wire_type type, const void *payload, uint32_t length);
    void *user;
} job_out;

/* Work timed beside a plugin's profiles, in the same rounds, that is not a plugin: PyTorch called
   through libklab_bench (tools/torch_rows.py). */
#define MAX_EXTERNAL 8
typedef struct external_subject {
    char label[64];
    /* Enqueues one execution on `s`; 0 or -1. */
    int (*launch)(void *user, klab_stream s);
    /* Runs it once and gives its output (device pointer, klab_dtype, element count) to be compared with
       the case's float64 reference; 0 or -1. NULL: the row says not-verified. */
    int (*result)(void *user, void **ptr, int *dtype, size_t *count);
    /* MAY be NULL: make copies 1..n-1 of the callable's inputs (same contents) so a batch rotates
       through them as a profile's does; sets *footprint to the bytes of all n. 0, or -1: the batch then
       reuses one set and the row says so. With it, launch_copy replaces launch. */
    int (*replicate)(void *user, int n, double *footprint);
    int (*launch_copy)(void *user, klab_stream s, int replica);
    void *user;
} external_subject;

/* A plugin loaded on a device with its timing environment, and one unit of it at a time:
     unit_begin   sets up the case, computes the reference, verifies each selected profile
     unit_tensor  a tensor of the unit, for an external subject to compute on the same data
     unit_add_external  verifies an external subject and adds it to the unit's timing
     unit_finish  times every verified subject in interleaved rounds, sends the rows, tears down;
                  -1 when the CUDA context was lost (the process must end)
   job_execute(JOB_RUN) is this loop over the INI's units; libklab_bench drives it from Python. */
typedef struct run_session run_session;
typedef struct run_unit run_unit;
run_session *session_open(const job *j, const job_out *out, int *fatal);
void session_close(run_session *s);
klab_stream run_session_stream(const run_session *s);
run_unit *unit_begin(run_session *s, int unit, const cfg_case *c, klab_dtype dtype);
int unit_ready(const run_unit *u); /* set up, referenced and verified */
int unit_tensor(const run_unit *u, const char *name, void **dev, klab_dtype *dtype, size_t *count);
int unit_add_external(run_unit *u, const external_subject *e);
int unit_finish(run_unit *u);

/* Runs the job; returns the worker's exit code: 0, WIRE_EXIT_CONTEXT_LOST, or 1 after a FATAL. */
int job_execute(const job *j, const job_out *out);

/* The (case, dtype) units a filter selects (its shard's only, under --shard), in the order a worker
   runs them. Returns how many; with u >= 0, also sets *case_index and *dtype of unit u. */
int job_units(const cfg_experiment *cfg, const run_filter *f, int u, int *case_index, klab_dtype *dtype);

/* 1 if the filter keeps this profile name for this case. */
int job_keeps_profile(const cfg_case *c, const run_filter *f, const char *profile);

#endif
