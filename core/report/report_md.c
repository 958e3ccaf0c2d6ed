#include "report/report_md.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "evidence/csv_sink.h"
#include "evidence/ncu_csv.h"
#include "report/report_gaps.h"
#include "util/fixed.h"

/* Text from INI files and CSVs on a line of its own: a line break or control character would end it
   early; it is shown as a space, never obeyed. In a table cell (md_cell) a '|' would also split the
   cell. */
static void md_put(FILE *fp, const char *s, int cell)
{
    static const char stops[] = "|\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10\x11\x12"
                                "\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f";
    for (; *s; s++) {
        size_t n = strcspn(s, stops + !cell);
        if (n) { /* a run of plain text at once: a page lists every row */
            fwrite(s, 1, n, fp);
            s += n;
            if (!*s)
                break;
        }
        if (cell && *s == '|')
            fputs("\\|", fp);
        else if ((unsigned char)*s < 0x20)
            fputc(' ', fp);
        else
            fputc(*s, fp);
    }
}

static void md_text(FILE *fp, const char *s)
{
    md_put(fp, s, 0);
}

static void md_cell(FILE *fp, const char *s)
{
    md_put(fp, s, 1);
}

/* Text from meta.ini (a run's id, GPU, commit, start time) and the folder's path: whoever made the run
   folder wrote it, so it is escaped as report_html.c escapes it, never rendered: a character that
   opens Markdown (a link, emphasis, code) is backslash-escaped, HTML's <, > and & become entities, a
   control character a space. Inside a code span (code) only a backtick could end it: it becomes '. */
static void md_meta(FILE *fp, const char *s, int code)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c < 0x20 || c == 0x7f)
            fputc(' ', fp);
        else if (code)
            fputc(c == '`' ? '\'' : c, fp);
        else if (c == '<' || c == '>' || c == '&')
            fputs(c == '<' ? "&lt;" : c == '>' ? "&gt;" : "&amp;", fp);
        else if (strchr("\\`*_[]()#|!~", c))
            fprintf(fp, "\\%c", c);
        else
            fputc(c, fp);
    }
}

static const char *dec_prior(const exp_decision *d)
{
    return d->prior_status[0] ? d->prior_status : "—";
}

void report_md_runs(FILE *fp, const report *r)
{
    for (int i = 0; i < r->runs->n; i++) {
        const run_dir *d = &r->runs->runs[i];
        fputs("- `", fp);
        md_meta(fp, d->id, 1);
        fputs("`: ", fp);
        md_meta(fp, d->path, 0);
        fprintf(fp, " (%d rows", d->nrows);
        if (d->gpu[0]) {
            fputs(", ", fp);
            md_meta(fp, d->gpu, 0);
        }
        if (d->commit[0]) {
            fputs(", commit ", fp);
            md_meta(fp, d->commit, 0);
        }
        if (d->started[0]) {
            fputs(", ", fp);
            md_meta(fp, d->started, 0);
        }
        fputs(d->has_meta ? ")\n" : ", no meta.ini)\n", fp);
    }
    for (int i = 0; i < r->runs->nnotes; i++) {
        fputs("- passed over: ", fp);
        md_text(fp, r->runs->notes[i]);
        fputc('\n', fp);
    }
}

/* A roll-up ("Caveated — 1 of 28 cases") with its status in bold. */
static void md_rollup(FILE *fp, const char *rollup, int cell)
{
    const char *dash = strstr(rollup, " — ");
    int n = dash ? (int)(dash - rollup) : (int)strlen(rollup);
    fprintf(fp, "**%.*s**", n, rollup);
    md_put(fp, rollup + n, cell);
}

/* What the evidence says of one experiment: its roll-up, then a line per claim with its status, its
   fraction of cases met and its figures; or its measured figure. */
static void evidence_line(FILE *fp, const report *r, const report_exp *x, const char *pages_dir)
{
    char buf[3000];
    report_rollup(r, &x, 1, x->status, buf, sizeof buf);
    fprintf(fp, "- Evidence, [%s](%s/%s.md): ", x->e->name, pages_dir, x->e->name);
    md_rollup(fp, buf, 0);
    if (x->e->nclaims == 0) {
        report_measured_figure(r, x, buf, sizeof buf);
        fputs(": ", fp);
        md_text(fp, buf);
        fputc('\n', fp);
        return;
    }
    fputc('\n', fp);
    for (int k = 0; k < x->e->nclaims; k++) { /* one item a claim, under the experiment's */
        const claim_result *c = &x->claims[k];
        fprintf(fp, "  - *%s*", evidence_status_name(c->status));
        if (c->n)
            fprintf(fp, ", %d of %d case%s", c->met, c->n, c->n == 1 ? "" : "s");
        fputs(": ", fp);
        md_text(fp, x->e->claims[k].says);
        fputs(" — ", fp);
        report_claim_figure(&x->e->claims[k], c, buf, sizeof buf);
        md_text(fp, buf);
        fputc('\n', fp);
    }
}

