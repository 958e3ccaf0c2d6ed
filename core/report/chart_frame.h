/* What klab's charts share: a width no chart passes, and for the row charts (a line per row: bars or
 * dots with their label on the left and their value on the right) columns sized from the longest
 * label and value measured, at most CHART_ROWS rows to a chart, the rest in further charts folded
 * under one <details> so that a page over fifty runs stays short. */
#ifndef KLAB_CHART_FRAME_H
#define KLAB_CHART_FRAME_H

#include <stdio.h>

#include "report/report_eval.h"
#include "report/svg.h"

#define CHART_W_MAX 1100.0 /* the page's column is 1200 px less its padding */
#define CHART_ROWS 40      /* rows a row chart holds: about 800 px */
#define CHART_TOP 48.0     /* the title, a note line, the rows' heading */
#define CHART_BOTTOM 34.0  /* the x axis's ticks and unit, descenders included */

/* PyTorch's rows (flag external) wear their own colours. */
int chart_external(const klab_row *row);
/* How a chart names a run: the one place to change it. */
const char *chart_run_name(const report *r, int run);

typedef struct chart_cols {
    double label_w, plot_w, value_w; /* label_w and value_w grow with chart_cols_fit */
} chart_cols;

chart_cols chart_cols_new(void);
/* Makes room for a label (11 px text) and a value (10 px), up to the widths that keep the chart
   within CHART_W_MAX: a longer label is cut with "…" when drawn (chart_label). */
void chart_cols_fit(chart_cols *c, const char *label, const char *value);
/* Widens the plot so that a title (13 px) fits whole, up to CHART_W_MAX; after chart_cols_fit. */
void chart_cols_title(chart_cols *c, const char *title);
double chart_cols_w(const chart_cols *c);

/* The chart's title (13 px) and, under it, a note (10 px, fill), each cut to the chart's width. */
void chart_title(FILE *fp, double w, const char *title, const char *note, const char *note_fill);
/* A row's label, right-aligned against the plot at baseline y, cut to its column. */
void chart_label(FILE *fp, const chart_cols *c, double y, const char *fill, const char *label);
/* The rows' heading over the label column: what a label names (the y axis's title). */
void chart_rows_heading(FILE *fp, const chart_cols *c, const char *text);
/* The value column's text at baseline y. */
void chart_value(FILE *fp, const chart_cols *c, double y, const char *value);
/* An x axis over the plot: ticks, grid lines from top to y, and the unit under its right end. */
void chart_x_axis(FILE *fp, const svg_axis *a, double top, double y, const char *unit);

/* Row charts in parts: call before each part (its first row, of total) and once after the last
   (first == total). The first part stands; the others follow inside one <details>. */
void chart_part(FILE *fp, int first, int total);
/* " (rows 41–80 of 312)" for a part of a chart of several, else "". */
void chart_part_suffix(char *buf, size_t len, int first, int count, int total);

#endif
