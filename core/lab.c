#include "lab.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "csv_sink.h"
#include "discovery.h"
#include "dtype.h"
#include "ini_config.h"
#include "run_meta.h"
#include "samples_file.h"
#include "supervisor.h"
#include "table.h"
#include "text.h"
#include "version.h"

/* ---- what the parent learns from one worker ---- */

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

static void add_row(job_state *s, const klab_row *r)
{
    row_push(&s->rows, &s->nrows, &s->cap, r); /* for the table; the CSV gets it regardless */
    if (s->sink && s->sink->fp)
        csv_sink_row(s->sink, r);
}

static void on_message(void *user, const wire_header *h, const void *payload)
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
        add_row(s, payload);
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

/* -1 also when SIGINT/SIGTERM stopped (or forbade) the worker: the caller then ends with interrupted(). */
static int spawn(const job *j, const cli_opts *o, double timeout_s, job_state *s, worker_outcome *w)
{
    supervise_hooks hooks = {on_message, s};
    int rc = supervise(j, o->isolate, timeout_s, &hooks, w);
    if (rc != 0 && !w->interrupted)
        fprintf(stderr, "klab: cannot start a worker process\n");
    return rc != 0 || w->interrupted ? -1 : 0;
}

/* After SIGINT/SIGTERM: one line saying so and what became of the evidence; 128 + the signal. */
static int interrupted(const char *what)
{
    int sig = supervise_interrupted();
    fprintf(stderr, "%sklab: interrupted by %s: %s\n", isatty(STDERR_FILENO) ? "\r\033[K" : "",
            sig == SIGINT ? "SIGINT" : "SIGTERM", what);
    return EXIT_SIGNALED + sig;
}
#define WORKER_STOPPED "the worker was stopped; nothing was written"

static void set_discovery(const cli_opts *o, discovery *d)
{
    discovery_init(d, o->plugin_paths, o->npaths, o->ini_dir[0] ? o->ini_dir : NULL);
    discovery_scan(d);
}

/* The plugins a command works on: --plugin's names (each must exist), else every one found. */
static int select_plugins(const cli_opts *o, const discovery *d, const found_plugin **sel, int *n)
{
    *n = 0;
    if (o->nplugins == 0) {
        for (int i = 0; i < d->nplugins; i++)
            sel[(*n)++] = &d->plugins[i];
        return 0;
    }
    for (int i = 0; i < o->nplugins; i++) {
        const found_plugin *f = discovery_find(d, o->plugins[i]);
        if (!f) {
            text_printf(stderr, "klab: no plugin '%s' found (found:", o->plugins[i]);
            for (int k = 0; k < d->nplugins; k++)
                text_printf(stderr, " %s", d->plugins[k].name);
            fprintf(stderr, "%s); see klab --list\n", d->nplugins ? "" : " none");
            return -1;
        }
        sel[(*n)++] = f;
    }
    return 0;
}

/* ---- klab --list ---- */

