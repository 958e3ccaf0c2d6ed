/* The parent's side of one worker: start it, read its messages into a job_state (rows to the table and
 * the CSV, notes, progress), and what to say when SIGINT/SIGTERM stopped it. */
#include "app/lab_worker.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "process/samples_file.h"
#include "util/text.h"

static void progress(const job_state *s)
{
    if (!s->label)
        return;
    if (isatty(STDERR_FILENO))
        fprintf(stderr, "\r\033[K[%s %d/%d] %s %s %s", s->label, s->unit.unit + 1, s->units_total, s->unit.kcase,
                s->unit.dtype, s->phase);
    else if (strcmp(s->phase, "setup") == 0)
        fprintf(stderr, "[%s %d/%d] %s %s\n", s->label, s->unit.unit + 1, s->units_total, s->unit.kcase,
                s->unit.dtype);
}

void lab_add_row(job_state *s, const klab_row *r)
{
    row_push(&s->rows, &s->nrows, &s->cap, r); /* for the table; the CSV gets it regardless */
    if (s->sink && s->sink->fp)
        csv_sink_row(s->sink, r);
}

void lab_unit_done(job_state *s)
{
    char err[1200];
    if (s->sink && progress_mark_unit(&s->progress, s->sink, s->unit.unit, s->unit.kcase, s->unit.dtype, err,
                                      sizeof err) != 0) {
        /* the run goes on; a resume of it would only redo units from the last line written */
        text_printf(stderr, "klab: %s\n", err);
        progress_close(&s->progress, 0);
    }
}

void lab_on_message(void *user, const wire_header *h, const void *payload)
{
    job_state *s = user;
    switch ((wire_type)h->type) {
    case WIRE_PLUGIN:
        memcpy(&s->plugin, payload, sizeof s->plugin);
        s->have_plugin = 1;
        break;
    case WIRE_REFUSED:
        s->refused = 1;
        snprintf(s->refusal, sizeof s->refusal, "%s", ((const wire_text *)payload)->text);
        break;
    case WIRE_FATAL:
        s->fatal = 1;
        snprintf(s->fatal_msg, sizeof s->fatal_msg, "%s", ((const wire_text *)payload)->text);
        break;
    case WIRE_DEVICE:
        memcpy(&s->device, payload, sizeof s->device);
        s->have_device = 1;
        break;
    case WIRE_UNIT:
        if (s->in_unit)
            lab_unit_done(s); /* a unit's rows come before the next unit begins */
        memcpy(&s->unit, payload, sizeof s->unit);
        s->in_unit = 1;
        s->unit_rows = 0;
        snprintf(s->phase, sizeof s->phase, "start");
        break;
    case WIRE_PHASE:
        snprintf(s->phase, sizeof s->phase, "%s", ((const wire_text *)payload)->text);
        progress(s);
        break;
    case WIRE_ROW:
        lab_add_row(s, payload);
        s->unit_rows++;
        break;
    case WIRE_NOTE:
        if (s->notes_to_stdout) {
            text_printf(stdout, "%s\n", ((const wire_text *)payload)->text);
        } else {
            if (s->label && isatty(STDERR_FILENO))
                fputs("\r\033[K", stderr);
            text_printf(stderr, "note: %s\n", ((const wire_text *)payload)->text);
        }
        break;
    case WIRE_DONE:
        if (s->in_unit)
            lab_unit_done(s);
        s->done = 1;
        memcpy(&s->done_status, payload, sizeof s->done_status);
        break;
    case WIRE_SAMPLES: { /* beside the CSV; a run without one (a list, a probe) has no rows to sample */
        char err[1200];
        if (s->sink && samples_file_add(s->sink->path, payload, h->length, err, sizeof err) != 0)
            fprintf(stderr, "klab: %s\n", err);
        break;
    }
    default:
        break;
    }
}

/* -1 also when SIGINT/SIGTERM stopped (or forbade) the worker: the caller then ends with lab_interrupted(). */
int lab_spawn(const job *j, const cli_opts *o, double timeout_s, job_state *s, worker_outcome *w)
{
    supervise_hooks hooks = {lab_on_message, s};
    int rc = supervise(j, o->isolate, timeout_s, &hooks, w);
    if (rc != 0 && !w->interrupted)
        fprintf(stderr, "klab: cannot start a worker process\n");
    return rc != 0 || w->interrupted ? -1 : 0;
}

int lab_interrupted(const char *what)
{
    int sig = supervise_interrupted();
    fprintf(stderr, "%sklab: interrupted by %s: %s\n", isatty(STDERR_FILENO) ? "\r\033[K" : "",
            sig == SIGINT ? "SIGINT" : "SIGTERM", what);
    return EXIT_SIGNALED + sig;
}

int lab_refused_for_ini(const job_state *s, const char *ini)
{
    return s->refused && strncmp(s->refusal, ini, strlen(ini)) == 0;
}
