/* Runs a job in a worker process and watches it: a crash, a non-zero exit or a hang costs the unit
 * it happened in, never the parent. CUDA is initialised only in the worker (the parent never calls
 * it before forking). With isolation off (--no-isolate) the job runs in this process and the same
 * message handler sees its messages, so cuda-gdb and compute-sanitizer can follow it. */
#ifndef KLAB_SUPERVISOR_H
#define KLAB_SUPERVISOR_H

#include "runner.h"
#include "wire.h"

typedef struct supervise_hooks {
    /* Called for every message, in order. */
    void (*on_message)(void *user, const wire_header *h, const void *payload);
    void *user;
} supervise_hooks;

typedef struct worker_outcome {
    int exit_code;  /* valid when !signaled && !timed_out */
    int signaled;
    int signal;
    int timed_out;
    double timeout_s;
} worker_outcome;

/* The watchdog restarts at the start and at every UNIT message: `timeout_s` is per (case, dtype). */
int supervise(const job *j, int isolate, double timeout_s, const supervise_hooks *h, worker_outcome *out);

/* "killed by SIGSEGV", "exited with status 3", "timed out after 30 s"; "" for a clean exit 0. */
void worker_outcome_text(const worker_outcome *o, char *buf, size_t len);

#endif