int lab_list(const cli_opts *o)
{
    discovery d;
    set_discovery(o, &d);
    printf("plugin folders searched:");
    for (int i = 0; i < d.ndirs; i++)
        printf(" %s", d.dirs[i]);
    printf("\n");
    if (d.nplugins == 0) {
        printf("no plugins found\n");
        return EXIT_FAILED_ROWS;
    }
    const found_plugin *sel[DISC_MAX_PLUGINS];
    int n, refused = 0;
    if (select_plugins(o, &d, sel, &n) != 0)
        return EXIT_USAGE;
    for (int i = 0; i < n; i++) {
        job j;
        memset(&j, 0, sizeof j);
        j.kind = JOB_DESCRIBE;
        snprintf(j.plugin_path, sizeof j.plugin_path, "%s", sel[i]->path);
        snprintf(j.plugin_name, sizeof j.plugin_name, "%s", sel[i]->name);
        job_state s;
        memset(&s, 0, sizeof s);
        worker_outcome w;
        if (spawn(&j, o, o->timeout_s, &s, &w) != 0)
            return supervise_interrupted() ? interrupted(WORKER_STOPPED) : EXIT_FAILED_ROWS;
        char how[128];
        worker_outcome_text(&w, how, sizeof how);
        if (!s.have_plugin || s.refused || !s.done) {
            refused++;
            text_printf(stdout, "\n  REFUSED %s: %s\n", sel[i]->path,
                        s.refused ? s.refusal : how[0] ? how : "the worker ended without describing it");
            if (how[0] && s.refused == 0)
                printf("          (it crashed while loading: its library constructor or %s)\n", KLAB_ENTRY_SYMBOL);
            continue;
        }
        const wire_plugin *p = &s.plugin;
        char ini[4200];
        int has_ini = discovery_ini(&d, p->name, ini, sizeof ini) == 0;
        text_printf(stdout, "\n  %-14s %s  (plugin ABI %u.%u)\n      %s\n", p->name, p->version, p->abi_major,
                    p->abi_minor, p->summary);
        for (int k = 0; k < p->nprofiles; k++)
            text_printf(stdout, "      profile %-12s %s%s\n", p->profiles[k], p->profile_summary[k],
                        strcmp(p->profiles[k], p->baseline) == 0 ? "  [baseline]" : "");
        printf("      dtypes:");
        for (int k = 0; k < KLAB_DTYPE_COUNT; k++)
            if (p->dtypes & KLAB_DTYPE_BIT(k))
                printf(" %s", dtype_name((klab_dtype)k));
        if (p->min_cc)
            printf("   needs compute capability %d.%d or newer", p->min_cc / 10, p->min_cc % 10);
        if (p->params[0])
            text_printf(stdout, "   params: %s", p->params);
        text_printf(stdout, "\n      file: %s\n      ini:  %s\n", p->path,
                    has_ini ? ini : "(none: it runs only with --config FILE)");
        if (sel[i]->shadows[0])
            text_printf(stdout, "      shadows: %s\n", sel[i]->shadows);
    }
    printf("\n%d plugin%s, %d refused\n", n - refused, n - refused == 1 ? "" : "s", refused);
    return refused ? EXIT_FAILED_ROWS : EXIT_OK;
}

/* ---- klab --validate ---- */

static int validate_one(const cli_opts *o, const char *ini, const discovery *d, int *bad_ini, int *bad_plugin)
{
    static cfg_experiment cfg;
    char err[1200];
    if (cfg_load(ini, &cfg, err, sizeof err) != 0) {
        text_printf(stdout, "INVALID %s\n", err);
        (*bad_ini)++;
        return -1;
    }
    const found_plugin *f = discovery_find(d, cfg.plugin);
    if (!f) {
        text_printf(stdout, "INVALID %s:%d: [experiment] key 'plugin': no plugin '%s' found (see klab --list)\n",
                    ini, cfg.plugin_line, cfg.plugin);
        (*bad_ini)++;
        return -1;
    }
    job j;
    memset(&j, 0, sizeof j);
    j.kind = JOB_VALIDATE;
    j.cfg = &cfg;
    snprintf(j.plugin_path, sizeof j.plugin_path, "%s", f->path);
    snprintf(j.plugin_name, sizeof j.plugin_name, "%s", f->name);
    job_state s;
    memset(&s, 0, sizeof s);
    s.notes_to_stdout = 1;
    text_printf(stdout, "%s (%s)\n", ini, cfg.plugin);
    worker_outcome w;
    if (spawn(&j, o, o->timeout_s, &s, &w) != 0)
        return -1;
    char how[128];
    worker_outcome_text(&w, how, sizeof how);
    if (s.refused) {
        /* a refusal that names the INI is the INI's fault; anything else is the plugin's */
        int ini_fault = strncmp(s.refusal, ini, strlen(ini)) == 0;
        text_printf(stdout, "INVALID %s\n", s.refusal);
        (*(ini_fault ? bad_ini : bad_plugin))++;
        return -1;
    }
    if (!s.done) {
        text_printf(stdout, "FAILED  %s: the worker %s while checking it\n", f->path, how[0] ? how : "stopped");
        (*bad_plugin)++;
        return -1;
    }
    text_printf(stdout, "ok      %s\n", ini);
    return 0;
}

