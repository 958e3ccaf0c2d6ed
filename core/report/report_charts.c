#include "report/report_charts.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "evidence/ncu_csv.h"
#include "report/chart_frame.h"
#include "report/svg.h"
#include "stats/stats.h"
#include "util/file_read.h"

#define BAR_H 13.0
#define BAR_GAP 4.0
#define GROUP_H 16.0 /* a dtype's heading among the bars */

/* A profile's colour, the same on every chart of an experiment: its place among the experiment's
   profiles of its kind (klab's or PyTorch's) in the order the runs hold them. */
static const char *profile_color(const report *r, const report_exp *x, const klab_row *row)
{
    (void)r;
    char seen[64][64];
    int n = 0, ext = chart_external(row);
    for (int si = 0; si < x->shown.n; si++) {
        const klab_row *o = x->shown.at[si].row;
        if (!claims_in_scope(x->e, o) || chart_external(o) != ext)
            continue;
        int at = -1;
        for (int i = 0; i < n && at < 0; i++)
            if (strcmp(seen[i], o->profile) == 0)
                at = i;
        if (at < 0 && n < 64)
            snprintf(seen[at = n++], sizeof seen[0], "%s", o->profile);
        if (strcmp(o->profile, row->profile) == 0)
            return ext ? svg_color_external(at) : svg_color(at);
    }
    return ext ? svg_color_external(0) : svg_color(0);
}

/* ---- rates of one case ---- */

typedef struct bar {
    const klab_row *row;
    int run;
    double v, lo, hi, limit;
    int has_ci;
    char label[200], value[64];
} bar;

/* Whether a row is a bar of the case's chart. */
static int rate_row(const report_exp *x, const klab_row *o, const char *kcase)
{
    return claims_in_scope(x->e, o) && !strcmp(o->kcase, kcase) && o->has_time && o->status == ROW_PASSED;
}

/* Adds names[] the text at s unless it is there; its index, or -1 when names[] is full. */
static int name_index(char (*names)[64], int *n, int max, const char *s)
{
    for (int i = 0; i < *n; i++)
        if (!strcmp(names[i], s))
            return i;
    if (*n == max)
        return -1;
    snprintf(names[*n], sizeof names[0], "%s", s);
    return (*n)++;
}

/* One part of a case's bars: [first, first + count) of n. */
static void rates_part(FILE *fp, const report *r, const report_exp *x, const char *kcase, int tflops,
                       const bar *bars, int first, int count, int n, const chart_cols *cols, double top)
{
    int groups = 0;
    for (int i = first; i < first + count; i++)
        groups += i == first || strcmp(bars[i - 1].row->dtype, bars[i].row->dtype);
    double h = CHART_TOP + CHART_BOTTOM + count * (BAR_H + BAR_GAP) + groups * GROUP_H, w = chart_cols_w(cols);
    char title[400], part[64];
    chart_part_suffix(part, sizeof part, first, count, n);
    snprintf(title, sizeof title, "%s: %s per row, 95 %% interval%s", kcase, tflops ? "TFLOP/s" : "GB/s", part);
    svg_begin(fp, w, h, title);
    chart_title(fp, w, title, tflops ? "red dashed: the tensor peak" : "red dashed: klab's copy at the same bytes",
                "#d00000");
    chart_rows_heading(fp, cols, r->runs->n > 1 ? "dtype, profile · run" : "dtype, profile");
    svg_axis a = {0, top * 1.05, 0, cols->label_w, cols->label_w + cols->plot_w};
    chart_x_axis(fp, &a, CHART_TOP - 4, h - CHART_BOTTOM + 4, tflops ? "TFLOP/s" : "GB/s");
    double y = CHART_TOP;
    for (int i = first; i < first + count; i++) {
        const bar *b = &bars[i];
        if (i == first || strcmp(bars[i - 1].row->dtype, b->row->dtype)) {
            svg_text(fp, 6, y + 12, "start", 11, "#222", b->row->dtype);
            y += GROUP_H;
        }
        char full[300], tipb[600];
        report_row_label(r, b->run, b->row, full, sizeof full);
        snprintf(tipb, sizeof tipb, "%s: %.1f [%.1f–%.1f] %s, median %.2f us", full, b->v, b->lo, b->hi,
                 tflops ? "TFLOP/s" : "GB/s", b->row->median_ms * 1e3);
        chart_label(fp, cols, y + BAR_H - 3, chart_external(b->row) ? "#a04000" : "#222", b->label);
        svg_rect(fp, cols->label_w, y, svg_map(&a, b->v) - cols->label_w, BAR_H, profile_color(r, x, b->row), tipb);
        if (b->has_ci) {
            double yl = y + BAR_H / 2, x0 = svg_map(&a, b->lo), x1 = svg_map(&a, b->hi);
            svg_line(fp, x0, yl, x1, yl, "#000", 1.2, 0);
            svg_line(fp, x0, yl - 4, x0, yl + 4, "#000", 1.2, 0);
            svg_line(fp, x1, yl - 4, x1, yl + 4, "#000", 1.2, 0);
        }
        if (b->limit > 0) {
            double lx = svg_map(&a, b->limit);
            svg_line(fp, lx, y - BAR_GAP / 2, lx, y + BAR_H + BAR_GAP / 2, "#d00000", 2, 1);
        }
        chart_value(fp, cols, y + BAR_H - 3, b->value);
        y += BAR_H + BAR_GAP;
    }
    svg_end(fp);
}

