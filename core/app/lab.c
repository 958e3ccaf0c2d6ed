/* The parent's commands that need no GPU, and the one that checks the timer: list, validate, self-test,
 * report, compare. The run command is lab_run.c. */
#include "app/lab.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "app/lab_torch.h"
#include "app/lab_worker.h"
#include "app/plugin_select.h"
#include "config/ini_config.h"
#include "evidence/run_set.h"
#include "host/dtype.h"
#include "report/compare.h"
#include "report/report_gaps.h"
#include "report/report_write.h"
#include "report/table.h"
#include "util/text.h"

/* ---- klab --list ---- */

int lab_list(const cli_opts *o)
{
    discovery d;
    lab_discover(o, &d);
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
    if (lab_select_plugins(o, &d, sel, &n) != 0)
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
        if (lab_spawn(&j, o, o->timeout_s, &s, &w) != 0)
            return supervise_interrupted() ? lab_interrupted(WORKER_STOPPED) : EXIT_FAILED_ROWS;
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
        for (int k = 0; k < p->nprofiles; k++) {
            char tags[160] = "";
            if (strcmp(p->profiles[k], p->baseline) == 0)
                snprintf(tags, sizeof tags, "  [baseline]");
            if (p->profile_tunes[k])
                snprintf(tags + strlen(tags), sizeof tags - strlen(tags), "  [configurations: klab --tune --validate]");
            if (p->profile_archs[k][0] && strcmp(p->profile_archs[k], p->archs) != 0)
                snprintf(tags + strlen(tags), sizeof tags - strlen(tags), "  [machine code for cc %s only]",
                         p->profile_archs[k]);
            text_printf(stdout, "      profile %-12s %s%s\n", p->profiles[k], p->profile_summary[k], tags);
        }
        printf("      dtypes:");
        for (int k = 0; k < KLAB_DTYPE_COUNT; k++)
            if (p->dtypes & KLAB_DTYPE_BIT(k))
                printf(" %s", dtype_name((klab_dtype)k));
        if (p->min_cc)
            printf("   needs compute capability %d.%d or newer", p->min_cc / 10, p->min_cc % 10);
        if (p->archs[0])
            text_printf(stdout, "   machine code for cc %s", p->archs);
        if (p->params[0])
            text_printf(stdout, "   params: %s", p->params);
        if (p->dims[0])
            text_printf(stdout, "   dims: %s", p->dims);
        text_printf(stdout, "\n      file: %s\n      ini:  %s\n", p->path,
                    has_ini ? ini : "(none: it runs only with --config FILE)");
        if (sel[i]->shadows[0])
            text_printf(stdout, "      shadows: %s\n", sel[i]->shadows);
    }
    printf("\n%d plugin%s, %d refused\n", n - refused, n - refused == 1 ? "" : "s", refused);
    return refused ? EXIT_FAILED_ROWS : EXIT_OK;
}

/* ---- klab --validate ---- */

/* On success, *tt (for --with-torch's listing) names the plugin, its library and the INI. */
static int validate_one(const cli_opts *o, const char *ini, const discovery *d, int *bad_ini, int *bad_plugin,
                        torch_target *tt)
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
    j.filter = o->filter; /* --case, --dtype, --profile select what is listed, as they select what runs */
    j.tune = o->tune;
    snprintf(j.plugin_path, sizeof j.plugin_path, "%s", f->path);
    snprintf(j.plugin_name, sizeof j.plugin_name, "%s", f->name);
    job_state s;
    memset(&s, 0, sizeof s);
    s.notes_to_stdout = 1;
    text_printf(stdout, "%s (%s)\n", ini, cfg.plugin);
    worker_outcome w;
    if (lab_spawn(&j, o, o->timeout_s, &s, &w) != 0)
        return -1;
    char how[128];
    worker_outcome_text(&w, how, sizeof how);
    if (s.refused) {
        int ini_fault = lab_refused_for_ini(&s, ini);
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
    snprintf(tt->plugin, sizeof tt->plugin, "%s", f->name);
    snprintf(tt->so, sizeof tt->so, "%s", f->path);
    snprintf(tt->ini, sizeof tt->ini, "%s", ini);
    return 0;
}

int lab_validate(const cli_opts *o)
{
    discovery d;
    lab_discover(o, &d);
    int bad_ini = 0, bad_plugin = 0, checked = 0, nt = 0;
    static torch_target tt[DISC_MAX_PLUGINS];
    if (o->config[0]) {
        nt += validate_one(o, o->config, &d, &bad_ini, &bad_plugin, &tt[nt]) == 0;
        checked++;
        if (supervise_interrupted())
            return lab_interrupted(WORKER_STOPPED);
    } else {
        const found_plugin *sel[DISC_MAX_PLUGINS];
        int n;
        if (lab_select_plugins(o, &d, sel, &n) != 0)
            return EXIT_USAGE;
        for (int i = 0; i < n; i++) {
            char ini[4200];
            if (discovery_ini(&d, sel[i]->name, ini, sizeof ini) != 0) {
                printf("note    %s has no %s.ini: it runs only with --config FILE\n", sel[i]->path, sel[i]->name);
                continue;
            }
            nt += validate_one(o, ini, &d, &bad_ini, &bad_plugin, &tt[nt]) == 0;
            checked++;
            if (supervise_interrupted())
                return lab_interrupted(WORKER_STOPPED);
        }
    }
    printf("\n%d INI file%s checked: %d invalid, %d plugin%s refused\n", checked, checked == 1 ? "" : "s",
           bad_ini, bad_plugin, bad_plugin == 1 ? "" : "s");
    int torch_rc = o->with_torch && nt ? lab_torch(o, tt, nt, NULL) : 0;
    if (supervise_interrupted())
        return torch_rc;
    return bad_ini ? EXIT_USAGE : bad_plugin || torch_rc ? EXIT_FAILED_ROWS : EXIT_OK;
}

