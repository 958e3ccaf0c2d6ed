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

void lab_phase_mark(job_state *s, const char *next)
{
    if (!s->phases)
        return;
    double now = s->clock_ms ? s->clock_ms() : phases_clock_ms();
    if (s->phase_open && now > s->phase_t0)
        phases_add(s->phases, s->label ? s->label : "?", s->open_phase, now - s->phase_t0);
    s->phase_open = next != NULL;
    if (next) {
        snprintf(s->open_phase, sizeof s->open_phase, "%s", next);
        s->phase_t0 = now;
    }
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
        lab_phase_mark(s, NULL); /* "start", or a teardown whose unit sent no row */
        if (s->in_unit)
            lab_unit_done(s); /* a unit's rows come before the next unit begins */
        memcpy(&s->unit, payload, sizeof s->unit);
        s->in_unit = 1;
        s->unit_rows = 0;
        snprintf(s->phase, sizeof s->phase, "start");
        break;
    case WIRE_PHASE:
        snprintf(s->phase, sizeof s->phase, "%s", ((const wire_text *)payload)->text);
        lab_phase_mark(s, s->phase);
        progress(s);
        break;
    case WIRE_ROW:
        lab_phase_mark(s, NULL); /* the rows come as one burst after teardown */
        lab_add_row(s, payload);
        s->unit_rows++;
        break;
    case WIRE_NOTE:
        if (s->notes_dropped)
            break;
        if (s->notes_to_stdout) {
            text_printf(stdout, "%s\n", ((const wire_text *)payload)->text);
        } else {
            if (s->label && isatty(STDERR_FILENO))
                fputs("\r\033[K", stderr);
            text_printf(stderr, "note: %s\n", ((const wire_text *)payload)->text);
        }
        break;
    case WIRE_DONE:
        lab_phase_mark(s, NULL);
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

void lab_fail_unit(job_state *s, const job *j, const wire_unit *u, int reported, const char *reason)
{
    for (int k = 0; k < u->nprofiles; k++) {
        int done = 0;
        for (int r = s->nrows - reported; r < s->nrows; r++)
            done |= strcmp(s->rows[r].profile, u->profiles[k]) == 0;
        if (done)
            continue;
        klab_row r;
        memset(&r, 0, sizeof r);
        snprintf(r.run_id, sizeof r.run_id, "%s", j->run_id);
        snprintf(r.plugin, sizeof r.plugin, "%s", j->plugin_name);
        snprintf(r.kcase, sizeof r.kcase, "%s", u->kcase);
        snprintf(r.shape, sizeof r.shape, "%s", u->shape);
        snprintf(r.dtype, sizeof r.dtype, "%s", u->dtype);
        snprintf(r.profile, sizeof r.profile, "%s", u->profiles[k]);
        snprintf(r.l2, sizeof r.l2, "%s", j->topts.mode == TIMING_HOT ? "hot" : "cold");
        snprintf(r.launch, sizeof r.launch, "%s", j->topts.mode == TIMING_BATCHED ? "batched" : "stream");
        r.seed = j->topts.seed;
        if (s->have_device)
            row_set_gpu(&r, s->device.info.ordinal, s->device.info.name, s->device.info.uuid);
        row_fail(&r, ROW_FAILED, "%s", reason);
        if (j->quick)
            row_add_flag(&r, ROW_FLAG_QUICK); /* the run's rows are quick, whoever made them */
        lab_add_row(s, &r);
    }
}

/* -1 also when SIGINT/SIGTERM stopped (or forbade) the worker: the caller then ends with lab_interrupted(). */
int lab_spawn(const job *j, const cli_opts *o, double timeout_s, job_state *s, worker_outcome *w)
{
    supervise_hooks hooks = {lab_on_message, s};
    lab_phase_mark(s, "start"); /* fork, CUDA context, plugin load: until its first unit */
    int rc = supervise(j, o->isolate, timeout_s, &hooks, w);
    lab_phase_mark(s, NULL); /* a worker that died in a phase: the time until then is that phase's */
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