int chart_rates(FILE *fp, const report *r, const report_exp *x, const char *kcase)
{
    int tflops = 0, n = 0, cap = 16;
    for (int si = 0; si < x->shown.n; si++) {
        const klab_row *o = x->shown.at[si].row;
        tflops |= rate_row(x, o, kcase) && !strcmp(o->limit, "tensor-peak");
    }
    /* dtype by dtype, then profile by profile, each in the order the runs hold them: a profile's runs
       side by side */
    char dtypes[16][64], profiles[64][64];
    int nd = 0, np = 0;
    for (int si = 0; si < x->shown.n; si++) {
        const klab_row *o = x->shown.at[si].row;
        if (rate_row(x, o, kcase)) {
            name_index(dtypes, &nd, 16, o->dtype);
            name_index(profiles, &np, 64, o->profile);
        }
    }
    bar *bars = calloc((size_t)cap, sizeof *bars);
    chart_cols cols = chart_cols_new();
    for (int d = 0; d < nd && bars; d++)
        for (int p = 0; p < np && bars; p++)
            for (int si = 0; si < x->shown.n && bars; si++) {
                int ri = x->shown.at[si].run;
                const klab_row *o = x->shown.at[si].row;
                double v = tflops ? o->tflops : o->gbps;
                if (!rate_row(x, o, kcase) || strcmp(o->dtype, dtypes[d]) || strcmp(o->profile, profiles[p]) ||
                    !(v > 0))
                    continue;
                if (n == cap) {
                    bar *q = realloc(bars, (size_t)(cap *= 2) * sizeof *q);
                    if (!q)
                        break;
                    bars = q;
                }
                bar *b = &bars[n++];
                memset(b, 0, sizeof *b);
                b->row = o;
                b->run = ri;
                b->v = v;
                b->has_ci = o->has_ci && o->median_lo > 0;
                b->lo = b->has_ci ? v * o->median_ms / o->median_hi : v;
                b->hi = b->has_ci ? v * o->median_ms / o->median_lo : v;
                if (tflops && !strcmp(o->limit, "tensor-peak") && o->frac_limit > 0)
                    b->limit = o->tflops / o->frac_limit;
                else if (!tflops && o->limit_gbps > 0)
                    b->limit = o->limit_gbps;
                snprintf(b->label, sizeof b->label, "%s%s%s", o->profile, r->runs->n > 1 ? " · " : "",
                         r->runs->n > 1 ? chart_run_name(r, ri) : "");
                snprintf(b->value, sizeof b->value, "%.0f", v);
                if (o->has_limit)
                    snprintf(b->value, sizeof b->value, "%.0f (%.0f %%)", v, 100 * o->frac_limit);
                chart_cols_fit(&cols, b->label, b->value);
            }
    if (!bars || n == 0) {
        free(bars);
        return 0;
    }
    double top = 0;
    for (int i = 0; i < n; i++)
        top = fmax(top, fmax(bars[i].hi, bars[i].limit));
    char title[400], part[64];
    chart_part_suffix(part, sizeof part, n - 1, 1, n); /* the longest the parts' titles get */
    snprintf(title, sizeof title, "%s: %s per row, 95 %% interval%s", kcase, tflops ? "TFLOP/s" : "GB/s", part);
    chart_cols_title(&cols, title);
    for (int first = 0; first < n; first += CHART_ROWS) {
        chart_part(fp, first, n);
        rates_part(fp, r, x, kcase, tflops, bars, first, n - first < CHART_ROWS ? n - first : CHART_ROWS, n, &cols,
                   top);
    }
    chart_part(fp, n, n);
    free(bars);
    return 1;
}

