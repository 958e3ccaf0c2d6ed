#include "report/report_html.h"

#include <stdio.h>
#include <string.h>

#include "evidence/ncu_csv.h"
#include "report/chart_sweep.h"
#include "report/report_charts.h"
#include "report/report_gaps.h"
#include "report/svg.h"

#define HIST_MAX 8 /* latency histograms an experiment shows at most: the rest are in its samples files */

static const char *badge(evidence_status s)
{
    switch (s) {
    case EV_SUPPORTED: return "sup";
    case EV_CAVEATED: return "cav";
    case EV_REJECTED: return "rej";
    case EV_MEASURED: return "mea";
    default: return "none";
    }
}

static void status_badge(FILE *fp, evidence_status s)
{
    fprintf(fp, "<span class=\"b %s\">%s</span>", badge(s), evidence_status_name(s));
}

static void para(FILE *fp, const char *title, const char *text)
{
    if (!text[0])
        return;
    fprintf(fp, "<p><b>%s.</b> ", title);
    xml_text(fp, text);
    fputs("</p>\n", fp);
}

#define RUNS_SHOWN 8 /* runs listed open; more are folded, so that the matrix stays near the top */

static void runs_list(FILE *fp, const report *r)
{
    if (r->runs->n > RUNS_SHOWN)
        fprintf(fp, "<details><summary>the %d runs given</summary>\n", r->runs->n);
    fputs("<ul class=\"runs\">\n", fp);
    for (int i = 0; i < r->runs->n; i++) {
        const run_dir *d = &r->runs->runs[i];
        fputs("<li><code>", fp);
        xml_text(fp, d->id);
        fputs("</code> ", fp);
        xml_text(fp, d->path);
        fprintf(fp, " — %d rows", d->nrows);
        const char *parts[] = {d->gpu, d->commit[0] ? "commit" : "", d->commit, d->started};
        for (size_t k = 0; k < sizeof parts / sizeof parts[0]; k++)
            if (parts[k][0]) {
                fputs(k == 2 ? " " : ", ", fp);
                xml_text(fp, parts[k]);
            }
        if (!d->has_meta)
            fputs(", no meta.ini", fp);
        fputs("</li>\n", fp);
    }
    for (int i = 0; i < r->runs->nnotes; i++) {
        fputs("<li>passed over: ", fp);
        xml_text(fp, r->runs->notes[i]);
        fputs("</li>\n", fp);
    }
    fputs("</ul>\n", fp);
    if (r->runs->n > RUNS_SHOWN)
        fputs("</details>\n", fp);
}

/* Derived text: `commands` in code, the rest escaped. */
static void code_text(FILE *fp, const char *s)
{
    char part[2000];
    int code = 0;
    while (*s) {
        size_t n = strcspn(s, "`");
        snprintf(part, sizeof part, "%.*s", (int)(n < sizeof part ? n : sizeof part - 1), s);
        fputs(code ? "<code>" : "", fp);
        xml_text(fp, part);
        fputs(code ? "</code>" : "", fp);
        s += n;
        if (*s == '`') {
            s++;
            code = !code;
        }
    }
}

/* A roll-up ("Caveated — 1 of 28 cases"): the badge, then the rest. */
static void rollup_cell(FILE *fp, const report *r, const report_exp *const *xs, int nx, evidence_status s)
{
    char buf[3000];
    report_rollup(r, xs, nx, s, buf, sizeof buf);
    status_badge(fp, s);
    code_text(fp, buf + strlen(evidence_status_name(s)));
}

/* A derived list: depth 0 an item, depth 1 an item of the nested list under it. */
typedef struct html_list {
    FILE *fp;
    int depth; /* -1 before the first line */
} html_list;

static void html_item(void *arg, int depth, const char *text)
{
    html_list *l = arg;
    if (depth > l->depth)
        fputs("<ul>", l->fp);
    else if (depth < l->depth)
        fputs("</li></ul></li>", l->fp);
    else
        fputs("</li>", l->fp);
    fputs("<li>", l->fp);
    code_text(l->fp, text);
    l->depth = depth;
}

static void html_list_end(html_list *l)
{
    if (l->depth >= 0)
        fputs(l->depth ? "</li></ul></li></ul>" : "</li></ul>", l->fp);
}