int lab_validate(const cli_opts *o)
{
    discovery d;
    set_discovery(o, &d);
    int bad_ini = 0, bad_plugin = 0, checked = 0;
    if (o->config[0]) {
        validate_one(o, o->config, &d, &bad_ini, &bad_plugin);
        checked++;
        if (supervise_interrupted())
            return interrupted(WORKER_STOPPED);
    } else {
        const found_plugin *sel[DISC_MAX_PLUGINS];
        int n;
        if (select_plugins(o, &d, sel, &n) != 0)
            return EXIT_USAGE;
        for (int i = 0; i < n; i++) {
            char ini[4200];
            if (discovery_ini(&d, sel[i]->name, ini, sizeof ini) != 0) {
                printf("note    %s has no %s.ini: it runs only with --config FILE\n", sel[i]->path, sel[i]->name);
                continue;
            }
            validate_one(o, ini, &d, &bad_ini, &bad_plugin);
            checked++;
            if (supervise_interrupted())
                return interrupted(WORKER_STOPPED);
        }
    }
    printf("\n%d INI file%s checked: %d invalid, %d plugin%s refused\n", checked, checked == 1 ? "" : "s",
           bad_ini, bad_plugin, bad_plugin == 1 ? "" : "s");
    return bad_ini ? EXIT_USAGE : bad_plugin ? EXIT_FAILED_ROWS : EXIT_OK;
}

/* ---- klab (run) ---- */

static int probe(const cli_opts *o, wire_device *dev)
{
    job j;
    memset(&j, 0, sizeof j);
    j.kind = JOB_PROBE;
    j.device = o->device;
    job_state s;
    memset(&s, 0, sizeof s);
    worker_outcome w;
    if (spawn(&j, o, o->timeout_s, &s, &w) != 0)
        return supervise_interrupted() ? interrupted(WORKER_STOPPED) : EXIT_FAILED_ROWS;
    if (s.have_device && s.done) {
        *dev = s.device;
        return EXIT_OK;
    }
    char how[128];
    worker_outcome_text(&w, how, sizeof how);
    fprintf(stderr, "klab: %s.\nklab: timing needs a GPU; without one, klab --list, klab --validate and "
                    "klab report DIR still work.\n",
            s.fatal ? s.fatal_msg : how[0] ? how : "the GPU probe ended without an answer");
    return EXIT_NO_GPU;
}

/* Failed rows for the profiles of unit `u` that have not reported (all of them when `reported` is 0). */
static void fail_unit(job_state *s, const job *j, const wire_unit *u, int reported, const char *reason)
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
        row_fail(&r, ROW_FAILED, "%s", reason);
        add_row(s, &r);
    }
}

/* Unit k as a worker would announce it, from the INI and the plugin's profiles. */
static void describe_unit(const job *j, const wire_plugin *p, int k, wire_unit *u)
{
    int ci;
    klab_dtype dt;
    job_units(j->cfg, &j->filter, k, &ci, &dt);
    const cfg_case *c = &j->cfg->cases[ci];
    memset(u, 0, sizeof *u);
    u->unit = k;
    snprintf(u->kcase, sizeof u->kcase, "%s", c->name);
    snprintf(u->shape, sizeof u->shape, "%s", c->shape);
    snprintf(u->dtype, sizeof u->dtype, "%s", dtype_name(dt));
    for (int i = 0; i < p->nprofiles; i++)
        if (job_keeps_profile(c, &j->filter, p->profiles[i]))
            snprintf(u->profiles[u->nprofiles++], sizeof u->profiles[0], "%s", p->profiles[i]);
}

typedef struct run_totals {
    int plugins, refused, rows, bad_rows, bad_ini;
    int stopped; /* the exit status after SIGINT/SIGTERM, 0 before */
} run_totals;

