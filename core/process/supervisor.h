/* Runs a job in a worker process and watches it: a crash, a non-zero exit, a broken message or a
 * silence costs the unit it happened in, never the parent. CUDA is initialised only in the worker
 * (the parent never calls it before forking). The worker dies with the parent (PR_SET_PDEATHSIG, and
 * it stops at its first failed write), and SIGINT/SIGTERM to the parent stop the worker first (see
 * supervise_trap_signals). With isolation off (--no-isolate) the job runs in this process and the
 * same message handler sees its messages, so cuda-gdb and compute-sanitizer can follow it. */
#ifndef KLAB_SUPERVISOR_H
#define KLAB_SUPERVISOR_H

#include "process/wire.h"

typedef struct supervise_hooks {
    /* Called for every message, in order; its payload has the size wire_payload_size gives its type. */
    void (*on_message)(void *user, const wire_header *h, const void *payload);
    void *user;
} supervise_hooks;

typedef struct worker_outcome {
    int exit_code;     /* valid when none of the flags below is set */
    int signaled;
    int signal;
    int timed_out;
    double timeout_s;
    int context_lost;  /* it sent LOST and exited with WIRE_EXIT_CONTEXT_LOST */
    int broken;        /* it sent a message that is not one of this protocol: killed */
    char broken_why[160];
    int interrupted;   /* SIGINT or SIGTERM reached the parent: the worker was killed (the signal) */
} worker_outcome;

/* What a worker runs: sends its messages through `out`, returns its exit code (WIRE_EXIT_CONTEXT_LOST
   after a lost context). */
typedef int (*worker_fn)(void *arg, const job_out *out);

/* Runs fn(arg) in a worker (in this process when !isolate). The watchdog times silence: it restarts
   at the start and at every message, and kills a worker that sends nothing for `timeout_s` seconds
   (0: never). Returns 0 with *out filled, or -1 when no worker could be started; also -1, with
   out->interrupted set, when SIGINT/SIGTERM had already arrived (no worker is started then). */
int supervise_fn(worker_fn fn, void *arg, int isolate, double timeout_s, const supervise_hooks *h,
                 worker_outcome *out);

/* "killed by SIGSEGV", "exited with status 3", "timed out after 30 s of silence", "CUDA context
   lost", "sent a ROW of 12 bytes, expected 2632 (killed)"; "" for a clean exit 0. */
void worker_outcome_text(const worker_outcome *o, char *buf, size_t len);

/* Installs the parent's SIGINT and SIGTERM handlers: the first signal kills the running worker
   (SIGKILL) and is remembered, so that no further worker starts and the command can say it was
   interrupted and exit with 128 + the signal; a second signal ends klab at once (default action).
   Only for isolated runs: with --no-isolate the job runs in this process and only a default action
   would stop it. Returns 0 or -1 (errno). */
int supervise_trap_signals(void);

/* 0, or the signal (SIGINT, SIGTERM) that asked klab to stop. */
int supervise_interrupted(void);

#endif
