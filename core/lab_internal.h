/* What the parent's command files share (lab.c, lab_run.c): the parent's side of one worker
 * (lab_worker.c) and the plugins a command works on (lab.c). Internal: lab.h is the commands' face. */
#ifndef KLAB_LAB_INTERNAL_H
#define KLAB_LAB_INTERNAL_H

#include "cli.h"
#include "csv_sink.h"
#include "discovery.h"
#include "supervisor.h"
#include "wire.h"

/* ---- the parent's side of one worker (lab_worker.c) ---- */

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
    int notes_to_stdout;
} job_state;

/* The handler of a worker's messages (supervise_hooks): fills s, adds rows to its table and CSV, writes
   samples files beside the CSV, prints notes and progress. */
void lab_on_message(void *user, const wire_header *h, const void *payload);

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

/* ---- the plugins a command works on (lab.c) ---- */

/* The plugin folders of --plugin-path, KLAB_PLUGIN_PATH and the defaults, scanned. */
void lab_discover(const cli_opts *o, discovery *d);

/* --plugin's names (each must exist; -1 after saying which does not), else every plugin found. */
int lab_select_plugins(const cli_opts *o, const discovery *d, const found_plugin **sel, int *n);

#endif
