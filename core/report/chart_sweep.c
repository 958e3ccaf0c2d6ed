#include "report/chart_sweep.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/chart_frame.h"
#include "report/svg.h"

#define MAXP 64        /* row lengths a line holds */
#define W 900.0
#define LEFT 70.0      /* the y axis's ticks and title */
#define RIGHT 30.0     /* half the last tick's label */
#define PLOT_TOP 48.0  /* the title and the note */
#define PLOT_H 280.0
#define LEGEND_GAP 44.0 /* the x axis's ticks and title */
#define LEGEND_ROW 16.0

typedef struct series {
    char key[200];
    const klab_row *row0;
    int run, copy, external, n, drawn;
    double xs[MAXP], ys[MAXP];
} series;

static double row_length(const klab_row *row)
{
    const char *x = strrchr(row->shape, 'x');
    return strtod(x ? x + 1 : row->shape, NULL);
}

/* Whether run a is newer than run b: by meta.ini's start, else by its place on the command line. */
static int newer(const report *r, int a, int b)
{
    int c = strcmp(r->runs->runs[a].started, r->runs->runs[b].started);
    return c ? c > 0 : a > b;
}

static void add_point(series *q, double n, double v)
{
    for (int i = 0; i < q->n; i++)
        if (q->xs[i] == n)
            return; /* the first run's copy at this N stands for the others' */
    if (q->n == MAXP)
        return;
    int i = q->n++;
    while (i > 0 && q->xs[i - 1] > n) { /* kept in order of N */
        q->xs[i] = q->xs[i - 1];
        q->ys[i] = q->ys[i - 1];
        i--;
    }
    q->xs[i] = n;
    q->ys[i] = v;
}

/* The lines of one dtype, the copy's first; NULL when memory ran out. */
static series *collect(const report *r, const report_exp *x, const char *dtype, int *count)
{
    int ns = 1, cap = 16;
    series *s = calloc((size_t)cap, sizeof *s);
    if (!s)
        return NULL;
    snprintf(s[0].key, sizeof s[0].key, "klab's copy at the same bytes");
    s[0].copy = 1;
    for (int si = 0; si < x->shown.n; si++) {
        int ri = x->shown.at[si].run;
        const klab_row *o = x->shown.at[si].row;
        double n = row_length(o);
        if (!claims_in_scope(x->e, o) || o->status != ROW_PASSED || !o->has_time || !(n > 0) ||
            strcmp(o->dtype, dtype))
            continue;
        if (o->limit_gbps > 0)
            add_point(&s[0], n, o->limit_gbps);
        if (!(o->gbps > 0))
            continue;
        char key[200];
        snprintf(key, sizeof key, "%s%s%s", o->profile, r->runs->n > 1 ? " · " : "",
                 r->runs->n > 1 ? chart_run_name(r, ri) : "");
        int at = -1;
        for (int i = 1; i < ns && at < 0; i++)
            if (!strcmp(s[i].key, key))
                at = i;
        if (at < 0) {
            if (ns == cap) {
                series *q = realloc(s, (size_t)(cap *= 2) * sizeof *q);
                if (!q) {
                    free(s);
                    return NULL;
                }
                s = q;
            }
            at = ns++;
            memset(&s[at], 0, sizeof s[at]);
            snprintf(s[at].key, sizeof s[at].key, "%s", key);
            s[at].row0 = o;
            s[at].run = ri;
            s[at].external = chart_external(o);
        }
        add_point(&s[at], n, o->gbps);
    }
    *count = ns;
    return s;
}

/* Marks the lines drawn: each with two row lengths or more, the newest runs' first, SWEEP_SERIES at
   most; the copy always. What was left out goes into note. */
static int choose(const report *r, series *s, int ns, char *note, size_t len)
{
    int drawn = 0, left = 0, oldest = -1, newest = -1;
    s[0].drawn = s[0].n > 0;
    for (int i = 1; i < ns; i++)
        drawn += s[i].drawn = s[i].n >= 2;
    while (drawn > SWEEP_SERIES) {
        int old = -1;
        for (int i = 1; i < ns; i++)
            if (s[i].drawn && (old < 0 || newer(r, s[old].run, s[i].run)))
                old = i;
        s[old].drawn = 0;
        drawn--;
        left++;
        if (oldest < 0 || newer(r, oldest, s[old].run))
            oldest = s[old].run;
        if (newest < 0 || newer(r, s[old].run, newest))
            newest = s[old].run;
    }
    note[0] = 0;
    if (left)
        snprintf(note, len, "past %d lines, not drawn: %d lines of the oldest runs, %s to %s", SWEEP_SERIES, left,
                 chart_run_name(r, oldest), chart_run_name(r, newest));
    return drawn;
}

/* The legend under the plot: a grid of entries as wide as the widest, as many columns as the chart's
   width holds. Returns its height; with fp NULL only measures. */
