/* The parent's side of one worker (lab_worker.c): its messages into rows, the CSV, samples files,
 * notes and progress; what SIGINT/SIGTERM leaves. Shared by the commands (lab.c, lab_run.c). */
#ifndef KLAB_LAB_WORKER_H
#define KLAB_LAB_WORKER_H

#include "app/cli.h"
#include "evidence/csv_sink.h"
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
} job_state;

/* The handler of a worker's messages (supervise_hooks): fills s, adds rows to its table and CSV, writes
   samples files beside the CSV, prints notes and progress. */
void lab_on_message(void *user, const wire_header *h, const void *payload);

/* Unit s->unit's rows are all in the CSV (the worker began the next, ended, or died and the parent
   wrote the rest): its line in the progress file, when s has one. */
void lab_unit_done(job_state *s);

/* A row for the table and, when s has one, the CSV (the parent's own failed rows, too). */
void lab_add_row(job_state *s, const klab_row *r);

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
