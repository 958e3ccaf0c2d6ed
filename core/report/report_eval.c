#include "report/report_eval.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evidence/ncu_csv.h"
#include "util/fixed.h"

/* 1 when every case name is "nN": a row-length sweep, drawn as one. */
static int sweep_cases(const report *r, const char *plugin)
{
    int any = 0;
    for (int i = 0; i < r->spans.n; i++) {
        const scope_span *sp = &r->spans.at[i];
        if (strcmp(scope_span_plugin(r->runs, sp), plugin) != 0)
            continue;
        for (int k = sp->first; k < sp->first + sp->n; k++) {
            const char *c = r->runs->runs[sp->run].rows[k].kcase;
            if (c[0] != 'n' || !c[1] || strspn(c + 1, "0123456789") != strlen(c + 1))
                return 0;
            any = 1;
        }
    }
    return any;
}

/* x's rows, found once: every page, table and chart of it goes over them. 0, or -1 when out of memory. */
static int find_scope(report *r, report_exp *x)
{
    if (scope_find(x->e, r->runs, &r->spans, &x->scope) != 0 ||
        scope_shown(&x->scope, r->runs->n, &x->shown) != 0)
        return -1;
    x->rows = x->scope.n;
    return 0;
}

/* A page for each plugin in the runs. 0, or -1 when out of memory. */
static int plugin_pages(report *r)
{
    int cap = 0;
    for (int i = 0; i < r->spans.n; i++) {
        const char *plugin = scope_span_plugin(r->runs, &r->spans.at[i]);
        if (report_find_plugin(r, plugin))
            continue;
        if (r->nplugins == cap) {
            cap = cap ? 2 * cap : 8;
            exp_experiment *e = realloc(r->plugin_exps, (size_t)cap * sizeof *e);
            if (!e)
                return -1;
            r->plugin_exps = e;
            report_exp *x = realloc(r->plugins, (size_t)cap * sizeof *x);
            if (!x)
                return -1;
            r->plugins = x;
        }
        exp_experiment *e = &r->plugin_exps[r->nplugins];
        memset(e, 0, sizeof *e);
        snprintf(e->name, sizeof e->name, "%s", plugin);
        snprintf(e->plugin, sizeof e->plugin, "%s", plugin);
        snprintf(e->title, sizeof e->title, "Plugin %s", plugin);
        snprintf(e->question, sizeof e->question, "What did the runs measure of plugin %s? Every row of it, "
                 "whether or not an experiment names it.", plugin);
        snprintf(e->run, sizeof e->run, "klab --plugin %s", plugin);
        snprintf(e->chart, sizeof e->chart, "%s", sweep_cases(r, plugin) ? "sweep" : "bars");
        memset(&r->plugins[r->nplugins++], 0, sizeof r->plugins[0]);
    }
    /* the array may have moved while it grew: point each page at its experiment once it stands */
    for (int i = 0; i < r->nplugins; i++) {
        report_exp *x = &r->plugins[i];
        x->e = &r->plugin_exps[i];
        x->plugin_page = 1;
        if (find_scope(r, x) != 0)
            return -1;
        x->status = claims_combine(NULL, 0, x->rows);
    }
    return 0;
}

int report_eval(report *r, const exp_set *set, const run_set *runs)
{
    memset(r, 0, sizeof *r);
    r->set = set;
    r->runs = runs;
    r->exps = calloc((size_t)(set->nexps ? set->nexps : 1), sizeof *r->exps);
    r->decs = calloc((size_t)(set->ndecs ? set->ndecs : 1), sizeof *r->decs);
    if (!r->exps || !r->decs || scope_spans_find(runs, &r->spans) != 0) {
        report_free(r);
        return -1;
    }
    for (int i = 0; i < set->nexps; i++) {
        report_exp *x = &r->exps[i];
        x->e = &set->exps[i];
        if (find_scope(r, x) != 0) {
            report_free(r);
            return -1;
        }
        const claim_result *all[EXP_MAX_CLAIMS];
        for (int k = 0; k < x->e->nclaims; k++) {
            if (claims_eval_in(x->e, k, runs, &x->scope, &x->claims[k]) != 0) {
                report_free(r);
                return -1;
            }
            all[k] = &x->claims[k];
        }
        x->status = claims_combine(all, x->e->nclaims, x->rows);
    }
    for (int i = 0; i < set->ndecs; i++) {
        report_dec *d = &r->decs[i];
        d->d = &set->decs[i];
        const claim_result *all[EXP_MAX_DECISION_EXPS * EXP_MAX_CLAIMS];
        int n = 0;
        for (int k = 0; k < d->d->nexps; k++) {
            const report_exp *x = report_find(r, d->d->exps[k]);
            if (!x)
                continue; /* exp_load_dir refused such a file already */
            d->rows += x->rows;
            for (int c = 0; c < x->e->nclaims; c++)
                all[n++] = &x->claims[c];
        }
        d->status = claims_combine(all, n, d->rows);
    }
    if (plugin_pages(r) != 0) {
        report_free(r);
        return -1;
    }
    return 0;
}