/* ---- dots with intervals, log scale ---- */

typedef struct dot {
    char label[300], value[64];
    double v, lo, hi;
    int has_ci;
    const char *color;
} dot;

static void dot_part(FILE *fp, const char *title, const dot *d, int count, const svg_axis *scale,
                     const chart_cols *cols, double line, const char *unit, const char *heading)
{
    double h = CHART_TOP + CHART_BOTTOM + count * (BAR_H + BAR_GAP), w = chart_cols_w(cols);
    svg_axis a = *scale;
    a.p0 = cols->label_w;
    a.p1 = cols->label_w + cols->plot_w;
    svg_begin(fp, w, h, title);
    chart_title(fp, w, title, line > 0 ? "red dashed: the claim's number" : "", "#d00000");
    chart_rows_heading(fp, cols, heading);
    chart_x_axis(fp, &a, CHART_TOP - 4, h - CHART_BOTTOM + 4, unit);
    if (line > 0) {
        double lx = svg_map(&a, line);
        svg_line(fp, lx, CHART_TOP - 6, lx, h - CHART_BOTTOM + 4, "#d00000", 1.5, 1);
    }
    double y = CHART_TOP;
    for (int i = 0; i < count; i++) {
        double yc = y + BAR_H / 2;
        chart_label(fp, cols, y + BAR_H - 3, "#222", d[i].label);
        if (d[i].has_ci) {
            double x0 = svg_map(&a, d[i].lo), x1 = svg_map(&a, d[i].hi);
            svg_line(fp, x0, yc, x1, yc, d[i].color, 2, 0);
            svg_line(fp, x0, yc - 4, x0, yc + 4, d[i].color, 1.5, 0);
            svg_line(fp, x1, yc - 4, x1, yc + 4, d[i].color, 1.5, 0);
        }
        svg_circle(fp, svg_map(&a, d[i].v), yc, 4, d[i].color, d[i].value);
        chart_value(fp, cols, y + BAR_H - 3, d[i].value);
        y += BAR_H + BAR_GAP;
    }
    svg_end(fp);
}

static void dot_chart(FILE *fp, const report *r, const char *title, dot *d, int n, double line, const char *unit)
{
    double lo = line > 0 ? line : 1, hi = lo;
    chart_cols cols = chart_cols_new();
    for (int i = 0; i < n; i++) {
        lo = fmin(lo, d[i].has_ci ? d[i].lo : d[i].v);
        hi = fmax(hi, d[i].has_ci ? d[i].hi : d[i].v);
        snprintf(d[i].value, sizeof d[i].value, d[i].has_ci ? "%.3f [%.3f–%.3f]" : "%.3f", d[i].v, d[i].lo, d[i].hi);
        chart_cols_fit(&cols, d[i].label, d[i].value);
    }
    /* every part on the same scale, so that parts compare */
    svg_axis a = {lo / 1.08, hi * 1.08, 1, 0, 0};
    if (hi / lo < 2) /* a narrow range reads better on a linear axis */
        a = (svg_axis){lo - (hi - lo) * 0.08 - 1e-3, hi + (hi - lo) * 0.08 + 1e-3, 0, 0, 0};
    const char *heading = r->runs->n > 1 ? "case dtype profile · run" : "case dtype profile"; /* report_row_label */
    char longest[600], part[64];
    chart_part_suffix(part, sizeof part, n - 1, 1, n);
    snprintf(longest, sizeof longest, "%s%s", title, part);
    chart_cols_title(&cols, longest);
    for (int first = 0; first < n; first += CHART_ROWS) {
        int count = n - first < CHART_ROWS ? n - first : CHART_ROWS;
        char full[600];
        chart_part_suffix(part, sizeof part, first, count, n);
        snprintf(full, sizeof full, "%s%s", title, part);
        chart_part(fp, first, n);
        dot_part(fp, full, d + first, count, &a, &cols, line, unit, heading);
    }
    chart_part(fp, n, n);
}