static void claim_summary(FILE *fp, const report *r, const report_exp *x, int k)
{
    char buf[3000];
    report_claim_summary(r, &x->e->claims[k], &x->claims[k], 6, buf, sizeof buf);
    xml_text(fp, buf);
}

static void matrix(FILE *fp, const report *r)
{
    fputs("<h1 id=\"decisions\">Kernel decisions</h1>\n<p>Each call's status, caveat and next evidence are computed from the claims of "
          "its experiments over the runs below (docs/report.md); a case is one row judged against one claim. The prior "
          "study's call is history, not evidence.</p>\n",
          fp);
    runs_list(fp, r);
    fputs("<table class=\"m\"><tr><th>Domain</th><th>Decision</th><th>Status</th><th>Evidence</th>"
          "<th>Caveat · next evidence</th><th>Prior study (history)</th></tr>\n", fp);
    const report_exp *xs[EXP_MAX_DECISION_EXPS];
    for (int i = 0; i < r->set->ndecs; i++) {
        const report_dec *d = &r->decs[i];
        int nx = report_dec_exps(r, d, xs);
        fputs("<tr><td>", fp);
        xml_text(fp, d->d->domain);
        fputs("</td><td><b>", fp);
        xml_text(fp, d->d->title);
        fputs("</b><br><small>", fp);
        xml_text(fp, d->d->call);
        fputs("</small></td><td>", fp);
        rollup_cell(fp, r, xs, nx, d->status);
        fputs("</td><td>", fp);
        for (int k = 0; k < nx; k++) {
            const report_exp *x = xs[k];
            fprintf(fp, "<div><a href=\"#exp-%s\">%s</a> ", x->e->name, x->e->name);
            rollup_cell(fp, r, &x, 1, x->status);
            if (x->e->nclaims == 0) {
                char buf[400];
                report_measured_figure(r, x, buf, sizeof buf);
                fputs(": ", fp);
                xml_text(fp, buf);
            }
            fputs("<ul>", fp);
            for (int c = 0; c < x->e->nclaims; c++) { /* one line a claim: what it says, then its figures */
                fputs("<li>", fp);
                status_badge(fp, x->claims[c].status);
                fputs(" ", fp);
                xml_text(fp, x->e->claims[c].says);
                fputs("<br><small>", fp);
                claim_summary(fp, r, x, c);
                fputs("</small></li>", fp);
            }
            fputs("</ul></div>", fp);
        }
        fputs("</td><td><small><b>Caveat</b>", fp);
        html_list l = {fp, -1};
        report_caveat(r, xs, nx, 6, html_item, &l);
        html_list_end(&l);
        fputs("<b>Next evidence</b>", fp);
        l.depth = -1;
        report_next(r, xs, nx, html_item, &l);
        html_list_end(&l);
        fputs("</small></td><td>", fp);
        xml_text(fp, d->d->prior_status[0] ? d->d->prior_status : "—");
        fputs("<br><small>", fp);
        if (d->d->prior_study[0]) {
            fputs("prior study (", fp);
            xml_text(fp, d->d->prior_study);
            fputs("): ", fp);
        }
        xml_text(fp, d->d->prior_figure);
        fputs("</small></td></tr>\n", fp);
    }
    fputs("</table>\n", fp);
    if (!r->nplugins)
        return;
    fputs("<h2>Plugins</h2>\n<p>Every plugin in the runs has a section of its rows and charts, whether or not an "
          "experiment names it.</p>\n<table class=\"m\"><tr><th>Plugin</th><th>Status</th><th>Figure</th>"
          "<th>Experiments</th></tr>\n", fp);
    for (int i = 0; i < r->nplugins; i++) {
        const report_exp *x = &r->plugins[i];
        char buf[400];
        fprintf(fp, "<tr><td><a href=\"#plugin-%s\">%s</a></td><td>", x->e->name, x->e->name);
        rollup_cell(fp, r, &x, 1, x->status);
        report_measured_figure(r, x, buf, sizeof buf);
        fputs("</td><td>", fp);
        xml_text(fp, buf);
        fputs("</td><td>", fp);
        int any = 0;
        for (int k = 0; k < r->set->nexps; k++)
            if (strcmp(r->exps[k].e->plugin, x->e->plugin) == 0)
                fprintf(fp, "%s<a href=\"#exp-%s\">%s</a>", any++ ? ", " : "", r->exps[k].e->name, r->exps[k].e->name);
        fputs(any ? "</td></tr>\n" : "none</td></tr>\n", fp);
    }
    fputs("</table>\n", fp);
}