void report_free(report *r)
{
    if (r->exps)
        for (int i = 0; i < r->set->nexps; i++) {
            for (int k = 0; k < EXP_MAX_CLAIMS; k++)
                claim_result_free(&r->exps[i].claims[k]);
            scope_shown_free(&r->exps[i].scope, &r->exps[i].shown);
            scope_free(&r->exps[i].scope);
        }
    for (int i = 0; i < r->nplugins; i++) {
        scope_shown_free(&r->plugins[i].scope, &r->plugins[i].shown);
        scope_free(&r->plugins[i].scope);
    }
    scope_spans_free(&r->spans);
    free(r->exps);
    free(r->decs);
    free(r->plugin_exps);
    free(r->plugins);
    memset(r, 0, sizeof *r);
}

const report_exp *report_find(const report *r, const char *name)
{
    for (int i = 0; i < r->set->nexps; i++)
        if (strcmp(r->exps[i].e->name, name) == 0)
            return &r->exps[i];
    return NULL;
}

const report_exp *report_find_plugin(const report *r, const char *name)
{
    for (int i = 0; i < r->nplugins; i++)
        if (strcmp(r->plugin_exps[i].plugin, name) == 0)
            return &r->plugins[i];
    return NULL;
}

void report_row_label(const report *r, int run, const klab_row *row, char *buf, size_t len)
{
    /* joined, not printf'd: every row's label is written several times over a million-row report */
    const char *part[] = {row->kcase, " ", row->dtype, " ", row->profile, r->runs->n > 1 ? " · " : "",
                          r->runs->n > 1 ? r->runs->runs[run].id : ""};
    size_t n = 0;
    if (!len)
        return;
    for (size_t i = 0; i < sizeof part / sizeof part[0] && n + 1 < len; i++) {
        size_t k = strlen(part[i]);
        if (k > len - 1 - n)
            k = len - 1 - n; /* cut where snprintf cuts */
        memcpy(buf + n, part[i], k);
        n += k;
    }
    buf[n] = 0;
}

void report_cases_with(const report *r, const claim_result *c, claim_verdict verdict, int max, char *buf,
                       size_t len)
{
    (void)r;
    buf[0] = 0;
    int named = 0, more = 0;
    for (int i = 0; i < c->n; i++) {
        const claim_instance *in = &c->inst[i];
        if (in->verdict != verdict)
            continue;
        int seen = 0;
        for (int j = 0; j < i && !seen; j++)
            seen = c->inst[j].verdict == verdict && strcmp(c->inst[j].row->kcase, in->row->kcase) == 0;
        if (seen)
            continue;
        if (named == max) {
            more++;
            continue;
        }
        /* the case, then each dtype it has with this verdict, once */
        size_t n = strlen(buf);
        snprintf(buf + n, len - n, "%s%s (", named ? ", " : "", in->row->kcase);
        int first = 1;
        for (int j = i; j < c->n; j++) {
            const claim_instance *o = &c->inst[j];
            if (o->verdict != verdict || strcmp(o->row->kcase, in->row->kcase) != 0)
                continue;
            int dup = 0;
            for (int k = i; k < j && !dup; k++)
                dup = c->inst[k].verdict == verdict && !strcmp(c->inst[k].row->kcase, o->row->kcase) &&
                      !strcmp(c->inst[k].row->dtype, o->row->dtype);
            if (dup)
                continue;
            n = strlen(buf);
            snprintf(buf + n, len - n, "%s%s", first ? "" : ", ", o->row->dtype);
            first = 0;
        }
        n = strlen(buf);
        snprintf(buf + n, len - n, ")");
        named++;
    }
    if (more) {
        size_t n = strlen(buf);
        snprintf(buf + n, len - n, " and %d more case%s", more, more == 1 ? "" : "s");
    }
}