/* A derived list's line, nested under its heading item (md_item) or a list of its own (md_item_top). */
static void md_item(void *arg, int depth, const char *text)
{
    FILE *fp = arg;
    fputs(depth ? "    - " : "  - ", fp);
    md_text(fp, text);
    fputc('\n', fp);
}

static void md_item_top(void *arg, int depth, const char *text)
{
    FILE *fp = arg;
    fputs(depth ? "  - " : "- ", fp);
    md_text(fp, text);
    fputc('\n', fp);
}

/* Every plugin in the runs, Measured, with its figure and the experiments that name it. */
static void plugins_table(FILE *fp, const report *r)
{
    if (!r->nplugins)
        return;
    fputs("\n## Plugins\n\nEvery plugin in the runs has a page of its rows and charts, whether or not an experiment "
          "names it.\n\n| Plugin | Status | Figure | Experiments |\n|---|---|---|---|\n", fp);
    char buf[3000];
    for (int i = 0; i < r->nplugins; i++) {
        const report_exp *x = &r->plugins[i];
        fprintf(fp, "| [%s](plugins/%s.md) | ", x->e->name, x->e->name);
        report_rollup(r, &x, 1, x->status, buf, sizeof buf);
        md_rollup(fp, buf, 1);
        report_measured_figure(r, x, buf, sizeof buf);
        fputs(" | ", fp);
        md_cell(fp, buf);
        fputs(" | ", fp);
        int any = 0;
        for (int k = 0; k < r->set->nexps; k++)
            if (strcmp(r->exps[k].e->plugin, x->e->plugin) == 0)
                fprintf(fp, "%s[%s](experiments/%s.md)", any++ ? ", " : "", r->exps[k].e->name, r->exps[k].e->name);
        fputs(any ? " |\n" : "none |\n", fp);
    }
}

void report_md_matrix(FILE *fp, const report *r, const char *pages_dir)
{
    int count[EV_NO_EVIDENCE + 1] = {0};
    for (int i = 0; i < r->set->ndecs; i++)
        count[r->decs[i].status]++;
    fputs("# Kernel decisions\n\n"
          "Computed by `klab report` from the runs below: each call's status, caveat and next evidence come from\n"
          "the claims of its experiments (docs/report.md says how); a case is one row judged against one claim.\n"
          "The prior study's call and figure are kept beside each as history; they are not evidence here.\n\n",
          fp);
    const char *sep = "";
    for (int s = 0; s <= EV_NO_EVIDENCE; s++)
        if (count[s]) {
            fprintf(fp, "%s**%s** %d", sep, evidence_status_name((evidence_status)s), count[s]);
            sep = " · ";
        }
    fputs("\n\nRuns:\n\n", fp);
    report_md_runs(fp, r);
    char rollup[3000];
    const report_exp *xs[EXP_MAX_DECISION_EXPS];
    fputs("\n| Domain | Decision | Status | Prior study's call |\n|---|---|---|---|\n", fp);
    for (int i = 0; i < r->set->ndecs; i++) {
        const report_dec *d = &r->decs[i];
        int nx = report_dec_exps(r, d, xs);
        report_rollup(r, xs, nx, d->status, rollup, sizeof rollup);
        fputs("| ", fp);
        md_cell(fp, d->d->domain);
        fprintf(fp, " | [");
        md_cell(fp, d->d->title);
        fprintf(fp, "](#%s) | ", d->d->name);
        md_rollup(fp, rollup, 1);
        fprintf(fp, " | %s |\n", dec_prior(d->d));
    }
    const char *domain = "";
    for (int i = 0; i < r->set->ndecs; i++) {
        const report_dec *d = &r->decs[i];
        if (strcmp(domain, d->d->domain) != 0) {
            domain = d->d->domain;
            fputs("\n## ", fp);
            md_text(fp, domain);
            fputc('\n', fp);
        }
        int nx = report_dec_exps(r, d, xs);
        report_rollup(r, xs, nx, d->status, rollup, sizeof rollup);
        fprintf(fp, "\n<a id=\"%s\"></a>\n### ", d->d->name);
        md_text(fp, d->d->title);
        fputs("\n\n", fp);
        md_rollup(fp, rollup, 0);
        fputs("\n\n", fp);
        md_text(fp, d->d->call);
        fputs("\n\n", fp);
        for (int k = 0; k < nx; k++)
            evidence_line(fp, r, xs[k], pages_dir);
        fputs("- Caveat, from the claims' cases:\n", fp);
        report_caveat(r, xs, nx, 4, md_item, fp);
        fputs("- Next evidence:\n", fp);
        report_next(r, xs, nx, md_item, fp);
        if (d->d->prior_status[0]) {
            fputs("- Prior study (", fp);
            md_text(fp, d->d->prior_study);
            fprintf(fp, "), history: %s — ", dec_prior(d->d));
            md_text(fp, d->d->prior_figure);
            fputc('\n', fp);
        }
    }
    plugins_table(fp, r);
}

