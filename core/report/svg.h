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
/* dash: a stroke-dasharray ("6 3"), or "" for a solid line */
void svg_polyline(FILE *fp, const double *xs, const double *ys, int n, const char *stroke, const char *dash);
/* anchor: "start", "middle" or "end" */
void svg_text(FILE *fp, double x, double y, const char *anchor, double size, const char *fill, const char *text);
/* The same, turned a quarter to read bottom to top (a y axis's title), centred on (x, y). */
void svg_text_up(FILE *fp, double x, double y, double size, const char *fill, const char *text);

/* The width text takes at size in pixels, over-estimated: the page names only "sans-serif", so each
   glyph counts as wide as DejaVu Sans (the widest common one) draws it, or wider. */
double svg_text_width(const char *text, double size);
/* svg_text no wider than maxw: a longer text is cut at a character with "…", the whole of it then the
   element's tooltip. Returns the width drawn. */
double svg_text_fit(FILE *fp, double x, double y, const char *anchor, double size, const char *fill,
                    const char *text, double maxw);

/* A value axis mapped onto pixels [p0, p1]; log scales need lo > 0. */
typedef struct svg_axis {
    double lo, hi;
    int log;
    double p0, p1;
} svg_axis;

double svg_map(const svg_axis *a, double v);

/* Up to max round tick values inside the axis (1-2-5 steps; powers of 2 on a log axis); the count. */
int svg_ticks(const svg_axis *a, double *ticks, int max);

/* The i-th colour of the palette (klab's profiles), and the one PyTorch rows wear; neither has the
   limit's red. Past a palette's length colours come round again: svg_style tells series apart there. */
const char *svg_color(int i);
const char *svg_color_external(int i);
int svg_colors(int external);

/* The i-th series' look among series coloured by svg_color (external: svg_color_external): its
   colour, a dash pattern ("" solid) and a marker, the pair (dash, marker) changing each time the
   colours come round, so no two of the first svg_colors() x 4 series look alike. */
typedef struct svg_style {
    const char *color, *dash;
    int marker; /* 0 circle, 1 square, 2 diamond, 3 triangle */
} svg_style;
svg_style svg_series_style(int i, int external);
/* A marker of that shape, about 2r across, with its tooltip. */
void svg_marker(FILE *fp, double x, double y, double r, int marker, const char *fill, const char *tip);

#endif