/* A profiled row: its counters kernel by kernel, beside its time (report_md.c's table). */
static void counters_row(FILE *fp, int first, const char *label, const char *head, const report_kernel_cells *k,
                         int nk)
{
    if (first)
        para(fp, "Counters", report_counters_intro);
    fputs("<p><b>", fp);
    xml_text(fp, label);
    fputs("</b>: ", fp);
    xml_text(fp, head);
    fputs("</p>\n", fp);
    if (nk == 0)
        return;
    fputs("<table><tr><th>kernel</th><th>grid</th><th>block</th>", fp);
    for (int m = 0; m < NCU_NMETRICS; m++) { /* fputs, not fprintf: a table for every profiled row */
        fputs("<th>", fp);
        fputs(ncu_metrics[m].column, fp);
        fputs("</th>", fp);
    }
    for (int i = 0; i < nk; i++) {
        fputs("</tr>\n<tr><td><code>", fp);
        xml_text(fp, k[i].name);
        fputs("</code></td><td>", fp);
        xml_text(fp, k[i].grid);
        fputs("</td><td>", fp);
        xml_text(fp, k[i].block);
        fputs("</td>", fp);
        for (int m = 0; m < NCU_NMETRICS; m++) {
            fputs("<td>", fp);
            fputs(k[i].v[m], fp);
            fputs("</td>", fp);
        }
    }
    fputs("</tr></table>\n", fp);
}

static void experiment(FILE *fp, const report *r, const report_exp *x)
{
    const exp_experiment *e = x->e;
    fprintf(fp, "<section id=\"%s-%s\"><h2>", x->plugin_page ? "plugin" : "exp", e->name);
    xml_text(fp, e->title);
    fputs("</h2>\n<p class=\"meta\">", fp);
    rollup_cell(fp, r, &x, 1, x->status);
    fprintf(fp, " · plugin <code>%s</code> · %d rows in the runs given</p>\n", e->plugin, x->rows);
    para(fp, "Question", e->question);
    para(fp, "Why it matters", e->why);
    if (e->nclaims) {
        fputs("<table class=\"c\"><tr><th>claim</th><th>rule</th><th>status</th><th>figures</th></tr>\n", fp);
        for (int k = 0; k < e->nclaims; k++) {
            fputs("<tr><td>", fp);
            xml_text(fp, e->claims[k].says);
            fputs("</td><td><code>", fp);
            xml_text(fp, e->claims[k].rule_text);
            fputs("</code></td><td>", fp);
            status_badge(fp, x->claims[k].status);
            fputs("</td><td>", fp);
            claim_summary(fp, r, x, k);
            fputs("</td></tr>\n", fp);
        }
        fputs("</table>\n", fp);
    } else {
        fputs("<p>No claims: the figures are measured.</p>\n", fp);
    }
    if (x->rows == 0)
        fputs("<p class=\"none\">No row of this experiment in the runs given: no evidence yet.</p>\n", fp);
    char left[600];
    if (report_left_out(r, x, left, sizeof left)) {
        fputs("<p class=\"none\">", fp);
        xml_text(fp, left);
        fputs("</p>\n", fp);
    }
    fputs("<div class=\"charts\">\n", fp);
    if (!strcmp(e->chart, "sweep"))
        chart_sweep(fp, r, x);
    for (int k = 0; k < e->nclaims; k++)
        chart_claim(fp, r, x, k);
    chart_speedup(fp, r, x);
    chart_counters(fp, r, x);
    /* one rate chart per case, in the order the runs hold them */
    char done[256][64];
    int nd = 0, hists = 0;
    int rates = strcmp(e->chart, "sweep") != 0;
    for (int si = 0; si < x->shown.n; si++) {
        const klab_row *o = x->shown.at[si].row;
        if (o->samples_file[0] && hists < HIST_MAX)
            hists += chart_histogram(fp, r, x->shown.at[si].run, o);
        if (!rates || nd == 256)
            continue; /* the cases seen matter only to the rate charts still to draw */
        int seen = 0;
        for (int i = 0; i < nd && !seen; i++)
            seen = !strcmp(done[i], o->kcase);
        if (seen)
            continue;
        snprintf(done[nd++], sizeof done[0], "%s", o->kcase);
        chart_rates(fp, r, x, o->kcase);
    }
    fputs("</div>\n", fp);
    report_counters_each(fp, r, x, counters_row);
    para(fp, "Evidence boundary", e->boundary);
    if (!x->plugin_page) {
        fputs("<p><b>Next evidence.</b></p>", fp);
        html_list l = {fp, -1};
        report_next(r, &x, 1, html_item, &l);
        html_list_end(&l);
        para(fp, "The experiment asks next", e->next);
    }
    para(fp, "How to run", e->run);
    fputs("</section>\n", fp);
}

