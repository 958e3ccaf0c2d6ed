#include "report/report_charts.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "evidence/ncu_csv.h"
#include "report/svg.h"
#include "stats/stats.h"
#include "util/file_read.h"

#define LABEL_W 250.0 /* row labels on the left of a bar or dot chart */
#define PLOT_W 460.0
#define VALUE_W 120.0
#define BAR_H 13.0
#define BAR_GAP 4.0
#define TOP 34.0
#define BOTTOM 30.0

static int external(const klab_row *row)
{
    return row_has_flag(row, "external");
}

/* A profile's colour, the same on every chart of an experiment: its place among the experiment's
   profiles of its kind (klab's or PyTorch's) in the order the runs hold them. */
static const char *profile_color(const report *r, const report_exp *x, const klab_row *row)
{
    (void)r;
    char seen[64][64];
    int n = 0, ext = external(row);
    for (int si = 0; si < x->scope.n; si++) {
        const klab_row *o = x->scope.at[si].row;
        if (external(o) != ext)
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

static void x_axis(FILE *fp, const svg_axis *a, double y, double h, const char *unit)
{
    double t[32];
    int n = svg_ticks(a, t, 32);
    for (int i = 0; i < n; i++) {
        double px = svg_map(a, t[i]);
        char s[32];
        snprintf(s, sizeof s, "%g", t[i]);
        svg_line(fp, px, TOP - 4, px, y, "#e4e4e4", 1, 0);
        svg_text(fp, px, y + 14, "middle", 10, "#555", s);
    }
    svg_text(fp, a->p1, y + 26, "end", 10, "#555", unit);
    (void)h;
}

/* ---- rates of one case ---- */

typedef struct bar {
    const klab_row *row;
    int run;
    double v, lo, hi, limit;
    int has_ci;
} bar;

int chart_rates(FILE *fp, const report *r, const report_exp *x, const char *kcase)
{
    int tflops = 0, n = 0;
    for (int si = 0; si < x->scope.n; si++) {
        const klab_row *o = x->scope.at[si].row;
        if (!strcmp(o->kcase, kcase) && o->has_time && !strcmp(o->limit, "tensor-peak"))
            tflops = 1;
    }
    int cap = 16;
    bar *bars = calloc((size_t)cap, sizeof *bars);
    if (!bars)
        return 0;
    /* dtype by dtype, in the order the runs hold them */
    char dtypes[8][8];
    int nd = 0;
    for (int si = 0; si < x->scope.n; si++) {
        const klab_row *o = x->scope.at[si].row;
        if (strcmp(o->kcase, kcase) || !o->has_time || o->status != ROW_PASSED)
            continue;
        int have = 0;
        for (int d = 0; d < nd; d++)
            have |= !strcmp(dtypes[d], o->dtype);
        if (!have && nd < 8)
            snprintf(dtypes[nd++], sizeof dtypes[0], "%s", o->dtype);
    }
    for (int d = 0; d < nd; d++)
        for (int si = 0; si < x->scope.n; si++) {
            const klab_row *o = x->scope.at[si].row;
            int ri = x->scope.at[si].run;
            if (strcmp(o->kcase, kcase) || strcmp(o->dtype, dtypes[d]) || !o->has_time || o->status != ROW_PASSED)
                continue;
            double v = tflops ? o->tflops : o->gbps;
            if (!(v > 0))
                continue;
            if (n == cap) {
                bar *p = realloc(bars, (size_t)(cap *= 2) * sizeof *p);
                if (!p)
                    break;
                bars = p;
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
        }
    if (n == 0) {
        free(bars);
        return 0;
    }
    double top = 0;
    for (int i = 0; i < n; i++)
        top = fmax(top, fmax(bars[i].hi, bars[i].limit));
    double h = TOP + BOTTOM + n * (BAR_H + BAR_GAP) + nd * 16;
    char title[256];
    snprintf(title, sizeof title, "%s: %s per row, 95 %% interval, limit dashed", kcase, tflops ? "TFLOP/s" : "GB/s");
    svg_begin(fp, LABEL_W + PLOT_W + VALUE_W, h, title);
    svg_text(fp, 6, 16, "start", 13, "#222", title);
    svg_axis a = {0, top * 1.05, 0, LABEL_W, LABEL_W + PLOT_W};
    double y = TOP;
    x_axis(fp, &a, h - BOTTOM + 4, h, tflops ? "TFLOP/s" : "GB/s");
    const char *dt = "";
    for (int i = 0; i < n; i++) {
        const bar *b = &bars[i];
        if (strcmp(dt, b->row->dtype)) {
            dt = b->row->dtype;
            y += 12;
            svg_text(fp, 6, y, "start", 11, "#222", dt);
            y += 4;
        }
        char label[300], tipb[600], val[64];
        report_row_label(r, b->run, b->row, label, sizeof label);
        const char *lab = label + strlen(b->row->kcase) + strlen(b->row->dtype) + 2; /* the profile on */
        snprintf(tipb, sizeof tipb, "%s: %.1f [%.1f–%.1f] %s, median %.2f us", label, b->v, b->lo, b->hi,
                 tflops ? "TFLOP/s" : "GB/s", b->row->median_ms * 1e3);
        svg_text(fp, LABEL_W - 6, y + BAR_H - 3, "end", 11, external(b->row) ? "#a04000" : "#222", lab);
        svg_rect(fp, LABEL_W, y, svg_map(&a, b->v) - LABEL_W, BAR_H, profile_color(r, x, b->row), tipb);
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
        snprintf(val, sizeof val, "%.0f", b->v);
        if (b->row->has_limit)
            snprintf(val, sizeof val, "%.0f (%.0f %%)", b->v, 100 * b->row->frac_limit);
        svg_text(fp, LABEL_W + PLOT_W + 6, y + BAR_H - 3, "start", 10, "#333", val);
        y += BAR_H + BAR_GAP;
    }
    svg_text(fp, LABEL_W + PLOT_W, 16, "end", 10, "#d00000",
             tflops ? "dashed: tensor peak" : "dashed: klab's copy at the same bytes");
    svg_end(fp);
    free(bars);
    return 1;
}

/* ---- dots with intervals, log scale ---- */

typedef struct dot {
    char label[300];
    double v, lo, hi;
    int has_ci;
    const char *color;
} dot;

static void dot_chart(FILE *fp, const char *title, const dot *d, int n, double line, const char *unit)
{
    double lo = line > 0 ? line : 1, hi = lo;
    for (int i = 0; i < n; i++) {
        lo = fmin(lo, d[i].has_ci ? d[i].lo : d[i].v);
        hi = fmax(hi, d[i].has_ci ? d[i].hi : d[i].v);
    }
    svg_axis a = {lo / 1.08, hi * 1.08, 1, LABEL_W, LABEL_W + PLOT_W};
    if (hi / lo < 2) /* a narrow range reads better on a linear axis */
        a = (svg_axis){lo - (hi - lo) * 0.08 - 1e-3, hi + (hi - lo) * 0.08 + 1e-3, 0, LABEL_W, LABEL_W + PLOT_W};
    double h = TOP + BOTTOM + n * (BAR_H + BAR_GAP);
    svg_begin(fp, LABEL_W + PLOT_W + VALUE_W, h, title);
    svg_text(fp, 6, 16, "start", 13, "#222", title);
    x_axis(fp, &a, h - BOTTOM + 4, h, unit);
    if (line > 0) {
        double lx = svg_map(&a, line);
        svg_line(fp, lx, TOP - 6, lx, h - BOTTOM + 4, "#d00000", 1.5, 1);
    }
    double y = TOP;
    for (int i = 0; i < n; i++) {
        double yc = y + BAR_H / 2;
        char val[64];
        svg_text(fp, LABEL_W - 6, y + BAR_H - 3, "end", 11, "#222", d[i].label);
        if (d[i].has_ci) {
            double x0 = svg_map(&a, d[i].lo), x1 = svg_map(&a, d[i].hi);
            svg_line(fp, x0, yc, x1, yc, d[i].color, 2, 0);
            svg_line(fp, x0, yc - 4, x0, yc + 4, d[i].color, 1.5, 0);
            svg_line(fp, x1, yc - 4, x1, yc + 4, d[i].color, 1.5, 0);
        }
        snprintf(val, sizeof val, d[i].has_ci ? "%.3f [%.3f–%.3f]" : "%.3f", d[i].v, d[i].lo, d[i].hi);
        svg_circle(fp, svg_map(&a, d[i].v), yc, 4, d[i].color, val);
        svg_text(fp, LABEL_W + PLOT_W + 6, y + BAR_H - 3, "start", 10, "#333", val);
        y += BAR_H + BAR_GAP;
    }
    svg_end(fp);
}

int chart_claim(FILE *fp, const report *r, const report_exp *x, int k)
{
    const claim_result *c = &x->claims[k];
    const exp_claim *cl = &x->e->claims[k];
    dot *d = calloc((size_t)(c->n ? c->n : 1), sizeof *d);
    int n = 0;
    if (!d)
        return 0;
    for (int i = 0; i < c->n; i++) {
        const claim_instance *in = &c->inst[i];
        if (!in->has_value)
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
        snprintf(title, sizeof title, "claim %s: %s%s%s (green met, red not met, orange undecided)", cl->name, m,
                 cl->rule.nvs ? " vs " : "", cl->rule.nvs ? cl->rule.vs[0] : "");
        dot_chart(fp, title, d, n, cl->rule.threshold, m);
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
    for (int si = 0; si < x->scope.n; si++) {
        const klab_row *o = x->scope.at[si].row;
        int ri = x->scope.at[si].run;
        if (!o->has_time || !o->has_speedup || o->status != ROW_PASSED || o->speedup == 1.0)
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
        dot_chart(fp, "speedup over the plugin's baseline profile, 95 % interval", d, n, 1.0, "x baseline");
    free(d);
    return n > 0;
}

/* ---- counters ---- */

int chart_counters(FILE *fp, const report *r, const report_exp *x)
{
    static const char *const shown[2] = {"dram_pct", "achieved_occupancy_pct"};
    static const char *const color[2] = {"#1f77b4", "#ff7f0e"};
    int m[2] = {-1, -1}, n = 0;
    for (int i = 0; i < NCU_NMETRICS; i++)
        for (int j = 0; j < 2; j++)
            if (strcmp(ncu_metrics[i].column, shown[j]) == 0)
                m[j] = i;
    double v[2];
    for (int si = 0; si < x->scope.n; si++) {
        const run_dir *run = &r->runs->runs[x->scope.at[si].run];
        const klab_row *o = x->scope.at[si].row;
        n += run_set_counter_value(run, o, m[0], &v[0]) || run_set_counter_value(run, o, m[1], &v[1]);
    }
    if (n == 0 || m[0] < 0 || m[1] < 0)
        return 0;
    double h = TOP + BOTTOM + n * (2 * BAR_H + BAR_GAP);
    const char *title = "counters per profiled row: DRAM throughput % of peak (blue), achieved occupancy % (orange)";
    svg_begin(fp, LABEL_W + PLOT_W + VALUE_W, h, title);
    svg_text(fp, 6, 16, "start", 13, "#222", title);
    svg_axis a = {0, 100, 0, LABEL_W, LABEL_W + PLOT_W};
    x_axis(fp, &a, h - BOTTOM + 4, h, "% (the row's maximum over its kernels)");
    double y = TOP;
    for (int si = 0; si < x->scope.n; si++) {
        int ri = x->scope.at[si].run;
        const run_dir *run = &r->runs->runs[ri];
        const klab_row *o = x->scope.at[si].row;
        int has[2] = {run_set_counter_value(run, o, m[0], &v[0]), run_set_counter_value(run, o, m[1], &v[1])};
        if (!(has[0] || has[1]))
            continue;
        char label[300], tip[400], val[64] = "";
        report_row_label(r, ri, o, label, sizeof label);
        svg_text(fp, LABEL_W - 6, y + BAR_H + 3, "end", 11, "#222", label);
        for (int j = 0; j < 2; j++) {
            if (!has[j])
                continue;
            snprintf(tip, sizeof tip, "%s: %s %.2f", label, shown[j], v[j]);
            svg_rect(fp, LABEL_W, y + j * BAR_H, svg_map(&a, fmin(v[j], 100)) - LABEL_W, BAR_H - 1, color[j], tip);
            snprintf(val + strlen(val), sizeof val - strlen(val), "%s%.1f %%", j && has[0] ? " · " : "", v[j]);
        }
        svg_text(fp, LABEL_W + PLOT_W + 6, y + BAR_H + 3, "start", 10, "#333", val);
        y += 2 * BAR_H + BAR_GAP;
    }
    svg_end(fp);
    return 1;
}

/* ---- the row-length sweep ---- */

static double row_length(const klab_row *row)
{
    const char *x = strrchr(row->shape, 'x');
    return strtod(x ? x + 1 : row->shape, NULL);
}

int chart_sweep(FILE *fp, const report *r, const report_exp *x)
{
    enum { MAXS = 24, MAXP = 64 };
    struct series {
        char key[160];
        const klab_row *row0;
        int copy, n;
        double xs[MAXP], ys[MAXP];
    } *s = calloc(MAXS, sizeof *s);
    int ns = 0;
    double xlo = 0, xhi = 0, yhi = 0;
    if (!s)
        return 0;
    for (int pass = 0; pass < 2; pass++) /* pass 1: the copy, one line per dtype */
        for (int si = 0; si < x->scope.n; si++) {
            int ri = x->scope.at[si].run;
            const klab_row *o = x->scope.at[si].row;
            double n = row_length(o), v = pass ? o->limit_gbps : o->gbps;
            if (o->status != ROW_PASSED || !o->has_time || !(n > 0) || !(v > 0))
                continue;
            char key[160];
            snprintf(key, sizeof key, pass ? "copy %s" : "%s %s%s%s", pass ? o->dtype : o->profile,
                     pass ? "" : o->dtype, r->runs->n > 1 && !pass ? " · " : "",
                     r->runs->n > 1 && !pass ? r->runs->runs[ri].id : "");
            int at = -1;
            for (int i = 0; i < ns && at < 0; i++)
                if (!strcmp(s[i].key, key))
                    at = i;
            if (at < 0) {
                if (ns == MAXS)
                    continue;
                at = ns++;
                snprintf(s[at].key, sizeof s[at].key, "%s", key);
                s[at].row0 = o;
                s[at].copy = pass;
            }
            struct series *q = &s[at];
            int dup = 0;
            for (int i = 0; i < q->n; i++)
                dup |= q->xs[i] == n;
            if (dup || q->n == MAXP)
                continue;
            int i = q->n++;
            while (i > 0 && q->xs[i - 1] > n) { /* kept in order of N */
                q->xs[i] = q->xs[i - 1];
                q->ys[i] = q->ys[i - 1];
                i--;
            }
            q->xs[i] = n;
            q->ys[i] = v;
            xlo = xlo == 0 || n < xlo ? n : xlo;
            xhi = n > xhi ? n : xhi;
            yhi = v > yhi ? v : yhi;
        }
    int drawn = 0;
    for (int i = 0; i < ns; i++)
        drawn |= s[i].n >= 2 && !s[i].copy;
    if (drawn) {
        double w = 640, h = 340, legend = 230;
        svg_begin(fp, w + legend, h, "row-length sweep: GB/s against N");
        svg_text(fp, 6, 16, "start", 13, "#222", "row-length sweep: GB/s against the row length N (log 2)");
        svg_axis ax = {xlo, xhi > xlo ? xhi : xlo * 2, 1, 60, w - 10};
        svg_axis ay = {0, yhi * 1.08, 0, h - BOTTOM, TOP};
        double t[32];
        int nt = svg_ticks(&ax, t, 32);
        for (int i = 0; i < nt; i++) {
            char lab[32];
            snprintf(lab, sizeof lab, "%g", t[i]);
            svg_line(fp, svg_map(&ax, t[i]), TOP, svg_map(&ax, t[i]), h - BOTTOM, "#eee", 1, 0);
            svg_text(fp, svg_map(&ax, t[i]), h - BOTTOM + 14, "middle", 10, "#555", lab);
        }
        nt = svg_ticks(&ay, t, 32);
        for (int i = 0; i < nt; i++) {
            char lab[32];
            snprintf(lab, sizeof lab, "%g", t[i]);
            svg_line(fp, 60, svg_map(&ay, t[i]), w - 10, svg_map(&ay, t[i]), "#eee", 1, 0);
            svg_text(fp, 56, svg_map(&ay, t[i]) + 4, "end", 10, "#555", lab);
        }
        svg_text(fp, w - 10, h - 4, "end", 10, "#555", "N (elements a row)");
        int li = 0, kl = 0, ke = 0;
        for (int i = 0; i < ns; i++) {
            if (s[i].n < 2 && !s[i].copy)
                continue;
            double px[MAXP], py[MAXP];
            for (int k = 0; k < s[i].n; k++) {
                px[k] = svg_map(&ax, s[i].xs[k]);
                py[k] = svg_map(&ay, s[i].ys[k]);
            }
            const char *col = s[i].copy ? "#d00000" : external(s[i].row0) ? svg_color_external(ke++) : svg_color(kl++);
            if (s[i].copy)
                fprintf(fp, "<g stroke-dasharray=\"5 4\">");
            svg_polyline(fp, px, py, s[i].n, col);
            if (s[i].copy)
                fprintf(fp, "</g>\n");
            for (int k = 0; k < s[i].n && !s[i].copy; k++) {
                char tipb[200];
                snprintf(tipb, sizeof tipb, "%s N=%g: %.0f GB/s", s[i].key, s[i].xs[k], s[i].ys[k]);
                svg_circle(fp, px[k], py[k], 3, col, tipb);
            }
            double ly = TOP + 14 * li;
            svg_line(fp, w + 6, ly - 4, w + 26, ly - 4, col, 2, s[i].copy);
            svg_text(fp, w + 30, ly, "start", 11, "#222", s[i].key);
            li++;
        }
        svg_end(fp);
    }
    free(s);
    return drawn;
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
    double w = 640, h = 240;
    svg_begin(fp, w, h, title);
    svg_text(fp, 6, 16, "start", 13, "#222", title);
    svg_axis ax = {lo, hi, 0, 50, w - 10};
    svg_axis ay = {0, most, 0, h - BOTTOM, TOP};
    for (int b = 0; b < BINS; b++) {
        double x0 = svg_map(&ax, lo + (hi - lo) * b / BINS), x1 = svg_map(&ax, lo + (hi - lo) * (b + 1) / BINS);
        char tipb[64];
        snprintf(tipb, sizeof tipb, "%d samples", count[b]);
        svg_rect(fp, x0, svg_map(&ay, count[b]), x1 - x0 - 1, h - BOTTOM - svg_map(&ay, count[b]), "#1f77b4", tipb);
    }
    double t[32];
    int nt = svg_ticks(&ax, t, 32);
    for (int i = 0; i < nt; i++) {
        char lab[32];
        snprintf(lab, sizeof lab, "%g", t[i]);
        svg_text(fp, svg_map(&ax, t[i]), h - BOTTOM + 14, "middle", 10, "#555", lab);
    }
    svg_text(fp, w - 10, h - 4, "end", 10, "#555", "ms a step");
    svg_line(fp, svg_map(&ax, st.median), TOP, svg_map(&ax, st.median), h - BOTTOM, "#2ca02c", 2, 1);
    svg_line(fp, svg_map(&ax, st.p95), TOP, svg_map(&ax, st.p95), h - BOTTOM, "#d62728", 2, 1);
    svg_text(fp, svg_map(&ax, st.median) + 3, TOP + 8, "start", 10, "#2ca02c", "p50");
    svg_text(fp, svg_map(&ax, st.p95) + 3, TOP + 8, "start", 10, "#d62728", "p95");
    svg_end(fp);
    return 1;
}