int chart_claim(FILE *fp, const report *r, const report_exp *x, int k)
{
    const claim_result *c = &x->claims[k];
    const exp_claim *cl = &x->e->claims[k];
    dot *d = calloc((size_t)(c->n ? c->n : 1), sizeof *d);
    int n = 0;
    if (!d)
        return 0;
    int all = 0; /* the instances with a value: a claim over a million rows draws the first SCOPE_SHOWN_MAX */
    for (int i = 0; i < c->n; i++) {
        const claim_instance *in = &c->inst[i];
        if (!in->has_value || all++ >= SCOPE_SHOWN_MAX)
            continue;
        report_row_label(r, in->run, in->row, d[n].label, sizeof d[n].label);
        d[n].v = in->value;
        d[n].has_ci = in->has_interval;
        d[n].lo = in->has_interval ? in->lo : in->value;
        d[n].hi = in->has_interval ? in->hi : in->value;
        d[n].color = in->verdict == VERDICT_MET ? "#2ca02c" : in->verdict == VERDICT_FAILED ? "#d62728" : "#ff9f1a";
        n++;
    }
    if (n) {
        char title[400], m[160];
        claim_metric_name(&cl->rule, m, sizeof m);
        int len = snprintf(title, sizeof title, "claim %s: %s%s%s (green met, red not met, orange undecided)",
                           cl->name, m, cl->rule.nvs ? " vs " : "", cl->rule.nvs ? cl->rule.vs[0] : "");
        if (n < all && len > 0 && (size_t)len < sizeof title)
            snprintf(title + len, sizeof title - (size_t)len, ", the first %d of %d cases", n, all);
        dot_chart(fp, r, title, d, n, cl->rule.threshold, m);
    }
    free(d);
    return n > 0;
}

int chart_speedup(FILE *fp, const report *r, const report_exp *x)
{
    int n = 0, cap = 64;
    dot *d = calloc((size_t)cap, sizeof *d);
    if (!d)
        return 0;
    for (int si = 0; si < x->shown.n; si++) {
        int ri = x->shown.at[si].run;
        const klab_row *o = x->shown.at[si].row;
        if (!claims_in_scope(x->e, o) || !o->has_time || !o->has_speedup || o->status != ROW_PASSED ||
            o->speedup == 1.0)
            continue;
        if (n == cap) {
            dot *p = realloc(d, (size_t)(cap *= 2) * sizeof *p);
            if (!p)
                break;
            d = p;
        }
        report_row_label(r, ri, o, d[n].label, sizeof d[n].label);
        d[n].v = o->speedup;
        d[n].has_ci = o->has_speedup_ci;
        d[n].lo = o->has_speedup_ci ? o->speedup_lo : o->speedup;
        d[n].hi = o->has_speedup_ci ? o->speedup_hi : o->speedup;
        d[n].color = profile_color(r, x, o);
        n++;
    }
    if (n)
        dot_chart(fp, r, "speedup over the plugin's baseline profile, 95 % interval", d, n, 1.0, "x baseline");
    free(d);
    return n > 0;
}

/* ---- counters ---- */

typedef struct counter_row {
    int run;
    const klab_row *row;
    int has[2];
    double v[2];
    char label[300], value[64];
} counter_row;

static const char *const counter_shown[2] = {"dram_pct", "achieved_occupancy_pct"};
static const char counters_title[] =
    "counters per profiled row: DRAM throughput % of peak (blue), achieved occupancy % (orange)";

