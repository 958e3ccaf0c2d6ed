/* klab report and a run's --report: the runs read, their tables, the experiments' claims judged over
 * them, the pages written, the decisions on the terminal. */
#include "app/lab.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "evidence/run_set.h"
#include "report/report_gaps.h"
#include "report/report_json.h"
#include "report/report_write.h"
#include "report/table.h"
#include "util/text.h"

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

/* The report folder of a run's --report: <run>/report, or beside the CSV given for it. */
static void run_report_dir(const run_set *runs, char *out, size_t len)
{
    const run_dir *first = &runs->runs[0];
    int dirlen = (int)strlen(first->path);
    const char *slash = first->is_file ? strrchr(first->path, '/') : NULL;
    if (first->is_file)
        dirlen = slash ? (int)(slash - first->path) : 1;
    snprintf(out, len, "%.*s/report", dirlen, first->is_file && !slash ? "." : first->path);
}

/* klab report's folder without --out-dir: <out>/reports/<the first RUN's folder name> (a CSV's: its
   folder's). Never inside the runs it reads: a committed baseline or a read-only archive stays as it
   was. */
static void report_home(const cli_opts *o, const char *first, char *out, size_t len)
{
    char real[PATH_MAX];
    struct stat st;
    if (!realpath(first, real))
        snprintf(real, sizeof real, "%s", first);
    char *slash = strrchr(real, '/');
    if (stat(real, &st) == 0 && S_ISREG(st.st_mode) && slash && slash != real)
        *slash = 0, slash = strrchr(real, '/');
    const char *name = slash && slash[1] ? slash + 1 : real;
    snprintf(out, len, "%s/reports/%s", o->out_dir, name);
}

/* The folders whose experiments and decisions count: the shipped one, and --experiments beside it. */
static int experiment_dirs(const cli_opts *o, const char **dirs)
{
    struct stat st;
    int n = 0;
    if (stat(CLI_SHIPPED_EXPERIMENTS, &st) == 0 && S_ISDIR(st.st_mode))
        dirs[n++] = CLI_SHIPPED_EXPERIMENTS;
    if (o->experiments_given)
        dirs[n++] = o->experiments_dir;
    return n;
}

/* The decisions, one a line, and where the pages went. */
static void print_decisions(const cli_opts *o, const report *r, const run_set *runs, const char *const *dirs,
                            int ndirs, const char *out, const char *html)
{
    const exp_set *set = r->set;
    text_printf(stdout, "\ndecisions over %d run%s (%s%s%s):\n", runs->n, runs->n == 1 ? "" : "s", dirs[0],
                ndirs > 1 ? ", " : "", ndirs > 1 ? dirs[1] : "");
    for (int i = 0; i < set->ndecs; i++) {
        const report_exp *xs[EXP_MAX_DECISION_EXPS];
        char roll[3000];
        report_rollup(r, xs, report_dec_exps(r, &r->decs[i], xs), r->decs[i].status, roll, sizeof roll);
        char *w = roll; /* a terminal shows a command as it is: no Markdown backticks */
        for (const char *c = roll; *c; c++)
            if (*c != '`')
                *w++ = *c;
        *w = 0;
        text_printf(stdout, "  %-28s %s (prior study: %s)%s\n", set->decs[i].title, roll,
                    set->decs[i].prior_status[0] ? set->decs[i].prior_status : "none",
                    report_fails_on((report_fail_on)o->fail_on, r->decs[i].status) ? "  [--fail-on]" : "");
    }
    text_printf(stdout, "report: %s/decisions.md, %s/experiments/*.md (%d), %s/plugins/*.md (%d), %s\n", out, out,
                set->nexps, out, r->nplugins, html);
}

/* The experiments' claims judged over `runs`: decisions.md, a page per experiment and report.html into `out`,
   the decisions printed one a line (--json: the document instead). EXIT_OK (also with no experiments
   folder: said, nothing written), EXIT_FAILED_ROWS when a decision fails --fail-on, or EXIT_USAGE
   after the error. */
static int report_decide(const cli_opts *o, run_set *runs, const char *out)
{
    char err[1200], notes[4096];
    const char *dirs[2];
    int ndirs = experiment_dirs(o, dirs);
    exp_set set = {0};
    if (ndirs == 0) {
        if (o->json)
            return report_json_print(stdout, NULL, runs, dirs, 0, out, (report_fail_on)o->fail_on) == 0 ? EXIT_OK : EXIT_USAGE;
        text_printf(stdout, "\nno experiments folder '%s': tables only (give --experiments DIR)\n",
                    CLI_SHIPPED_EXPERIMENTS);
        return EXIT_OK;
    }
    if (exp_load_dirs(dirs, ndirs, &set, notes, sizeof notes, err, sizeof err) != 0) {
        text_printf(stderr, "klab: %s\n", err);
        return EXIT_USAGE;
    }
    FILE *said = o->json ? stderr : stdout; /* a --json stdout holds the document alone */
    if (notes[0] && !o->json)
        fputc('\n', said);
    for (char *line = notes, *next; *line; line = next) { /* a line at a time: text_printf shows a break as \x0a */
        next = strchr(line, '\n');
        next = next ? (*next = 0, next + 1) : line + strlen(line);
        text_printf(said, "%s\n", line);
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
            if (o->json) {
                if (report_json_print(stdout, &r, runs, dirs, ndirs, out, (report_fail_on)o->fail_on) != 0)
                    rc = EXIT_USAGE;
            } else {
                print_decisions(o, &r, runs, dirs, ndirs, out, html);
            }
            for (int i = 0; rc == EXIT_OK && i < set.ndecs; i++)
                if (report_fails_on((report_fail_on)o->fail_on, r.decs[i].status))
                    rc = EXIT_FAILED_ROWS;
        }
        report_free(&r);
    }
    exp_set_free(&set);
    return rc;
}

int lab_report(const cli_opts *o)
{
    char err[1200], latest[4400];
    const char *one = latest;
    const char *const *given = (const char *const *)o->reports;
    int n = o->nreports;
    if (n == 0) {
        if (run_set_latest(o->out_dir, latest, sizeof latest, err, sizeof err) != 0) {
            text_printf(stderr, "klab: %s\n", err);
            return EXIT_USAGE;
        }
        given = &one;
        n = 1;
    }
    run_set runs = {0};
    if (run_set_add_all(&runs, given, n, err, sizeof err) != 0) { /* read at once, joined in order */
        text_printf(stderr, "klab: %s\n", err);
        run_set_free(&runs);
        return EXIT_USAGE;
    }
    int rc = o->quiet || o->json || report_tables(&runs) == 0 ? EXIT_OK : EXIT_USAGE;
    char out[4400];
    if (o->report_out[0])
        snprintf(out, sizeof out, "%s", o->report_out);
    else
        report_home(o, given[0], out, sizeof out);
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
        run_report_dir(&runs, out, sizeof out);
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