void report_claim_figure(const exp_claim *claim, const claim_result *c, char *buf, size_t len)
{
    char m[160];
    claim_metric_name(&claim->rule, m, sizeof m);
    for (int i = 0; i < claim->rule.nvs; i++)
        snprintf(m + strlen(m), sizeof m - strlen(m), "%s%s", i ? "|" : " vs ", claim->rule.vs[i]);
    double lo = 0, hi = 0;
    int have = 0;
    for (int i = 0; i < c->n; i++) {
        const claim_instance *in = &c->inst[i];
        if (!in->has_value)
            continue;
        if (!have || in->value < lo)
            lo = in->value;
        if (!have || in->value > hi)
            hi = in->value;
        have = 1;
    }
    if (!have) {
        snprintf(buf, len, c->n ? "%s: no value in the runs given" : "%s: no row in the runs given", m);
        return;
    }
    if (lo == hi)
        snprintf(buf, len, "%s %.4g", m, lo);
    else
        snprintf(buf, len, "%s %.4g–%.4g", m, lo, hi);
}

void report_claim_summary(const report *r, const exp_claim *claim, const claim_result *c, int max, char *buf,
                          size_t len)
{
    report_claim_figure(claim, c, buf, len);
    size_t w = strlen(buf);
    if (c->n)
        snprintf(buf + w, len - w, "; %d of %d case%s met", c->met, c->n, c->n == 1 ? "" : "s");
    char cases[1200];
    static const struct {
        claim_verdict v;
        const char *what;
    } parts[] = {{VERDICT_FAILED, "not met"}, {VERDICT_OPEN, "undecided"}};
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        if (!(parts[i].v == VERDICT_FAILED ? c->failed : c->open))
            continue;
        report_cases_with(r, c, parts[i].v, max, cases, sizeof cases);
        size_t n = strlen(buf);
        snprintf(buf + n, len - n, "; %s at %s", parts[i].what, cases);
    }
}

/* A rate as a figure: whole numbers where they are large, three digits where they are not (a
   3-element reduction moves 0.003 GB/s). */
static void rate(char *buf, size_t len, double v)
{
    snprintf(buf, len, v >= 100 ? "%.0f" : "%.3g", v);
}

void report_measured_figure(const report *r, const report_exp *x, char *buf, size_t len)
{
    /* quick rows count only where the runs hold nothing else: a figure from them is said so */
    (void)r;
    int full = 0;
    for (int i = 0; i < x->scope.n && !full; i++) {
        const klab_row *row = x->scope.at[i].row;
        full = row->status == ROW_PASSED && row->has_time && !row_has_flag(row, "quick");
    }
    double lo = 0, hi = 0;
    int n = 0, tf = 0, quick = 0;
    for (int i = 0; i < x->scope.n; i++) {
        const klab_row *row = x->scope.at[i].row;
        if (row->status != ROW_PASSED || !row->has_time)
            continue;
        if (full && row_has_flag(row, "quick")) {
            quick++;
            continue;
        }
        int t = strcmp(row->limit, "tensor-peak") == 0;
        double v = t ? row->tflops : row->gbps;
        if (n == 0)
            tf = t;
        if (t != tf || !(v > 0))
            continue;
        lo = n == 0 || v < lo ? v : lo;
        hi = n == 0 || v > hi ? v : hi;
        n++;
    }
    if (n == 0) {
        snprintf(buf, len, "no timed row in the runs given");
        return;
    }
    char a[32], b[32];
    rate(a, sizeof a, lo);
    rate(b, sizeof b, hi);
    snprintf(buf, len, "%s–%s %s over %d timed rows%s", a, b, tf ? "TFLOP/s" : "GB/s", n,
             !full ? " (quick rows only)" : "");
    if (quick)
        snprintf(buf + strlen(buf), len - strlen(buf), "; %d quick row%s aside", quick, quick == 1 ? "" : "s");
}

const char report_counters_intro[] =
    "Nsight Compute's counters of each profiled row's kernels, from one launch under ncu (klab --with-profiling); "
    "a claim over a counter reads the row's maximum over its kernels.";

/* The first n bytes of s into dst, cut to its size as snprintf cuts */
static void cut(char *dst, size_t size, const char *s, size_t n)
{
    if (n >= size)
        n = size - 1;
    memcpy(dst, s, n);
    dst[n] = 0;
}