static void counters_part(FILE *fp, const report *r, const counter_row *c, int first, int count, int n,
                          const chart_cols *cols)
{
    static const char *const color[2] = {"#1f77b4", "#ff7f0e"};
    double h = CHART_TOP + CHART_BOTTOM + count * (2 * BAR_H + BAR_GAP), w = chart_cols_w(cols);
    char title[300], part[64];
    chart_part_suffix(part, sizeof part, first, count, n);
    snprintf(title, sizeof title, "%s%s", counters_title, part);
    svg_begin(fp, w, h, title);
    chart_title(fp, w, title, "", "");
    chart_rows_heading(fp, cols, r->runs->n > 1 ? "case dtype profile · run" : "case dtype profile");
    svg_axis a = {0, 100, 0, cols->label_w, cols->label_w + cols->plot_w};
    chart_x_axis(fp, &a, CHART_TOP - 4, h - CHART_BOTTOM + 4, "% (the row's maximum over its kernels)");
    double y = CHART_TOP;
    for (int i = first; i < first + count; i++) {
        chart_label(fp, cols, y + BAR_H + 3, "#222", c[i].label);
        for (int j = 0; j < 2; j++) {
            if (!c[i].has[j])
                continue;
            char tip[400];
            snprintf(tip, sizeof tip, "%s: %s %.2f", c[i].label, counter_shown[j], c[i].v[j]);
            svg_rect(fp, cols->label_w, y + j * BAR_H, svg_map(&a, fmin(c[i].v[j], 100)) - cols->label_w, BAR_H - 1,
                     color[j], tip);
        }
        chart_value(fp, cols, y + BAR_H + 3, c[i].value);
        y += 2 * BAR_H + BAR_GAP;
    }
    svg_end(fp);
}

int chart_counters(FILE *fp, const report *r, const report_exp *x)
{
    int m[2] = {-1, -1}, n = 0, cap = 0;
    for (int i = 0; i < NCU_NMETRICS; i++)
        for (int j = 0; j < 2; j++)
            if (strcmp(ncu_metrics[i].column, counter_shown[j]) == 0)
                m[j] = i;
    if (m[0] < 0 || m[1] < 0)
        return 0;
    counter_row *c = NULL;
    chart_cols cols = chart_cols_new();
    for (int si = 0; si < x->shown.n; si++) {
        int ri = x->shown.at[si].run;
        const run_dir *run = &r->runs->runs[ri];
        const klab_row *o = x->shown.at[si].row;
        counter_row e = {ri, o, {0, 0}, {0, 0}, "", ""};
        for (int j = 0; j < 2; j++)
            e.has[j] = run_set_counter_value(run, o, m[j], &e.v[j]);
        if (!claims_in_scope(x->e, o) || !(e.has[0] || e.has[1]))
            continue;
        if (n == cap) {
            counter_row *q = realloc(c, (size_t)(cap = cap ? 2 * cap : 16) * sizeof *q);
            if (!q)
                break;
            c = q;
        }
        report_row_label(r, ri, o, e.label, sizeof e.label);
        for (int j = 0; j < 2; j++)
            if (e.has[j])
                snprintf(e.value + strlen(e.value), sizeof e.value - strlen(e.value), "%s%.1f %%",
                         j && e.has[0] ? " · " : "", e.v[j]);
        chart_cols_fit(&cols, e.label, e.value);
        c[n++] = e;
    }
    char title[300], part[64];
    chart_part_suffix(part, sizeof part, n - 1, 1, n);
    snprintf(title, sizeof title, "%s%s", counters_title, part);
    chart_cols_title(&cols, title);
    for (int first = 0; first < n; first += CHART_ROWS) {
        chart_part(fp, first, n);
        counters_part(fp, r, c, first, n - first < CHART_ROWS ? n - first : CHART_ROWS, n, &cols);
    }
    chart_part(fp, n, n);
    free(c);
    return n > 0;
}

/* ---- a step row's latency histogram ---- */