static double legend(FILE *fp, const series *s, int ns, const svg_style *look, double y0)
{
    double widest = W - 12 - 30, cell = 0;
    int n = 0;
    for (int i = 0; i < ns; i++)
        if (s[i].drawn) {
            cell = fmax(cell, 30 + fmin(svg_text_width(s[i].key, 11), widest) + 16);
            n++;
        }
    int cols = (int)((W - 12) / cell);
    cols = cols < 1 ? 1 : cols;
    for (int i = 0, at = 0; fp && i < ns; i++) {
        if (!s[i].drawn)
            continue;
        double x = 6 + (at % cols) * cell, y = y0 + (at / cols) * LEGEND_ROW;
        fprintf(fp, "<g stroke-dasharray=\"%s\">", look[i].dash[0] ? look[i].dash : "none");
        svg_line(fp, x, y - 4, x + 24, y - 4, look[i].color, 2, 0);
        fputs("</g>\n", fp);
        if (!s[i].copy)
            svg_marker(fp, x + 12, y - 4, 3, look[i].marker, look[i].color, NULL);
        svg_text_fit(fp, x + 30, y, "start", 11, "#222", s[i].key, widest);
        at++;
    }
    return ((n + cols - 1) / cols) * LEGEND_ROW;
}

static void facet(FILE *fp, const report *r, const char *dtype, series *s, int ns)
{
    char note[600], title[200];
    choose(r, s, ns, note, sizeof note);
    double xlo = 0, xhi = 0, yhi = 0;
    svg_style *look = calloc((size_t)ns, sizeof *look);
    if (!look)
        return;
    int kl = 0, ke = 0;
    for (int i = 0; i < ns; i++) {
        if (!s[i].drawn)
            continue;
        look[i] = s[i].copy ? (svg_style){"#d00000", "5 4", 0} : svg_series_style(s[i].external ? ke++ : kl++, s[i].external);
        for (int k = 0; k < s[i].n; k++) {
            xlo = xlo == 0 || s[i].xs[k] < xlo ? s[i].xs[k] : xlo;
            xhi = fmax(xhi, s[i].xs[k]);
            yhi = fmax(yhi, s[i].ys[k]);
        }
    }
    double bottom = PLOT_TOP + PLOT_H, h = bottom + LEGEND_GAP + legend(NULL, s, ns, look, 0) + 8;
    snprintf(title, sizeof title, "row-length sweep, %s: GB/s against the row length N (log 2)", dtype);
    svg_begin(fp, W, h, title);
    chart_title(fp, W, title, note, "#a04000");
    svg_axis ax = {xlo, xhi > xlo ? xhi : xlo * 2, 1, LEFT, W - RIGHT};
    svg_axis ay = {0, yhi * 1.08, 0, bottom, PLOT_TOP};
    double t[32];
    int nt = svg_ticks(&ax, t, 32);
    for (int i = 0; i < nt; i++) {
        char lab[32];
        snprintf(lab, sizeof lab, "%g", t[i]);
        svg_line(fp, svg_map(&ax, t[i]), PLOT_TOP, svg_map(&ax, t[i]), bottom, "#eee", 1, 0);
        svg_text(fp, svg_map(&ax, t[i]), bottom + 14, "middle", 10, "#555", lab);
    }
    nt = svg_ticks(&ay, t, 32);
    for (int i = 0; i < nt; i++) {
        char lab[32];
        snprintf(lab, sizeof lab, "%g", t[i]);
        svg_line(fp, LEFT, svg_map(&ay, t[i]), W - RIGHT, svg_map(&ay, t[i]), "#eee", 1, 0);
        svg_text(fp, LEFT - 4, svg_map(&ay, t[i]) + 4, "end", 10, "#555", lab);
    }
    svg_text_up(fp, 14, (PLOT_TOP + bottom) / 2, 11, "#555", "GB/s");
    svg_text(fp, W - RIGHT, bottom + 28, "end", 10, "#555", "N (elements a row)");
    for (int i = 0; i < ns; i++) {
        if (!s[i].drawn)
            continue;
        double px[MAXP], py[MAXP];
        for (int k = 0; k < s[i].n; k++) {
            px[k] = svg_map(&ax, s[i].xs[k]);
            py[k] = svg_map(&ay, s[i].ys[k]);
        }
        svg_polyline(fp, px, py, s[i].n, look[i].color, look[i].dash);
        for (int k = 0; k < s[i].n && !s[i].copy; k++) {
            char tipb[300];
            snprintf(tipb, sizeof tipb, "%s N=%g: %.0f GB/s", s[i].key, s[i].xs[k], s[i].ys[k]);
            svg_marker(fp, px[k], py[k], 3, look[i].marker, look[i].color, tipb);
        }
    }
    legend(fp, s, ns, look, bottom + LEGEND_GAP);
    svg_end(fp);
    free(look);
}

int chart_sweep(FILE *fp, const report *r, const report_exp *x)
{
    /* one chart per dtype, in the order the runs hold them */
    char dtypes[16][32];
    int nd = 0, any = 0;
    for (int si = 0; si < x->shown.n; si++) {
        const klab_row *o = x->shown.at[si].row;
        int seen = 0;
        for (int d = 0; d < nd && !seen; d++)
            seen = !strcmp(dtypes[d], o->dtype);
        if (!seen && nd < 16 && claims_in_scope(x->e, o))
            snprintf(dtypes[nd++], sizeof dtypes[0], "%s", o->dtype);
    }
    for (int d = 0; d < nd; d++) {
        int ns = 0, lines = 0;
        series *s = collect(r, x, dtypes[d], &ns);
        for (int i = 1; s && i < ns; i++)
            lines += s[i].n >= 2;
        if (lines)
            facet(fp, r, dtypes[d], s, ns);
        any |= lines > 0;
        free(s);
    }
    return any;
}