static const char css[] =
    "body{font-family:sans-serif;max-width:1200px;margin:1em auto;padding:0 1em;color:#222}"
    "table{border-collapse:collapse;margin:.6em 0;display:block;max-width:100%;overflow-x:auto}td,th{border:1px solid #ccc;padding:4px 6px;vertical-align:top;"
    "font-size:13px;text-align:left}th{background:#f3f3f3}.b{padding:1px 6px;border-radius:3px;color:#fff;"
    "font-size:12px;white-space:nowrap}.sup{background:#2a8a2a}.cav{background:#c07a00}.rej{background:#b22}"
    ".mea{background:#2a5db0}.none{background:#777}p.none{background:none;color:#a00}.charts svg{display:block;"
    "margin:10px 0;border:1px solid #eee}section{border-top:2px solid #ddd;margin-top:2em}code{font-size:12px}"
    ".meta{color:#555}small{color:#444}td ul{margin:2px 0 6px 0;padding-left:16px}td li{margin-bottom:3px}"
    ".charts svg{max-width:100%;height:auto}summary{cursor:pointer;color:#2a5db0;font-size:13px}"
    "nav.toc{border:1px solid #ddd;background:#fafafa;padding:6px 12px;font-size:13px}nav.toc ol{margin:4px 0}";

/* Each section of the page in its order: the experiments in the matrix's order, then those no
   decision names, then the plugins' pages. */
static void each_section(const report *r, void (*fn)(FILE *, const report *, const report_exp *), FILE *fp)
{
    for (int i = 0; i < r->set->ndecs; i++)
        for (int k = 0; k < r->decs[i].d->nexps; k++) {
            const report_exp *x = report_find(r, r->decs[i].d->exps[k]);
            int first = 1;
            for (int j = 0; j < i && first; j++)
                for (int q = 0; q < r->decs[j].d->nexps && first; q++)
                    first = strcmp(r->decs[j].d->exps[q], r->decs[i].d->exps[k]) != 0;
            if (x && first)
                fn(fp, r, x);
        }
    for (int i = 0; i < r->set->nexps; i++) {
        int named = 0;
        for (int j = 0; j < r->set->ndecs && !named; j++)
            for (int q = 0; q < r->decs[j].d->nexps && !named; q++)
                named = strcmp(r->decs[j].d->exps[q], r->exps[i].e->name) == 0;
        if (!named)
            fn(fp, r, &r->exps[i]);
    }
    for (int i = 0; i < r->nplugins; i++)
        fn(fp, r, &r->plugins[i]);
}

static void toc_entry(FILE *fp, const report *r, const report_exp *x)
{
    fprintf(fp, "<li><a href=\"#%s-%s\">", x->plugin_page ? "plugin" : "exp", x->e->name);
    xml_text(fp, x->e->title);
    fputs("</a> ", fp);
    status_badge(fp, x->status);
    fprintf(fp, " <small>%d rows</small></li>\n", x->rows);
    (void)r;
}

/* The page's contents: a long report (many runs, many experiments) is read by jumping. */
static void toc(FILE *fp, const report *r)
{
    fputs("<nav class=\"toc\"><b>Contents</b><ol>\n<li><a href=\"#decisions\">Kernel decisions</a></li>\n", fp);
    each_section(r, toc_entry, fp);
    fputs("</ol></nav>\n", fp);
}

static void page(FILE *fp, const report *r, const void *arg)
{
    (void)arg;
    fprintf(fp, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>klab report</title>"
                "<style>%s</style></head><body>\n", css);
    toc(fp, r);
    matrix(fp, r);
    each_section(r, experiment, fp);
    fputs("</body></html>\n", fp);
}

int report_html_write(const report *r, const char *path, char *err, size_t errlen)
{
    return report_write_file(path, page, r, NULL, err, errlen);
}