static void run_plugin(const cli_opts *o, const found_plugin *f, const cfg_experiment *cfg,
                       const char *run_dir, const char *run_id, uint64_t seed, run_totals *t)
{
    job j;
    memset(&j, 0, sizeof j);
    j.kind = JOB_RUN;
    j.cfg = cfg;
    j.filter = o->filter;
    j.device = o->device;
    j.verify_only = o->verify_only;
    snprintf(j.run_id, sizeof j.run_id, "%s", run_id);
    snprintf(j.plugin_path, sizeof j.plugin_path, "%s", f->path);
    snprintf(j.plugin_name, sizeof j.plugin_name, "%s", f->name);
    j.topts.mode = o->hot ? TIMING_HOT : o->batched ? TIMING_BATCHED : TIMING_PLAIN;
    j.topts.throttle = o->throttle;
    j.topts.seed = seed;
    j.topts.escape_checks = 5;

    char csv[4400], err[1200];
    snprintf(csv, sizeof csv, "%s/%s.csv", run_dir, f->name);
    csv_sink sink;
    if (csv_sink_open(&sink, csv, err, sizeof err) != 0) {
        fprintf(stderr, "klab: %s\n", err);
        t->refused++;
        return;
    }
    job_state s;
    memset(&s, 0, sizeof s);
    s.label = f->name;
    s.sink = &sink;
    s.units_total = job_units(cfg, &o->filter, -1, NULL, NULL);
    t->plugins++;
    for (;;) {
        s.in_unit = 0;
        s.done = 0;
        worker_outcome w;
        if (spawn(&j, o, o->timeout_s, &s, &w) != 0)
            break;
        char how[128];
        worker_outcome_text(&w, how, sizeof how);
        if (j.start_unit > 0 && !s.done && !s.in_unit) {
            /* the fresh worker after a failed unit did not reach its first case: say so for each */
            char reason[1300];
            snprintf(reason, sizeof reason, "not run: the worker started after an earlier case failed %s before this case%s%s",
                     how[0] ? how : "stopped", s.fatal || s.refused ? ": " : "",
                     s.fatal ? s.fatal_msg : s.refused ? s.refusal : "");
            for (int k = j.start_unit; k < s.units_total && s.have_plugin; k++) {
                wire_unit wu;
                describe_unit(&j, &s.plugin, k, &wu);
                fail_unit(&s, &j, &wu, 0, reason);
            }
            break;
        }
        if (s.refused || s.fatal || !s.in_unit) {
            if (!s.done && !s.refused && !s.fatal)
                snprintf(s.refusal, sizeof s.refusal, "%s: the worker %s before its first case", f->path,
                         how[0] ? how : "stopped");
            if (!s.done) {
                if (isatty(STDERR_FILENO))
                    fputs("\r\033[K", stderr); /* klab's own sequence: past the escaping below */
                text_printf(stderr, "klab: %s REFUSED: %s\n", f->name, s.fatal ? s.fatal_msg : s.refusal);
                t->refused++;
                if (strncmp(s.refusal, cfg->path, strlen(cfg->path)) == 0)
                    t->bad_ini++; /* the plugin is fine; its INI asks for what it does not have */
            }
            break;
        }
        if (s.done)
            break;
        /* The worker died inside a unit (or lost its context): charge that unit, go on after it. */
        char reason[300];
        snprintf(reason, sizeof reason, "worker %s in %s", how[0] ? how : "stopped", s.phase);
        fail_unit(&s, &j, &s.unit, s.unit_rows, reason);
        j.start_unit = s.unit.unit + 1;
        if (j.start_unit >= s.units_total)
            break;
    }
    if (supervise_interrupted() && !s.done) {
        /* no final CSV: the rows so far stay in the file whose name says it is incomplete */
        char what[9000];
        snprintf(what, sizeof what, "the worker was stopped; %s's rows so far (%d) are in %s, and there is no %s.csv",
                 f->name, sink.rows, sink.partial, f->name);
        fclose(sink.fp);
        t->stopped = interrupted(what);
        free(s.rows);
        return;
    }
    if (isatty(STDERR_FILENO))
        fputs("\r\033[K", stderr);
    if (csv_sink_commit(&sink, err, sizeof err) != 0)
        fprintf(stderr, "klab: %s\n", err);
    if (s.nrows) {
        char title[4600];
        snprintf(title, sizeof title, "%s: %d rows -> %s", f->name, s.nrows, csv);
        table_print(stdout, title, s.rows, s.nrows);
    }
    for (int i = 0; i < s.nrows; i++) {
        const klab_row *r = &s.rows[i];
        t->rows++;
        if (r->status != ROW_PASSED && r->status != ROW_SKIPPED) {
            t->bad_rows++;
            text_printf(stderr, "FAILED %s %s %s %s: %s: %s\n", r->plugin, r->kcase, r->dtype, r->profile,
                        row_status_name(r->status), r->reason);
        }
    }
    free(s.rows);
}