static void list_line(FILE *fp, const char *what, const char (*items)[EXP_NAME], int n)
{
    fprintf(fp, "- %s: ", what);
    if (n == 0)
        fputs("every one the runs hold", fp);
    for (int i = 0; i < n; i++) {
        fputs(i ? ", `" : "`", fp);
        md_text(fp, items[i]);
        fputc('`', fp);
    }
    fputc('\n', fp);
}

static void section(FILE *fp, const char *title, const char *text)
{
    if (!text[0])
        return;
    fprintf(fp, "\n## %s\n\n", title);
    md_text(fp, text);
    fputc('\n', fp);
}

/* One figure of the rows' table after `before`, as "%.<d>f" writes it (fixed_text): a page lists every
   row of a million-row run. */
static void md_fig(FILE *fp, const char *before, double v, int d)
{
    char buf[16 + FIXED_MAX];
    size_t n = strlen(before);
    memcpy(buf, before, n);
    n += (size_t)fixed_text(buf + n, v, d);
    fwrite(buf, 1, n, fp);
}

/* v [lo–hi] */
static void md_interval(FILE *fp, double v, double lo, double hi, int d)
{
    md_fig(fp, " | ", v, d);
    md_fig(fp, " [", lo, d);
    md_fig(fp, "–", hi, d);
    fputc(']', fp);
}

/* The passed and failed rows in scope: the figures the claims were judged on. */
static void rows_table(FILE *fp, const report *r, const report_exp *x)
{
    fputs("\n| row | median µs [95 %] | GB/s | TFLOP/s | of limit | speedup [95 %] | status |\n"
          "|---|---|---|---|---|---|---|\n", fp);
    for (int i = 0; i < x->shown.n; i++) {
        const klab_row *row = x->shown.at[i].row;
        char label[300];
        report_row_label(r, x->shown.at[i].run, row, label, sizeof label);
        fputs("| ", fp);
        md_cell(fp, label);
        if (row->has_time && row->has_ci)
            md_interval(fp, row->median_ms * 1e3, row->median_lo * 1e3, row->median_hi * 1e3, 2);
        else if (row->has_time)
            md_fig(fp, " | ", row->median_ms * 1e3, 2);
        else
            fputs(" | —", fp);
        if (row->has_time && row->bytes > 0)
            md_fig(fp, " | ", row->gbps, 0);
        else
            fputs(" | —", fp);
        if (row->has_time && row->flops > 0)
            md_fig(fp, " | ", row->tflops, 1);
        else
            fputs(" | —", fp);
        if (row->has_time && row->has_limit) {
            md_fig(fp, " | ", 100 * row->frac_limit, 1);
            fprintf(fp, " %% %s", row->limit);
        } else {
            fputs(" | —", fp);
        }
        if (row->has_time && row->has_speedup_ci)
            md_interval(fp, row->speedup, row->speedup_lo, row->speedup_hi, 3);
        else if (row->has_time && row->has_speedup)
            md_fig(fp, " | ", row->speedup, 3);
        else
            fputs(" | —", fp);
        fprintf(fp, " | %s", row_status_name(row->status));
        if (row->flags[0]) {
            fputc(' ', fp);
            md_cell(fp, row->flags);
        }
        fputs(" |\n", fp);
    }
}

