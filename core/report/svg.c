#include "report/svg.h"

#include <math.h>
#include <string.h>

#include "util/fixed.h"

void xml_text(FILE *fp, const char *s)
{
    for (; s && *s; s++) {
        size_t n = strcspn(s, "&<>\"'\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10\x11"
                              "\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f\x7f");
        if (n) { /* a run of plain text at once: a report writes millions of labels */
            fwrite(s, 1, n, fp);
            s += n;
            if (!*s)
                break;
        }
        switch (*s) {
        case '&': fputs("&amp;", fp); break;
        case '<': fputs("&lt;", fp); break;
        case '>': fputs("&gt;", fp); break;
        case '"': fputs("&quot;", fp); break;
        case '\'': fputs("&#39;", fp); break;
        default:
            if ((unsigned char)*s >= 0x20 && *s != 0x7f)
                fputc(*s, fp);
        }
    }
}

void svg_begin(FILE *fp, double w, double h, const char *label)
{
    fprintf(fp, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
                "role=\"img\" aria-label=\"", w, h, w, h);
    xml_text(fp, label);
    fputs("\" font-family=\"sans-serif\">\n", fp);
    fprintf(fp, "<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" fill=\"#ffffff\"/>\n", w, h);
}

void svg_end(FILE *fp)
{
    fputs("</svg>\n", fp);
}

static void tip(FILE *fp, const char *t)
{
    if (!t || !*t)
        return;
    fputs("<title>", fp);
    xml_text(fp, t);
    fputs("</title>", fp);
}

/* An element's text up to its content, built with fixed_text rather than fprintf: a chart of a
   million rows is millions of elements. "%1" is a coordinate (%.1f), "%0" a whole number (%.0f), "%s"
   a string; the result is what fprintf gave. */
static void element(FILE *fp, const char *fmt, const double *v, const char *const *str)
{
    char buf[2048];
    size_t n = 0;
    for (const char *f = fmt; *f; f++) {
        if (n + FIXED_MAX + 1 > sizeof buf) {
            fwrite(buf, 1, n, fp);
            n = 0;
        }
        if (*f != '%') {
            buf[n++] = *f;
        } else if (*++f == 's') {
            const char *t = *str++;
            size_t len = strlen(t);
            if (n + len > sizeof buf) {
                fwrite(buf, 1, n, fp);
                fwrite(t, 1, len, fp);
                n = 0;
            } else {
                memcpy(buf + n, t, len);
                n += len;
            }
        } else {
            n += (size_t)fixed_text(buf + n, *v++, *f - '0');
        }
    }
    fwrite(buf, 1, n, fp);
}

void svg_rect(FILE *fp, double x, double y, double w, double h, const char *fill, const char *t)
{
    const double v[] = {x, y, w > 0 ? w : 0, h > 0 ? h : 0};
    const char *str[] = {fill};
    element(fp, "<rect x=\"%1\" y=\"%1\" width=\"%1\" height=\"%1\" fill=\"%s\">", v, str);
    tip(fp, t);
    fputs("</rect>\n", fp);
}

void svg_line(FILE *fp, double x1, double y1, double x2, double y2, const char *stroke, double width, int dashed)
{
    const double v[] = {x1, y1, x2, y2, width};
    const char *str[] = {stroke, dashed ? " stroke-dasharray=\"4 3\"" : ""};
    element(fp, "<line x1=\"%1\" y1=\"%1\" x2=\"%1\" y2=\"%1\" stroke=\"%s\" stroke-width=\"%1\"%s/>\n", v, str);
}

void svg_circle(FILE *fp, double x, double y, double r, const char *fill, const char *t)
{
    const double v[] = {x, y, r};
    const char *str[] = {fill};
    element(fp, "<circle cx=\"%1\" cy=\"%1\" r=\"%1\" fill=\"%s\">", v, str);
    tip(fp, t);
    fputs("</circle>\n", fp);
}

void svg_polyline(FILE *fp, const double *xs, const double *ys, int n, const char *stroke, const char *dash)
{
    fprintf(fp, "<polyline fill=\"none\" stroke-width=\"2\" stroke=\"%s\"", stroke);
    if (dash && *dash)
        fprintf(fp, " stroke-dasharray=\"%s\"", dash);
    fputs(" points=\"", fp);
    for (int i = 0; i < n; i++)
        fprintf(fp, "%s%.1f,%.1f", i ? " " : "", xs[i], ys[i]);
    fputs("\"/>\n", fp);
}

void svg_text(FILE *fp, double x, double y, const char *anchor, double size, const char *fill, const char *text)
{
    const double v[] = {x, y, size};
    const char *str[] = {anchor, fill};
    element(fp, "<text x=\"%1\" y=\"%1\" text-anchor=\"%s\" font-size=\"%0\" fill=\"%s\">", v, str);
    xml_text(fp, text);
    fputs("</text>\n", fp);
}

void svg_text_up(FILE *fp, double x, double y, double size, const char *fill, const char *text)
{
    fprintf(fp, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"%.0f\" fill=\"%s\" "
                "transform=\"rotate(-90 %.1f %.1f)\">", x, y, size, fill, x, y);
    xml_text(fp, text);
    fputs("</text>\n", fp);
}

/* One character's advance in ems, at least DejaVu Sans's (which draws digits at 0.64, lowercase at
   0.28-0.98, capitals at 0.63-0.99); the byte after it. */
