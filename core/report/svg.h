/* SVG drawn as text: the few shapes klab's charts need, scales and ticks, and XML escaping for text
 * that came from outside (INI files, CSVs). Every chart is a complete <svg> element that needs no
 * script, font download or stylesheet to show. */
#ifndef KLAB_SVG_H
#define KLAB_SVG_H

#include <stdio.h>

/* Text for an XML element or attribute: & < > " ' as entities, control characters dropped. */
void xml_text(FILE *fp, const char *s);

void svg_begin(FILE *fp, double w, double h, const char *label);
void svg_end(FILE *fp);
void svg_rect(FILE *fp, double x, double y, double w, double h, const char *fill, const char *tip);
void svg_line(FILE *fp, double x1, double y1, double x2, double y2, const char *stroke, double width, int dashed);
void svg_circle(FILE *fp, double x, double y, double r, const char *fill, const char *tip);
void svg_polyline(FILE *fp, const double *xs, const double *ys, int n, const char *stroke);
/* anchor: "start", "middle" or "end" */
void svg_text(FILE *fp, double x, double y, const char *anchor, double size, const char *fill, const char *text);

/* A value axis mapped onto pixels [p0, p1]; log scales need lo > 0. */
typedef struct svg_axis {
    double lo, hi;
    int log;
    double p0, p1;
} svg_axis;

double svg_map(const svg_axis *a, double v);

/* Up to max round tick values inside the axis (1-2-5 steps; powers of 2 on a log axis); the count. */
int svg_ticks(const svg_axis *a, double *ticks, int max);

/* The i-th colour of the palette (klab's profiles), and the one PyTorch rows wear. */
const char *svg_color(int i);
const char *svg_color_external(int i);

#endif