/* on_message without the validation job's notes: its case summaries are for --validate. */
static void on_check_message(void *user, const wire_header *h, const void *payload)
{
    if (h->type != WIRE_NOTE)
        on_message(user, h, payload);
}

/* --validate's check of a parsed INI against its plugin, in a worker that loads the plugin and
   touches no GPU. Returns -1 (printed) when the INI asks for what the plugin lacks; 0 otherwise: a
   plugin that cannot be checked is refused by the run, as before. */
static int check_ini_before_gpu(const cli_opts *o, const found_plugin *f, const cfg_experiment *cfg)
{
    job j;
    memset(&j, 0, sizeof j);
    j.kind = JOB_VALIDATE;
    j.cfg = cfg;
    snprintf(j.plugin_path, sizeof j.plugin_path, "%s", f->path);
    snprintf(j.plugin_name, sizeof j.plugin_name, "%s", f->name);
    job_state s;
    memset(&s, 0, sizeof s);
    supervise_hooks hooks = {on_check_message, &s};
    worker_outcome w;
    if (supervise(&j, o->isolate, o->timeout_s, &hooks, &w) != 0 || !s.refused ||
        strncmp(s.refusal, cfg->path, strlen(cfg->path)) != 0)
        return 0;
    text_printf(stderr, "klab: %s\n", s.refusal);
    return -1;
}

static uint64_t pick_seed(const cli_opts *o)
{
    if (o->seed)
        return o->seed;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t s = (uint64_t)ts.tv_sec * 1000000007ull ^ (uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 32);
    return s ? s : 1;
}

