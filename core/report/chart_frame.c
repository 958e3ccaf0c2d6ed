#include "report/chart_frame.h"

#include <math.h>
#include <string.h>

#include "report/svg.h"

#define LABEL_MIN 120.0
#define LABEL_MAX 400.0 /* with the plot and the widest value column, CHART_W_MAX */
#define VALUE_MIN 60.0
#define VALUE_MAX 240.0
#define PLOT_W 460.0
#define PAD 6.0

int chart_external(const klab_row *row)
{
    return row_has_flag(row, "external");
}

const char *chart_run_name(const report *r, int run)
{
    return r->runs->runs[run].id;
}

chart_cols chart_cols_new(void)
{
    return (chart_cols){LABEL_MIN, PLOT_W, VALUE_MIN};
}

void chart_cols_fit(chart_cols *c, const char *label, const char *value)
{
    if (label)
        c->label_w = fmin(LABEL_MAX, fmax(c->label_w, svg_text_width(label, 11) + 2 * PAD));
    if (value)
        c->value_w = fmin(VALUE_MAX, fmax(c->value_w, svg_text_width(value, 10) + 2 * PAD));
}

void chart_cols_title(chart_cols *c, const char *title)
{
    double want = fmin(CHART_W_MAX, svg_text_width(title, 13) + 2 * PAD);
    c->plot_w = fmax(c->plot_w, want - c->label_w - c->value_w);
}

double chart_cols_w(const chart_cols *c)
{
    return c->label_w + c->plot_w + c->value_w;
}

void chart_title(FILE *fp, double w, const char *title, const char *note, const char *note_fill)
{
    svg_text_fit(fp, PAD, 16, "start", 13, "#222", title, w - 2 * PAD);
    if (note && *note)
        svg_text_fit(fp, PAD, 30, "start", 10, note_fill, note, w - 2 * PAD);
}

void chart_label(FILE *fp, const chart_cols *c, double y, const char *fill, const char *label)
{
    svg_text_fit(fp, c->label_w - PAD, y, "end", 11, fill, label, c->label_w - 2 * PAD);
}

void chart_rows_heading(FILE *fp, const chart_cols *c, const char *text)
{
    svg_text_fit(fp, c->label_w - PAD, CHART_TOP - 6, "end", 10, "#777", text, c->label_w - 2 * PAD);
}

void chart_value(FILE *fp, const chart_cols *c, double y, const char *value)
{
    svg_text_fit(fp, c->label_w + c->plot_w + PAD, y, "start", 10, "#333", value, c->value_w - 2 * PAD);
}

void chart_x_axis(FILE *fp, const svg_axis *a, double top, double y, const char *unit)
{
    double t[32];
    int n = svg_ticks(a, t, 32);
    for (int i = 0; i < n; i++) {
        double px = svg_map(a, t[i]);
        char s[32];
        snprintf(s, sizeof s, "%g", t[i]);
        svg_line(fp, px, top, px, y, "#e4e4e4", 1, 0);
        svg_text(fp, px, y + 14, "middle", 10, "#555", s);
    }
    svg_text(fp, a->p1, y + 26, "end", 10, "#555", unit);
}

void chart_part(FILE *fp, int first, int total)
{
    if (total <= CHART_ROWS)
        return;
    if (first == CHART_ROWS)
        fprintf(fp, "<details><summary>the other %d rows of the chart above, in %d more charts</summary>\n",
                total - CHART_ROWS, (total - 1) / CHART_ROWS);
    else if (first == total)
        fputs("</details>\n", fp);
}

void chart_part_suffix(char *buf, size_t len, int first, int count, int total)
{
    if (total <= CHART_ROWS)
        snprintf(buf, len, "%s", "");
    else
        snprintf(buf, len, " (rows %d–%d of %d)", first + 1, first + count, total);
}
