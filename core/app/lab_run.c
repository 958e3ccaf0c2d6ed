/* klab (run): every INI parsed and checked against its plugin before any GPU work, the GPU probed, then
 * each plugin's units run in workers (a fresh one after a unit that killed its worker), its CSV
 * committed and its table printed; after a tune run, the best configurations go into the tuning cache. */
#include "app/lab.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "app/lab_cases.h"
#include "app/lab_resume.h"
#include "app/lab_selection.h"
#include "app/lab_torch.h"
#include "app/lab_tune.h"
#include "app/lab_worker.h"
#include "app/plugin_select.h"
#include "config/ini_config.h"
#include "config/tune_cache.h"
#include "evidence/phases.h"
#include "evidence/run_meta.h"
#include "host/dtype.h"
#include "report/table.h"
#include "scale/profiling.h"
#include "util/text.h"
#include "version.h"
#include "worker/selection.h"

static int probe(const cli_opts *o, wire_device *dev)
{
    job j;
    memset(&j, 0, sizeof j);
    j.kind = JOB_PROBE;
    j.device = o->device;
    job_state s;
    memset(&s, 0, sizeof s);
    worker_outcome w;
    if (lab_spawn(&j, o, o->timeout_s, &s, &w) != 0)
        return supervise_interrupted() ? lab_interrupted(WORKER_STOPPED) : EXIT_FAILED_ROWS;
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

/* The plugin's table; a tune trial's profile shown with its configuration ("tiled threads=128"), which
   the table has no column for. */
static void print_table(const char *plugin, const char *csv, const klab_row *rows, int n)
{
    klab_row *shown = malloc((size_t)n * sizeof *shown);
    if (shown) {
        memcpy(shown, rows, (size_t)n * sizeof *shown);
        for (int i = 0; i < n; i++)
            if (row_has_flag(&shown[i], TUNE_FLAG_TRIAL)) {
                size_t len = strlen(shown[i].profile);
                snprintf(shown[i].profile + len, sizeof shown[i].profile - len, " %s", shown[i].config);
            }
    }
    char title[4600];
    snprintf(title, sizeof title, "%s: %d rows -> %s", plugin, n, csv);
    table_print(stdout, title, shown ? shown : rows, n);
    free(shown);
}

/* After a tune run of one plugin: each (case, dtype, profile)'s best trial into the tuning cache, read
   and written whole here (a run's worker read it once, before). A cache that cannot be read is not
   overwritten: it is the user's to fix or delete, and the trials stay in the CSV. */
static void tune_update(const cli_opts *o, const job_state *s, const cfg_experiment *cfg, const char *run_id)
{
    int trials = 0;
    for (int i = 0; i < s->nrows; i++)
        trials += row_has_flag(&s->rows[i], TUNE_FLAG_TRIAL);
    if (!trials || !s->have_device || !s->have_plugin)
        return;
    tune_cache c;
    char err[1200];
    if (tune_cache_load(o->tune_cache, &c, err, sizeof err) != 0) {
        text_printf(stderr, "klab: tuning cache not updated: %s (fix or delete it; the trials are in the CSV)\n", err);
        return;
    }
    text_printf(stdout, "\ntuned on %s:\n", s->device.info.name);
    tune_run_info info = {s->device.info.name, s->plugin.version, run_id, cfg};
    int changed = tune_record(&c, s->rows, s->nrows, &info, stdout);
    if (changed && tune_cache_save(&c, err, sizeof err) != 0)
        text_printf(stderr, "klab: tuning cache not updated: %s\n", err);
    else
        text_printf(stdout, "tuning cache %s: %d entr%s (%d changed by this run)\n", o->tune_cache, c.n,
                    c.n == 1 ? "y" : "ies", changed);
    tune_cache_free(&c);
}

typedef struct run_totals {
    int plugins, refused, rows, bad_rows, bad_ini;
    int stopped; /* the exit status after SIGINT/SIGTERM, 0 before */
    run_phases *phases; /* where the time went, per plugin and phase */
} run_totals;

static void run_plugin(const cli_opts *o, const found_plugin *f, const cfg_experiment *cfg,
                       const char *run_dir, const char *run_id, uint64_t seed, run_totals *t)
{
    if (o->filter.shard_n && job_units(cfg, &o->filter, -1, NULL, NULL) == 0)
        return; /* none of its units is in this slice: no worker, no CSV */
    job j;
    memset(&j, 0, sizeof j);
    j.kind = JOB_RUN;
    j.cfg = cfg;
    j.filter = o->filter;
    j.device = o->device;
    j.verify_only = o->verify_only;
    j.profile_pass = o->profile_pass;
    j.tune = o->tune;
    j.quick = o->quick;
    j.budget_ms = o->budget_ms;
    snprintf(j.tune_cache, sizeof j.tune_cache, "%s", o->tune_cache);
    snprintf(j.run_id, sizeof j.run_id, "%s", run_id);
    snprintf(j.plugin_path, sizeof j.plugin_path, "%s", f->path);
    snprintf(j.plugin_name, sizeof j.plugin_name, "%s", f->name);
    j.topts.mode = cli_timing_mode(o);
    j.topts.throttle = o->throttle;
    j.topts.seed = seed;
    j.topts.escape_checks = 5;

    char csv[4400], err[1200];
    snprintf(csv, sizeof csv, "%s/%s.csv", run_dir, f->name);
    csv_sink sink;
    job_state s;
    memset(&s, 0, sizeof s);
    /* anew, or under --resume what the run holds of it kept (s.rows, s.done) and the units left */
    if (lab_plugin_sink(o, csv, cfg, &sink, &s, &j.start_unit, err, sizeof err) != 0) {
        text_printf(stderr, "klab: %s\n", err);
        t->refused++;
        free(s.rows);
        return;
    }
    s.label = f->name;
    s.sink = &sink;
    s.phases = t->phases;
    s.units_total = job_units(cfg, &o->filter, -1, NULL, NULL);
    t->plugins++;
    const int first_unit = j.start_unit; /* > 0 when --resume kept units */
    while (!s.done) {
        s.in_unit = 0;
        s.done = 0;
        worker_outcome w;
        if (lab_spawn(&j, o, o->timeout_s, &s, &w) != 0)
            break;
        char how[128];
        worker_outcome_text(&w, how, sizeof how);
        if (j.start_unit > first_unit && !s.done && !s.in_unit) {
            /* the fresh worker after a failed unit did not reach its first case: say so for each */
            char reason[1300];
            snprintf(reason, sizeof reason, "not run: the worker started after an earlier case failed %s before this case%s%s",
                     how[0] ? how : "stopped", s.fatal || s.refused ? ": " : "",
                     s.fatal ? s.fatal_msg : s.refused ? s.refusal : "");
            for (int k = j.start_unit; k < s.units_total && s.have_plugin; k++) {
                wire_unit wu;
                describe_unit(&j, &s.plugin, k, &wu);
                lab_fail_unit(&s, &j, &wu, 0, reason);
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
                if (lab_refused_for_ini(&s, cfg->path))
                    t->bad_ini++; /* the plugin is fine; its INI asks for what it does not have */
            }
            break;
        }
        if (s.done)
            break;
        /* The worker died inside a unit (or lost its context): charge that unit, go on after it. */
        char reason[300];
        snprintf(reason, sizeof reason, "worker %s in %s", how[0] ? how : "stopped", s.phase);
        lab_fail_unit(&s, &j, &s.unit, s.unit_rows, reason);
        lab_unit_done(&s);
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
        progress_close(&s.progress, 0); /* klab --resume goes on after its last whole unit */
        t->stopped = lab_interrupted(what);
        free(s.rows);
        return;
    }
    if (isatty(STDERR_FILENO))
        fputs("\r\033[K", stderr);
    int committed = !sink.fp || csv_sink_commit(&sink, err, sizeof err) == 0; /* no fp: a CSV kept whole */
    if (!committed)
        fprintf(stderr, "klab: %s\n", err);
    progress_close(&s.progress, committed); /* kept while the rows are still in the .partial file */
    if (s.nrows)
        print_table(f->name, csv, s.rows, s.nrows);
    profiling_opts po = cli_profiling_opts(o);
    if (o->with_profiling && !o->verify_only && s.nrows && !lab_resume_profiled(o, run_dir, f->name)) {
        double t0 = phases_clock_ms(); /* ncu replays each kernel many times: a phase of its own */
        if (profiling_plugin(&po, f->name, cfg->path, run_dir, s.rows, s.nrows, err, sizeof err) != 0)
            fprintf(stderr, "klab: %s\n", err);
        phases_add(t->phases, f->name, "profiling", phases_clock_ms() - t0);
    }
    for (int i = 0; i < s.nrows; i++) {
        const klab_row *r = &s.rows[i];
        t->rows++;
        if (r->status != ROW_PASSED && r->status != ROW_SKIPPED) {
            t->bad_rows++;
            int trial = row_has_flag(r, TUNE_FLAG_TRIAL);
            text_printf(stderr, "FAILED %s %s %s %s%s%s%s: %s: %s\n", r->plugin, r->kcase, r->dtype, r->profile,
                        trial ? " [" : "", trial ? r->config : "", trial ? "]" : "", row_status_name(r->status),
                        r->reason);
        }
    }
    if (o->tune && !o->verify_only)
        tune_update(o, &s, cfg, run_id);
    free(s.rows);
}

/* lab_on_message without the validation job's notes: its case summaries are for --validate. */
static void on_check_message(void *user, const wire_header *h, const void *payload)
{
    if (h->type != WIRE_NOTE)
        lab_on_message(user, h, payload);
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
    if (supervise(&j, o->isolate, o->timeout_s, &hooks, &w) != 0 || !lab_refused_for_ini(&s, cfg->path))
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

int lab_write_meta(const char *path, const char *run_id, const char *started, const cli_opts *o, uint64_t seed,
                   const device_desc *dev, const cfg_experiment *cfgs, int ncfgs, char *err, size_t errlen)
{
    run_meta_info m = {
        .run_id = run_id, .started = started, .command = o->command_line, .seed = seed,
        .csv_schema = ROW_SCHEMA, .shard_k = o->filter.shard_k, .shard_n = o->filter.shard_n, .dev = dev,
        .hot = o->hot, .batched = o->batched, .verify_only = o->verify_only, .isolated = o->isolate,
        .throttle = o->throttle, .quick = o->quick, .budget_ms = o->budget_ms, .cfgs = cfgs, .ncfgs = ncfgs,
    };
    m.nextra = lab_selection_entries(o, &m.extra_keys, &m.extra_values); /* [selection], for --resume */
    return run_meta_write_info(path, &m, err, errlen);
}

/* However the run ends (a signal too: a run stopped for taking long is the one whose time matters),
   where its time went goes into meta.ini; the line is printed last, by the caller. */
static void run_time(const char *meta, run_phases *ph, double t0)
{
    char err[1200];
    ph->wall_ms = phases_clock_ms() - t0;
    if (run_meta_put_phases(meta, ph, err, sizeof err) != 0)
        text_printf(stderr, "klab: %s\n", err);
}

void lab_print_time(const run_phases *ph)
{
    char line[2048];
    phases_line(ph, 3, line, sizeof line);
    text_printf(stdout, "%s\n", line);
}

int lab_run(const cli_opts *o)
{
    double t0 = phases_clock_ms();
    static run_phases phases;
    memset(&phases, 0, sizeof phases);
    discovery d;
    lab_discover(o, &d);
    /* Every INI is parsed, and checked against its plugin, before any GPU work: a broken file is
       reported on any machine. */
    static cfg_experiment cfgs[DISC_MAX_PLUGINS];
    const found_plugin *sel[DISC_MAX_PLUGINS];
    int n = 0, bad_ini = 0;
    char err[2400];
    lab_cases cases = {0};
    if (o->config[0]) {
        if (cfg_load(o->config, &cfgs[0], err, sizeof err) != 0 || lab_cases_add(o, &cfgs[0], &cases, err, sizeof err)) {
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
        if (lab_select_plugins(o, &d, all, &na) != 0)
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
            if (cfg_load(ini, &cfgs[n], err, sizeof err) != 0 || lab_cases_add(o, &cfgs[n], &cases, err, sizeof err)) {
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
    if (n > 0 && lab_cases_check(o, &cases, err, sizeof err) != 0) {
        text_printf(stderr, "klab: %s\n", err);
        return EXIT_USAGE;
    }
    if (n == 0) {
        fprintf(stderr, "klab: nothing to run%s\n", bad_ini ? " (see the errors above)" : ": no plugin with an INI found");
        return bad_ini ? EXIT_USAGE : EXIT_FAILED_ROWS;
    }

    if (o->resume[0] && lab_resume_check_inis(o, cfgs, n) != EXIT_OK)
        return EXIT_USAGE;
    /* asked before the GPU work, so a run that will have no PyTorch rows says so at its start */
    int torch = o->with_torch && lab_torch_ready(o);
    wire_device dev;
    int rc = probe(o, &dev);
    if (rc != EXIT_OK)
        /* a bad INI is the first thing to fix, on any machine; a signal still says it was interrupted */
        return supervise_interrupted() || !bad_ini ? rc : EXIT_USAGE;

    char run_id[64], started[64], run_dir[4200];
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(started, sizeof started, RUN_META_STARTED_FMT, &tm);
    run_meta_run_id(o->run_id, &tm, run_id, sizeof run_id);
    if (o->resume[0] && (rc = lab_resume_check_device(o, &dev, started, sizeof started)) != EXIT_OK)
        return rc;
    snprintf(run_dir, sizeof run_dir, "%s/%s", o->out_dir, run_id);
    if (make_dirs(run_dir) != 0) {
        fprintf(stderr, "klab: cannot create %s\n", run_dir);
        return EXIT_USAGE;
    }
    uint64_t seed = pick_seed(o);
    char meta[4300];
    snprintf(meta, sizeof meta, "%s/meta.ini", run_dir);
    /* a resumed run keeps its meta.ini as its start wrote it */
    if (!o->resume[0] && lab_write_meta(meta, run_id, started, o, seed, &dev, cfgs, n, err, sizeof err) != 0)
        fprintf(stderr, "klab: %s\n", err);
    if (o->resume[0]) {
        /* a resumed run's time is its parts' together: the earlier parts' [phases] carry over, and its
           wall time continues theirs */
        if (phases_read(meta, NULL, "", &phases, err, sizeof err) < 0)
            text_printf(stderr, "klab: %s\n", err);
        t0 -= phases.wall_ms;
        phases.wall_ms = 0;
    }
    printf("klab %s (%s): run %s on %s (device %d, %d SMs, cc %d.%d), L2 %s, seed %llu\n", KLAB_VERSION,
           KLAB_GIT_COMMIT, run_id, dev.info.name, dev.info.ordinal, dev.info.sms, dev.info.cc / 10, dev.info.cc % 10,
           o->hot ? "hot" : "flushed by a read before each sample", (unsigned long long)seed);

    run_totals t = {0, 0, 0, 0, bad_ini, 0, &phases};
    for (int i = 0; i < n && !t.stopped; i++) {
        if (supervise_interrupted()) {
            char what[4400];
            snprintf(what, sizeof what, "stopped before %s; the complete CSVs are in %s", sel[i]->name, run_dir);
            run_time(meta, &phases, t0);
            return lab_interrupted(what);
        }
        run_plugin(o, sel[i], &cfgs[i], run_dir, run_id, seed, &t);
    }
    if (t.stopped) {
        run_time(meta, &phases, t0);
        return t.stopped;
    }
    int torch_rc = 0;
    if (torch) {
        static torch_target tt[DISC_MAX_PLUGINS];
        for (int i = 0; i < n; i++) {
            snprintf(tt[i].plugin, sizeof tt[i].plugin, "%s", sel[i]->name);
            snprintf(tt[i].so, sizeof tt[i].so, "%s", sel[i]->path);
            snprintf(tt[i].ini, sizeof tt[i].ini, "%s", cfgs[i].path);
        }
        torch_run tr = {run_dir, run_id, seed, &phases, NULL};
        torch_rc = lab_torch(o, tt, n, &tr);
        if (supervise_interrupted()) {
            run_time(meta, &phases, t0);
            return torch_rc;
        }
    }
    run_time(meta, &phases, t0);

    printf("\nrun %s: %d plugin%s, %d rows, %d not passed, %d refused -> %s\n", run_id, t.plugins,
           t.plugins == 1 ? "" : "s", t.rows, t.bad_rows, t.refused, run_dir);
    if (o->report)
        lab_run_report(o, run_dir); /* what it says changes nothing in the exit status: the rows decide */
    lab_print_time(&phases);
    if (t.bad_ini)
        return EXIT_USAGE;
    return t.bad_rows || t.refused || torch_rc ? EXIT_FAILED_ROWS : EXIT_OK;
}