int lab_run(const cli_opts *o)
{
    discovery d;
    set_discovery(o, &d);
    /* Every INI is parsed, and checked against its plugin, before any GPU work: a broken file is
       reported on any machine. */
    static cfg_experiment cfgs[DISC_MAX_PLUGINS];
    const found_plugin *sel[DISC_MAX_PLUGINS];
    int n = 0, bad_ini = 0;
    char err[1200];
    if (o->config[0]) {
        if (cfg_load(o->config, &cfgs[0], err, sizeof err) != 0) {
            text_printf(stderr, "klab: %s\n", err);
            return EXIT_USAGE;
        }
        if (!(sel[0] = discovery_find(&d, cfgs[0].plugin))) {
            text_printf(stderr, "klab: %s:%d: [experiment] key 'plugin': no plugin '%s' found (see klab --list)\n",
                        o->config, cfgs[0].plugin_line, cfgs[0].plugin);
            return EXIT_USAGE;
        }
        if (check_ini_before_gpu(o, sel[0], &cfgs[0]) != 0)
            return EXIT_USAGE;
        n = 1;
    } else {
        const found_plugin *all[DISC_MAX_PLUGINS];
        int na;
        if (select_plugins(o, &d, all, &na) != 0)
            return EXIT_USAGE;
        for (int i = 0; i < na; i++) {
            char ini[4200];
            if (discovery_ini(&d, all[i]->name, ini, sizeof ini) != 0) {
                if (o->nplugins)
                    fprintf(stderr, "klab: %s has no %s.ini (searched --ini-dir, KLAB_INI_PATH, its own folder "
                                    "and ini/); give one with --config FILE\n",
                            all[i]->name, all[i]->name);
                bad_ini += o->nplugins > 0;
                continue;
            }
            if (cfg_load(ini, &cfgs[n], err, sizeof err) != 0) {
                text_printf(stderr, "klab: %s\n", err);
                bad_ini++;
                continue;
            }
            if (check_ini_before_gpu(o, all[i], &cfgs[n]) != 0) {
                bad_ini++;
                continue;
            }
            sel[n++] = all[i];
        }
    }
    if (n == 0) {
        fprintf(stderr, "klab: nothing to run%s\n", bad_ini ? " (see the errors above)" : ": no plugin with an INI found");
        return bad_ini ? EXIT_USAGE : EXIT_FAILED_ROWS;
    }

    wire_device dev;
    int rc = probe(o, &dev);
    if (rc != EXIT_OK)
        return bad_ini ? EXIT_USAGE : rc; /* a bad INI is the first thing to fix, on any machine */

    char run_id[64], started[64], run_dir[4200];
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(started, sizeof started, "%Y-%m-%dT%H:%M:%SZ", &tm);
    if (o->run_id[0])
        snprintf(run_id, sizeof run_id, "%s", o->run_id);
    else {
        char stamp[32];
        strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
        snprintf(run_id, sizeof run_id, "%s-%.7s", stamp, KLAB_GIT_COMMIT);
    }
    snprintf(run_dir, sizeof run_dir, "%s/%s", o->out_dir, run_id);
    if (make_dirs(run_dir) != 0) {
        fprintf(stderr, "klab: cannot create %s\n", run_dir);
        return EXIT_USAGE;
    }
    uint64_t seed = pick_seed(o);
    char meta[4300];
    snprintf(meta, sizeof meta, "%s/meta.ini", run_dir);
    if (run_meta_write(meta, run_id, started, o, seed, &dev, err, sizeof err) != 0)
        fprintf(stderr, "klab: %s\n", err);
    printf("klab %s (%s): run %s on %s (device %d, %d SMs, cc %d.%d), L2 %s, seed %llu\n", KLAB_VERSION,
           KLAB_GIT_COMMIT, run_id, dev.info.name, dev.info.ordinal, dev.info.sms, dev.info.cc / 10, dev.info.cc % 10,
           o->hot ? "hot" : "flushed by a read before each sample", (unsigned long long)seed);

    run_totals t = {0, 0, 0, 0, bad_ini, 0};
    for (int i = 0; i < n && !t.stopped; i++) {
        if (supervise_interrupted()) {
            char what[4400];
            snprintf(what, sizeof what, "stopped before %s; the complete CSVs are in %s", sel[i]->name, run_dir);
            return interrupted(what);
        }
        run_plugin(o, sel[i], &cfgs[i], run_dir, run_id, seed, &t);
    }
    if (t.stopped)
        return t.stopped;

    printf("\nrun %s: %d plugin%s, %d rows, %d not passed, %d refused -> %s\n", run_id, t.plugins,
           t.plugins == 1 ? "" : "s", t.rows, t.bad_rows, t.refused, run_dir);
    if (t.bad_ini)
        return EXIT_USAGE;
    return t.bad_rows || t.refused ? EXIT_FAILED_ROWS : EXIT_OK;
}

int lab_self_test(const cli_opts *o)
{
    job j;
    memset(&j, 0, sizeof j);
    j.kind = JOB_SELF_TEST;
    j.device = o->device;
    j.topts.mode = o->hot ? TIMING_HOT : o->batched ? TIMING_BATCHED : TIMING_PLAIN;
    j.topts.throttle = o->throttle;
    j.topts.seed = 1;
    job_state s;
    memset(&s, 0, sizeof s);
    s.notes_to_stdout = 1;
    worker_outcome w;
    if (spawn(&j, o, o->timeout_s, &s, &w) != 0)
        return supervise_interrupted() ? interrupted(WORKER_STOPPED) : EXIT_FAILED_ROWS;
    if (s.fatal) {
        fprintf(stderr, "klab: %s.\nklab: the self-test needs a GPU.\n", s.fatal_msg);
        return EXIT_NO_GPU;
    }
    if (!s.done) {
        char how[128];
        worker_outcome_text(&w, how, sizeof how);
        fprintf(stderr, "klab: the self-test worker %s\n", how);
        return EXIT_FAILED_ROWS;
    }
    printf("self-test %s\n", s.done_status ? "FAILED" : "passed");
    return s.done_status ? EXIT_FAILED_ROWS : EXIT_OK;
}

int lab_report(const cli_opts *o)
{
    char err[1200];
    if (table_report(stdout, o->report_dir, err, sizeof err) != 0) {
        fprintf(stderr, "klab: %s\n", err);
        return EXIT_USAGE;
    }
    return EXIT_OK;
}