int lab_self_test(const cli_opts *o)
{
    job j;
    memset(&j, 0, sizeof j);
    j.kind = JOB_SELF_TEST;
    j.device = o->device;
    j.topts.mode = cli_timing_mode(o);
    j.topts.throttle = o->throttle;
    j.topts.seed = 1;
    job_state s;
    memset(&s, 0, sizeof s);
    s.notes_to_stdout = 1;
    worker_outcome w;
    if (lab_spawn(&j, o, o->timeout_s, &s, &w) != 0)
        return supervise_interrupted() ? lab_interrupted(WORKER_STOPPED) : EXIT_FAILED_ROWS;
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

/* The runs' tables, as `klab report DIR` always printed them; 0, or -1 when a table could not be read. */
static int report_tables(const run_set *runs)
{
    int rc = 0;
    for (int i = 0; i < runs->n; i++) {
        const run_dir *d = &runs->runs[i];
        if (d->is_file) {
            char title[4200];
            snprintf(title, sizeof title, "%s (%d rows)", d->path, d->nrows);
            table_print(stdout, title, d->rows, d->nrows);
        } else if (table_report_run(stdout, stderr, d) != 0) { /* the rows read once, not again */
            rc = -1;
        }
    }
    return rc;
}

/* The report folder of the first run: <it>/report, or beside the CSV given for it. */
static void default_report_dir(const run_set *runs, char *out, size_t len)
{
    const run_dir *first = &runs->runs[0];
    int dirlen = (int)strlen(first->path);
    const char *slash = first->is_file ? strrchr(first->path, '/') : NULL;
    if (first->is_file)
        dirlen = slash ? (int)(slash - first->path) : 1;
    snprintf(out, len, "%.*s/report", dirlen, first->is_file && !slash ? "." : first->path);
}

/* The experiments' claims judged over `runs`: decisions.md, a page per experiment and report.html into `out`,
   the decisions printed one a line. EXIT_OK (also with no experiments folder: said, nothing written),
   or EXIT_USAGE after the error. */
static int report_decide(const cli_opts *o, run_set *runs, const char *out)
{
    char err[1200];
    exp_set set;
    struct stat st;
    if (stat(o->experiments_dir, &st) != 0) {
        text_printf(stdout, "\nno experiments folder '%s': tables only (give --experiments DIR)\n", o->experiments_dir);
        return EXIT_OK;
    }
    if (exp_load_dir(o->experiments_dir, &set, err, sizeof err) != 0) {
        text_printf(stderr, "klab: %s\n", err);
        return EXIT_USAGE;
    }
    int rc = EXIT_OK;
    report r;
    if (report_eval(&r, &set, runs) != 0) {
        fprintf(stderr, "klab: out of memory\n");
        rc = EXIT_USAGE;
    } else {
        char html[4500];
        snprintf(html, sizeof html, "%s/report.html", out);
        if (report_write_all(&r, out, html, err, sizeof err) != 0) {
            text_printf(stderr, "klab: %s\n", err);
            rc = EXIT_USAGE;
        } else {
            text_printf(stdout, "\ndecisions over %d run%s (%s):\n", runs->n, runs->n == 1 ? "" : "s",
                        o->experiments_dir);
            for (int i = 0; i < set.ndecs; i++) {
                const report_exp *xs[EXP_MAX_DECISION_EXPS];
                char roll[3000];
                report_rollup(&r, xs, report_dec_exps(&r, &r.decs[i], xs), r.decs[i].status, roll, sizeof roll);
                char *w = roll; /* a terminal shows a command as it is: no Markdown backticks */
                for (const char *c = roll; *c; c++)
                    if (*c != '`')
                        *w++ = *c;
                *w = 0;
                text_printf(stdout, "  %-28s %s (prior study: %s)\n", set.decs[i].title, roll,
                            set.decs[i].prior_status[0] ? set.decs[i].prior_status : "none");
            }
            text_printf(stdout, "report: %s/decisions.md, %s/experiments/*.md (%d), %s/plugins/*.md (%d), %s\n", out,
                        out, set.nexps, out, r.nplugins, html);
        }
        report_free(&r);
    }
    exp_set_free(&set);
    return rc;
}

int lab_report(const cli_opts *o)
{
    char err[1200], latest[4400];
    const char *given[CLI_MAX];
    int n = o->nreports;
    for (int i = 0; i < n; i++)
        given[i] = o->reports[i];
    if (n == 0) {
        if (run_set_latest(o->out_dir, latest, sizeof latest, err, sizeof err) != 0) {
            text_printf(stderr, "klab: %s\n", err);
            return EXIT_USAGE;
        }
        given[n++] = latest;
    }
    run_set runs = {0};
    if (run_set_add_all(&runs, given, n, err, sizeof err) != 0) { /* read at once, joined in order */
        text_printf(stderr, "klab: %s\n", err);
        run_set_free(&runs);
        return EXIT_USAGE;
    }
    int rc = report_tables(&runs) == 0 ? EXIT_OK : EXIT_USAGE;
    char out[4400];
    if (o->report_out[0])
        snprintf(out, sizeof out, "%s", o->report_out);
    else
        default_report_dir(&runs, out, sizeof out);
    int rd = report_decide(o, &runs, out);
    run_set_free(&runs);
    return rd != EXIT_OK ? rd : rc;
}

#define NAMED_NOT_PASSED 5 /* the first rows not passed, by name; the rest are counted */

int lab_run_report(const cli_opts *o, const char *dir)
{
    char err[1200], out[4400];
    run_set runs = {0};
    if (run_set_add(&runs, dir, err, sizeof err) != 0) {
        text_printf(stderr, "klab: no report: %s\n", err);
        return EXIT_USAGE;
    }
    if (o->report_out[0])
        snprintf(out, sizeof out, "%s", o->report_out);
    else
        default_report_dir(&runs, out, sizeof out);
    int rc = report_decide(o, &runs, out);
    /* the rows as the folder holds them: klab's and PyTorch's (<INI>.torch.csv) alike */
    const run_dir *d = &runs.runs[0];
    int bad = 0;
    for (int i = 0; i < d->nrows; i++)
        bad += d->rows[i].status != ROW_PASSED && d->rows[i].status != ROW_SKIPPED;
    text_printf(stdout, "\nrows not passed: %d of %d in %s%s\n", bad, d->nrows, dir, bad ? ":" : "");
    for (int i = 0, named = 0; i < d->nrows && named < NAMED_NOT_PASSED; i++) {
        const klab_row *r = &d->rows[i];
        if (r->status == ROW_PASSED || r->status == ROW_SKIPPED)
            continue;
        text_printf(stdout, "  %-9s %s %s %s %s: %.120s\n", row_status_name(r->status), r->plugin, r->kcase, r->dtype,
                    r->profile, r->reason);
        named++;
    }
    if (bad > NAMED_NOT_PASSED)
        text_printf(stdout, "  ... and %d more (klab report %s)\n", bad - NAMED_NOT_PASSED, dir);
    run_set_free(&runs);
    return rc;
}

int lab_devices(const cli_opts *o)
{
    char merged[4500], err[1200], meta[4600];
    devices_opts d = cli_devices_opts(o);
    d.merged = merged;
    d.merged_len = sizeof merged;
    int rc = devices_run(&d);
    if (!merged[0])
        return rc; /* stopped, or nothing to merge: said above */
    static run_phases ph;
    memset(&ph, 0, sizeof ph);
    snprintf(meta, sizeof meta, "%s/meta.ini", merged);
    if (phases_read(meta, NULL, NULL, &ph, err, sizeof err) != 0)
        text_printf(stderr, "klab: %s\n", err);
    if (o->report)
        lab_run_report(o, merged);
    lab_print_time(&ph);
    return rc;
}

/* A run as the user names it: a folder, else a run id under --out. */
static const char *run_folder(const cli_opts *o, const char *run, char *buf, size_t len)
{
    struct stat st;
    if (stat(run, &st) == 0 && S_ISDIR(st.st_mode))
        return run;
    snprintf(buf, len, "%s/%s", o->out_dir, run);
    return stat(buf, &st) == 0 && S_ISDIR(st.st_mode) ? buf : run;
}

int lab_compare(const cli_opts *o)
{
    char err[1200], ba[8300], bb[8300];
    const char *a = run_folder(o, o->compare[0], ba, sizeof ba), *b = run_folder(o, o->compare[1], bb, sizeof bb);
    cmp_totals t;
    cmp_opts co = {o->threshold, o->allow_missing, o->allow_config_change};
    if (cmp_runs(stdout, a, b, &co, &t, err, sizeof err) != 0) {
        text_printf(stderr, "klab: %s\n", err);
        return EXIT_USAGE;
    }
    int matched = t.n[CMP_SAME] + t.n[CMP_FASTER] + t.n[CMP_SLOWER] + t.n[CMP_UNSURE] + t.n[CMP_NOT_COMPARED];
    if (matched == 0) {
        /* a gate must not pass on nothing: two runs with no row in common compared nothing */
        fprintf(stderr, "klab: no row of %s matches a row of %s\n", a, b);
        return EXIT_USAGE;
    }
    return t.gate_failed ? EXIT_FAILED_ROWS : EXIT_OK;
}