static double glyph_em(const char **s)
{
    unsigned char c = (unsigned char)**s;
    (*s)++;
    if (c >= 0x80) { /* a UTF-8 sequence: one glyph, counted as a full em */
        while ((**s & 0xc0) == 0x80)
            (*s)++;
        return 1.0;
    }
    if (strchr("mwMW%@", c))
        return 1.0;
    if (strchr(" .,:;'|!()[]{}/\\-ijlftr", c))
        return 0.45;
    if ((c >= 'A' && c <= 'Z') || strchr("=+<>#&~^*_", c))
        return 0.86;
    return 0.66;
}

double svg_text_width(const char *text, double size)
{
    double em = 0;
    for (const char *s = text ? text : ""; *s;)
        em += glyph_em(&s);
    return em * size;
}

double svg_text_fit(FILE *fp, double x, double y, const char *anchor, double size, const char *fill,
                    const char *text, double maxw)
{
    double w = svg_text_width(text, size);
    if (w <= maxw) {
        svg_text(fp, x, y, anchor, size, fill, text);
        return w;
    }
    /* the longest head that leaves room for the ellipsis, ended at a character's first byte */
    double room = maxw - svg_text_width("…", size), used = 0;
    const char *s = text, *cut = text;
    while (*s) {
        used += glyph_em(&s) * size;
        if (used > room)
            break;
        cut = s;
    }
    fprintf(fp, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" font-size=\"%.0f\" fill=\"%s\"><title>", x, y,
            anchor, size, fill);
    xml_text(fp, text);
    fputs("</title>", fp);
    char head[1024];
    size_t n = (size_t)(cut - text);
    snprintf(head, sizeof head, "%.*s…", (int)(n < sizeof head - 4 ? n : sizeof head - 4), text);
    xml_text(fp, head);
    fputs("</text>\n", fp);
    return svg_text_width(head, size);
}

double svg_map(const svg_axis *a, double v)
{
    double t;
    if (a->log) {
        double lo = log(a->lo), hi = log(a->hi);
        t = v > 0 && hi > lo ? (log(v) - lo) / (hi - lo) : 0;
    } else {
        t = a->hi > a->lo ? (v - a->lo) / (a->hi - a->lo) : 0;
    }
    if (t < 0)
        t = 0;
    if (t > 1)
        t = 1;
    return a->p0 + t * (a->p1 - a->p0);
}

int svg_ticks(const svg_axis *a, double *ticks, int max)
{
    int n = 0;
    if (a->log) {
        for (double v = exp2(floor(log2(a->lo))); v <= a->hi * 1.0001 && n < max; v *= 2)
            if (v >= a->lo * 0.9999)
                ticks[n++] = v;
        return n;
    }
    double span = a->hi - a->lo;
    if (!(span > 0))
        return 0;
    double step = pow(10, floor(log10(span / 5)));
    if (span / step > 25)
        step *= 5;
    else if (span / step > 10)
        step *= 2;
    for (double v = ceil(a->lo / step) * step; v <= a->hi + step * 1e-9 && n < max; v += step)
        ticks[n++] = fabs(v) < step * 1e-9 ? 0 : v;
    return n;
}

/* Qualitative, for lines and bars on white: Tableau's ten without its red and orange (the limit's
   and PyTorch's), then darker and lighter kin far enough from them to tell apart. */
static const char *const klab_colors[] = {"#1f77b4", "#2ca02c", "#9467bd", "#17becf", "#8c564b", "#bcbd22",
                                          "#393b79", "#637939", "#7b4173", "#6b6ecf", "#525252", "#aec7e8",
                                          "#98df8a", "#c5b0d5", "#9edae5", "#c49c94"};
static const char *const external_colors[] = {"#ff7f0e", "#e377c2", "#8c6d31", "#7f7f7f", "#f7b6d2", "#bd9e39",
                                              "#e7ba52", "#ce6dbd"};
#define NCOLORS(a) ((int)(sizeof a / sizeof a[0]))

int svg_colors(int external)
{
    return external ? NCOLORS(external_colors) : NCOLORS(klab_colors);
}

const char *svg_color(int i)
{
    return klab_colors[(i < 0 ? 0 : i) % NCOLORS(klab_colors)];
}

const char *svg_color_external(int i)
{
    return external_colors[(i < 0 ? 0 : i) % NCOLORS(external_colors)];
}

svg_style svg_series_style(int i, int external)
{
    static const char *const dash[] = {"", "7 3", "2 2", "9 3 2 3"};
    i = i < 0 ? 0 : i;
    int round = i / svg_colors(external);
    svg_style st = {external ? svg_color_external(i) : svg_color(i), dash[round % 4], round % 4};
    return st;
}

void svg_marker(FILE *fp, double x, double y, double r, int marker, const char *fill, const char *t)
{
    switch (marker) {
    case 1:
        fprintf(fp, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\">", x - r, y - r, 2 * r,
                2 * r, fill);
        break;
    case 2:
    case 3:
        fprintf(fp, "<polygon points=\"");
        if (marker == 2)
            fprintf(fp, "%.1f,%.1f %.1f,%.1f %.1f,%.1f %.1f,%.1f", x, y - 1.3 * r, x + 1.3 * r, y, x, y + 1.3 * r,
                    x - 1.3 * r, y);
        else
            fprintf(fp, "%.1f,%.1f %.1f,%.1f %.1f,%.1f", x, y - 1.3 * r, x + 1.2 * r, y + r, x - 1.2 * r, y + r);
        fprintf(fp, "\" fill=\"%s\">", fill);
        break;
    default:
        svg_circle(fp, x, y, r, fill, t);
        return;
    }
    tip(fp, t);
    fputs(marker == 1 ? "</rect>\n" : "</polygon>\n", fp);
}
