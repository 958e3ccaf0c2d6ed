/* The jobs a worker runs (jobs.c), and the parent's way to run one in a watched worker process. */
#ifndef KLAB_JOBS_H
#define KLAB_JOBS_H

#include "process/supervisor.h"
#include "worker/job.h"

/* Runs the job; returns the worker's exit code: 0, WIRE_EXIT_CONTEXT_LOST, or 1 after a FATAL. */
int job_execute(const job *j, const job_out *out);

/* supervise_fn (supervisor.h) with job_execute(j). */
int supervise(const job *j, int isolate, double timeout_s, const supervise_hooks *h, worker_outcome *out);

#endif