/* A profiled row: its counters (ncu, one profiled launch) kernel by kernel, beside its time. */
static void counters_row(FILE *fp, int first, const char *label, const char *head, const report_kernel_cells *k,
                         int nk)
{
    if (first)
        section(fp, "Counters", report_counters_intro);
    fputs("\n**", fp);
    md_text(fp, label);
    fputs("**: ", fp);
    md_text(fp, head);
    fputs("\n", fp);
    if (nk == 0)
        return;
    fputs("\n| kernel | grid | block |", fp);
    for (int m = 0; m < NCU_NMETRICS; m++) { /* fputs, not fprintf: a table for every profiled row */
        fputc(' ', fp);
        fputs(ncu_metrics[m].column, fp);
        fputs(" |", fp);
    }
    fputs("\n|---|---|---|", fp);
    for (int m = 0; m < NCU_NMETRICS; m++)
        fputs("---|", fp);
    for (int i = 0; i < nk; i++) {
        fputs("\n| `", fp);
        md_cell(fp, k[i].name);
        fputs("` | ", fp);
        md_cell(fp, k[i].grid);
        fputs(" | ", fp);
        md_cell(fp, k[i].block);
        for (int m = 0; m < NCU_NMETRICS; m++) {
            fputs(" | ", fp);
            fputs(k[i].v[m], fp);
        }
        fputs(" |", fp);
    }
    fputs("\n", fp);
}

static void claim_block(FILE *fp, const report *r, const exp_claim *cl, const claim_result *c)
{
    char buf[1600];
    fprintf(fp, "\n### %s — %s\n\n", cl->name, evidence_status_name(c->status));
    md_text(fp, cl->says);
    fputs("\n\nRule: `", fp);
    md_text(fp, cl->rule_text);
    fputs("`\n\n", fp);
    report_claim_figure(cl, c, buf, sizeof buf);
    md_text(fp, buf);
    fprintf(fp, " (%d of %d case%s met; %d not met, %d undecided)\n", c->met, c->n, c->n == 1 ? "" : "s", c->failed,
            c->open);
    if (c->failed + c->open + c->aside == 0)
        return;
    fputs("\n| row | verdict | why |\n|---|---|---|\n", fp);
    int listed = 0, more = 0; /* the rows' bound (scope.h): a million cases not met are counted above */
    for (int i = 0; i < c->n + c->aside; i++) {
        const claim_instance *in = &c->inst[i];
        if (in->verdict == VERDICT_MET && i < c->n)
            continue;
        if (listed++ >= SCOPE_SHOWN_MAX) {
            more++;
            continue;
        }
        char label[300];
        report_row_label(r, in->run, in->row, label, sizeof label);
        fputs("| ", fp);
        md_cell(fp, label);
        /* a quick row beside a full one of its case is shown, and said not to count */
        fprintf(fp, " | %s | ", i >= c->n ? "set aside" : in->verdict == VERDICT_FAILED ? "not met" : "undecided");
        md_cell(fp, in->why);
        if (i >= c->n)
            fputs(": a full row of this case, dtype and profile decides", fp);
        fputs(" |\n", fp);
    }
    if (more)
        fprintf(fp, "\n%d more rows not met, undecided or set aside are left out of this table; the claim is "
                    "judged over every one.\n", more);
}

/* Where the page's links point: the matrix, and beside it the experiments' and plugins' pages. */
static void page_decisions(FILE *fp, const report *r, const report_exp *x, const char *matrix)
{
    const exp_experiment *e = x->e;
    int any = 0;
    if (x->plugin_page) {
        fputs("\n## Experiments\n\n", fp);
        for (int i = 0; i < r->set->nexps; i++)
            if (strcmp(r->exps[i].e->plugin, e->plugin) == 0) {
                char roll[3000];
                const report_exp *one = &r->exps[i];
                report_rollup(r, &one, 1, one->status, roll, sizeof roll);
                fprintf(fp, "- [%s](../experiments/%s.md): ", one->e->name, one->e->name);
                md_rollup(fp, roll, 0);
                fputc('\n', fp);
                any = 1;
            }
        if (!any)
            fputs("None names this plugin: its rows are measured, no claim is judged over them.\n", fp);
        return;
    }
    fputs("\n## Decisions\n\n", fp);
    for (int i = 0; i < r->set->ndecs; i++)
        for (int k = 0; k < r->decs[i].d->nexps; k++)
            if (strcmp(r->decs[i].d->exps[k], e->name) == 0) {
                fputs("- [", fp);
                md_text(fp, r->decs[i].d->title);
                fprintf(fp, "](%s#%s): %s\n", matrix, r->decs[i].d->name, evidence_status_name(r->decs[i].status));
                any = 1;
            }
    if (!any)
        fputs("None names this experiment.\n", fp);
}

