/* The parent's side of one worker (lab_worker.c): its messages into rows, the CSV, samples files,
 * notes and progress; what SIGINT/SIGTERM leaves. Shared by the commands (lab.c, lab_run.c). */
#ifndef KLAB_LAB_WORKER_H
#define KLAB_LAB_WORKER_H

#include "app/cli.h"
#include "evidence/csv_sink.h"
#include "evidence/phases.h"
#include "evidence/progress_file.h"
#include "process/wire.h"
#include "worker/jobs.h"

/* What the parent learns from one worker's messages. */
typedef struct job_state {
    const char *label;    /* for progress lines */
    int have_plugin;
    wire_plugin plugin;
    int refused;
    char refusal[1100];
    int fatal;
    char fatal_msg[1100];
    int have_device;
    wire_device device;
    int done;
    int done_status;
    int in_unit;
    wire_unit unit;
    int unit_rows;
    char phase[32];
    int units_total;
    klab_row *rows; /* every row of the plugin, for the table */
    int nrows, cap;
    csv_sink *sink;
    progress_file progress; /* where each unit's rows end in the sink's file (klab --resume) */
    int notes_to_stdout;
    int notes_dropped; /* neither printed nor said on stderr: a --json document says what matters */
    /* Where the worker's time goes, with `phases` set: each phase from the arrival of the message that
       begins it (lab_spawn: "start"; UNIT; PHASE) to that of the next (UNIT, PHASE, the unit's first
       ROW after teardown, DONE, or the worker's end), added under the plugin `label` names. */
    run_phases *phases;
    double (*clock_ms)(void); /* NULL: CLOCK_MONOTONIC; tests give a clock of their own */
    int phase_open;
    char open_phase[32];
    double phase_t0;
} job_state;

/* The handler of a worker's messages (supervise_hooks): fills s, adds rows to its table and CSV, writes
   samples files beside the CSV, prints notes and progress. */
void lab_on_message(void *user, const wire_header *h, const void *payload);

/* The phase accounting lab_on_message and lab_spawn do: ends the open phase (its time added to
   s->phases), then opens `next` unless it is NULL. Nothing without s->phases. */
void lab_phase_mark(job_state *s, const char *next);

/* Unit s->unit's rows are all in the CSV (the worker began the next, ended, or died and the parent
   wrote the rest): its line in the progress file, when s has one. */
void lab_unit_done(job_state *s);

/* A row for the table and, when s has one, the CSV (the parent's own failed rows, too). */
void lab_add_row(job_state *s, const klab_row *r);

/* The parent's own failed rows for the profiles of unit `u` that have not reported (all of them when
   `reported` is 0), made as j's worker would have made them (flags included) and added with
   lab_add_row. */
void lab_fail_unit(job_state *s, const job *j, const wire_unit *u, int reported, const char *reason);

/* Runs job j in a worker (in this process with --no-isolate), s collecting its messages. 0, or -1 when
   no worker could start, and also when SIGINT/SIGTERM stopped (or forbade) it: the caller then ends with
   lab_interrupted(). */
int lab_spawn(const job *j, const cli_opts *o, double timeout_s, job_state *s, worker_outcome *w);

/* 1 when the worker refused, naming INI file `ini`: the INI asks for what the plugin lacks (the INI's
   fault); any other refusal is the plugin's. */
int lab_refused_for_ini(const job_state *s, const char *ini);

/* After SIGINT/SIGTERM: one line saying so and what became of the evidence; returns 128 + the signal. */
int lab_interrupted(const char *what);
#define WORKER_STOPPED "the worker was stopped; nothing was written"

#endif