static int counters_heading(const report *r, int run, const klab_row *row, char *buf, size_t len)
{
    const run_counters *c = run_set_counters(&r->runs->runs[run], row);
    if (!c || !c->present)
        return 0;
    /* the whole line, then cut to len as the appends cut it; its figures by fixed_text, not printf */
    char full[2 * FIXED_MAX + 600];
    size_t n = 0;
    if (row->has_time) {
        n += (size_t)sprintf(full + n, "median ");
        n += (size_t)fixed_text(full + n, row->median_ms * 1e3, 2);
        n += (size_t)sprintf(full + n, " µs%s", row->bytes > 0 ? "" : "; ");
    }
    if (row->has_time && row->bytes > 0) {
        n += (size_t)sprintf(full + n, " · ");
        n += (size_t)fixed_text(full + n, row->gbps, 0);
        n += (size_t)sprintf(full + n, " GB/s; ");
    }
    if (strcmp(c->status, ncu_status_name(NCU_MEASURED)) == 0)
        n += (size_t)snprintf(full + n, sizeof full - n, "ncu measured %d kernel%s", c->nkernels,
                              c->nkernels == 1 ? "" : "s");
    else
        n += (size_t)snprintf(full + n, sizeof full - n, "no counters: ncu %s%s%.200s", c->status,
                              c->reason[0] ? ": " : "", c->reason);
    cut(buf, len, full, n);
    return 1;
}

static void kernel_cells(const run_kernel *k, report_kernel_cells *out)
{
    const char *s = strncmp(k->name, "void ", 5) == 0 ? k->name + 5 : k->name;
    size_t n = strlen(s);
    if (n && s[n - 1] == ')') { /* the parameter list: from its matching '(' on */
        int depth = 0;
        size_t i = n;
        while (i-- > 0) {
            depth += s[i] == ')' ? 1 : s[i] == '(' ? -1 : 0;
            if (depth == 0)
                break;
        }
        if (i < n)
            n = i;
    }
    /* a page shows every profiled row's: copies and fixed_general, not printf, which was most of it */
    cut(out->name, sizeof out->name, s, n);
    cut(out->grid, sizeof out->grid, k->grid, strlen(k->grid));
    cut(out->block, sizeof out->block, k->block, strlen(k->block));
    for (int m = 0; m < NCU_NMETRICS; m++) {
        char g[FIXED_MAX];
        int len = k->has[m] ? fixed_general(g, k->v[m], 4) : (int)strlen(strcpy(g, "—"));
        cut(out->v[m], sizeof out->v[m], g, (size_t)len);
    }
}

int report_left_out(const report *r, const report_exp *x, char *buf, size_t len)
{
    buf[0] = 0;
    if (x->shown.n == x->scope.n)
        return 0;
    char which[120];
    if (r->runs->n > 1)
        snprintf(which, sizeof which, "at most the first %d of each of the %d runs", scope_shown_share(r->runs->n),
                 r->runs->n);
    else
        snprintf(which, sizeof which, "the run's first %d", x->shown.n);
    snprintf(buf, len,
             "Of the %d rows in scope, the tables and charts below show %d (%s): %d rows are left out of them. "
             "The runs' CSVs hold every row, and the claims and status are judged over all %d.",
             x->scope.n, x->shown.n, which, x->scope.n - x->shown.n, x->scope.n);
    return 1;
}

void report_counters_each(FILE *fp, const report *r, const report_exp *x, report_counters_fn fn)
{
    int first = 1;
    for (int ri = 0, si = 0; ri < r->runs->n; ri++) {
        const run_dir *run = &r->runs->runs[ri];
        if (si == x->shown.n || x->shown.at[si].run != ri)
            continue; /* none of the run's rows is in scope */
        report_kernel_cells *cells = calloc((size_t)run->nkernels + 1, sizeof *cells);
        for (; cells && si < x->shown.n && x->shown.at[si].run == ri; si++) {
            const klab_row *row = x->shown.at[si].row;
            char label[300], head[600];
            if (!counters_heading(r, ri, row, head, sizeof head))
                continue;
            int nk = 0;
            for (int i = run_set_first_kernel(run, row); i >= 0; i = run->kernels[i].next)
                kernel_cells(&run->kernels[i], &cells[nk++]);
            report_row_label(r, ri, row, label, sizeof label);
            fn(fp, first, label, head, cells, nk);
            first = 0;
        }
        free(cells);
    }
}

int report_write_file(const char *path, report_page_fn fn, const report *r, const void *arg, char *err, size_t errlen)
{
    FILE *fp = fopen(path, "w");
    if (!fp) {
        snprintf(err, errlen, "%s: cannot write: %s", path, strerror(errno));
        return -1;
    }
    fn(fp, r, arg);
    if (ferror(fp) | fclose(fp)) {
        snprintf(err, errlen, "%s: write failed", path);
        return -1;
    }
    return 0;
}