void report_md_page(FILE *fp, const report *r, const report_exp *x, const char *matrix)
{
    const exp_experiment *e = x->e;
    char roll[3000];
    report_rollup(r, &x, 1, x->status, roll, sizeof roll);
    fputs("# ", fp);
    md_text(fp, e->title);
    fputs("\n\n", fp);
    md_rollup(fp, roll, 0);
    if (x->plugin_page) { /* its roll-up counts the rows; the figure says what they measured */
        report_measured_figure(r, x, roll, sizeof roll);
        fputs(": ", fp);
        md_text(fp, roll);
        fprintf(fp, " · [decision matrix](%s)", matrix);
    } else {
        fprintf(fp, " · plugin `%s` · %d rows in the runs given · [decision matrix](%s)", e->plugin, x->rows, matrix);
    }
    if (!x->plugin_page && report_find_plugin(r, e->plugin))
        fprintf(fp, " · [every row of %s](../plugins/%s.md)", e->plugin, e->plugin);
    fputc('\n', fp);
    section(fp, "Question", e->question);
    section(fp, "Why it matters", e->why);
    fputs("\n## Run shape\n\n", fp);
    list_line(fp, "cases", e->cases, e->ncases);
    list_line(fp, "profiles", e->profiles, e->nprofiles);
    fputs("- dtypes: ", fp);
    for (int i = 0; i < e->ndtypes; i++)
        fprintf(fp, "%s`%s`", i ? ", " : "", e->dtypes[i]);
    fputs(e->ndtypes ? "\n" : "every one the runs hold\n", fp);
    fputs("\n## Claims\n", fp);
    if (e->nclaims == 0)
        fputs("\nNone: the figures below are measured, not claimed.\n", fp);
    for (int k = 0; k < e->nclaims; k++)
        claim_block(fp, r, &e->claims[k], &x->claims[k]);
    fputs("\n## Result figures\n", fp);
    if (x->rows == 0)
        fputs("\nNo row of this experiment in the runs given: no evidence yet.\n", fp);
    else if (report_left_out(r, x, roll, sizeof roll)) {
        fputs("\n", fp);
        md_text(fp, roll);
        fputc('\n', fp);
    }
    if (x->rows)
        rows_table(fp, r, x);
    report_counters_each(fp, r, x, counters_row);
    section(fp, "Evidence boundary", e->boundary);
    if (!x->plugin_page) {
        fputs("\n## Next evidence\n\nFrom the claims' cases:\n\n", fp);
        report_next(r, &x, 1, md_item_top, fp);
        if (e->next[0]) {
            fputs("\nThe experiment asks next: ", fp);
            md_text(fp, e->next);
            fputc('\n', fp);
        }
    }
    page_decisions(fp, r, x, matrix);
    section(fp, "How to run", e->run);
    fputs("\n## Runs\n\n", fp);
    report_md_runs(fp, r);
}

static void matrix_fn(FILE *fp, const report *r, const void *arg)
{
    (void)arg;
    report_md_matrix(fp, r, "experiments");
}

static void page_fn(FILE *fp, const report *r, const void *arg)
{
    report_md_page(fp, r, arg, "../decisions.md");
}

int report_md_write(const report *r, const char *out_dir, char *err, size_t errlen)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/experiments", out_dir);
    if (make_dirs(path) != 0) {
        snprintf(err, errlen, "%s: cannot create: %s", path, strerror(errno));
        return -1;
    }
    snprintf(path, sizeof path, "%s/decisions.md", out_dir);
    if (report_write_file(path, matrix_fn, r, NULL, err, errlen) != 0)
        return -1;
    for (int i = 0; i < r->set->nexps; i++) {
        snprintf(path, sizeof path, "%s/experiments/%s.md", out_dir, r->exps[i].e->name);
        if (report_write_file(path, page_fn, r, &r->exps[i], err, errlen) != 0)
            return -1;
    }
    snprintf(path, sizeof path, "%s/plugins", out_dir);
    if (r->nplugins && make_dirs(path) != 0) {
        snprintf(err, errlen, "%s: cannot create: %s", path, strerror(errno));
        return -1;
    }
    for (int i = 0; i < r->nplugins; i++) {
        snprintf(path, sizeof path, "%s/plugins/%s.md", out_dir, r->plugins[i].e->name);
        if (report_write_file(path, page_fn, r, &r->plugins[i], err, errlen) != 0)
            return -1;
    }
    return 0;
}