int chart_histogram(FILE *fp, const report *r, int run, const klab_row *row)
{
    if (!row->samples_file[0])
        return 0;
    const run_dir *d = &r->runs->runs[run];
    char path[8400], dir[4096];
    snprintf(dir, sizeof dir, "%s", d->path);
    if (d->is_file) {
        char *slash = strrchr(dir, '/');
        snprintf(slash ? slash : dir, 2, "%s", slash ? "" : ".");
    }
    /* the name comes from a CSV: a file inside the run folder, never one above it or elsewhere */
    const char *sf = row->samples_file;
    if (sf[0] == '/' || !strncmp(sf, "../", 3) || strstr(sf, "/../") ||
        (strlen(sf) >= 3 && !strcmp(sf + strlen(sf) - 3, "/..")) || !strcmp(sf, ".."))
        return 0;
    snprintf(path, sizeof path, "%s/%s", dir, sf);
    /* a regular file, bounded: a FIFO would block, a link to /dev/zero would be read for ever */
    char why[600];
    size_t len;
    char *text = file_read_whole(path, (size_t)256 << 20, &len, why, sizeof why);
    if (!text)
        return 0;
    size_t n = 0, cap = 1024;
    double *v = malloc(cap * sizeof *v);
    for (char *line = text, *next; v && line < text + len; line = next) {
        next = memchr(line, '\n', (size_t)(text + len - line));
        if (next)
            *next++ = 0; /* a line at a time: sscanf must not read on into the next one */
        else
            next = text + len;
        long long step;
        double ms;
        if (sscanf(line, "%lld,%lf", &step, &ms) != 2 || !(ms > 0))
            continue; /* the header, or a line that is not a sample */
        if (n == cap) {
            double *p = realloc(v, (cap *= 2) * sizeof *p);
            if (!p)
                break;
            v = p;
        }
        v[n++] = ms;
    }
    free(text);
    stats st;
    if (!v || n < 2 || stats_compute(v, n, &st) != 0) {
        free(v);
        return 0;
    }
    enum { BINS = 40 };
    int count[BINS] = {0}, most = 0;
    double lo = st.min, hi = st.max > st.min ? st.max : st.min * 1.01 + 1e-9;
    for (size_t i = 0; i < n; i++) {
        int b = (int)((v[i] - lo) / (hi - lo) * BINS);
        b = b < 0 ? 0 : b >= BINS ? BINS - 1 : b;
        if (++count[b] > most)
            most = count[b];
    }
    free(v);
    char title[400];
    char label[300];
    report_row_label(r, run, row, label, sizeof label);
    snprintf(title, sizeof title, "%s: %zu step latencies (p50 %.4f ms, p95 %.4f ms)", label, n, st.median, st.p95);
    double w = 640, h = 240, top = 36, bottom = CHART_BOTTOM, left = 56;
    svg_begin(fp, w, h, title);
    chart_title(fp, w, title, "", "");
    svg_axis ax = {lo, hi, 0, left, w - 10};
    svg_axis ay = {0, most, 0, h - bottom, top};
    for (int b = 0; b < BINS; b++) {
        double x0 = svg_map(&ax, lo + (hi - lo) * b / BINS), x1 = svg_map(&ax, lo + (hi - lo) * (b + 1) / BINS);
        char tipb[64];
        snprintf(tipb, sizeof tipb, "%d samples", count[b]);
        svg_rect(fp, x0, svg_map(&ay, count[b]), x1 - x0 - 1, h - bottom - svg_map(&ay, count[b]), "#1f77b4", tipb);
    }
    double t[32];
    int nt = svg_ticks(&ax, t, 32);
    for (int i = 0; i < nt; i++) {
        char lab[32];
        snprintf(lab, sizeof lab, "%g", t[i]);
        svg_text(fp, svg_map(&ax, t[i]), h - bottom + 14, "middle", 10, "#555", lab);
    }
    nt = svg_ticks(&ay, t, 32);
    for (int i = 0; i < nt; i++) {
        char lab[32];
        snprintf(lab, sizeof lab, "%g", t[i]);
        svg_text(fp, left - 4, svg_map(&ay, t[i]) + 4, "end", 10, "#555", lab);
    }
    svg_text_up(fp, 12, (top + h - bottom) / 2, 10, "#555", "samples");
    svg_text(fp, w - 10, h - 4, "end", 10, "#555", "ms a step");
    svg_line(fp, svg_map(&ax, st.median), top, svg_map(&ax, st.median), h - bottom, "#2ca02c", 2, 1);
    svg_line(fp, svg_map(&ax, st.p95), top, svg_map(&ax, st.p95), h - bottom, "#d62728", 2, 1);
    svg_text(fp, svg_map(&ax, st.median) + 3, top + 8, "start", 10, "#2ca02c", "p50");
    svg_text(fp, svg_map(&ax, st.p95) + 3, top + 20, "start", 10, "#d62728", "p95");
    svg_end(fp);
    return 1;
}
