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

void svg_polyline(FILE *fp, const double *xs, const double *ys, int n, const char *stroke)
{
    fputs("<polyline fill=\"none\" stroke-width=\"2\" stroke=\"", fp);
    fputs(stroke, fp);
    fputs("\" points=\"", fp);
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

const char *svg_color(int i)
{
    static const char *const c[] = {"#1f77b4", "#2ca02c", "#9467bd", "#17becf", "#8c564b", "#bcbd22", "#393b79"};
    return c[(i < 0 ? 0 : i) % (int)(sizeof c / sizeof c[0])];
}

const char *svg_color_external(int i)
{
    static const char *const c[] = {"#ff7f0e", "#e377c2", "#8c6d31", "#7f7f7f", "#f7b6d2"}; /* no red: the limit is red */
    return c[(i < 0 ? 0 : i) % (int)(sizeof c / sizeof c[0])];
}
