/* svg: text measured no narrower than the browser draws it, text cut to a width with "…" and its
 * whole as a tooltip, and series that look alike nowhere in the first palette x 4. */
#include "klab_test.h"

#include <string.h>

#include "report/svg.h"

/* What fn writes, as a malloc'd string. */
static char *written(double (*fn)(FILE *, const char *, double), const char *text, double maxw, double *w)
{
    static char *buf; /* static: the stream keeps their addresses until fclose */
    static size_t len;
    buf = NULL;
    FILE *fp = open_memstream(&buf, &len);
    assert_non_null(fp);
    *w = fn(fp, text, maxw);
    fclose(fp);
    return buf;
}

static double fit_left(FILE *fp, const char *text, double maxw)
{
    return svg_text_fit(fp, 0, 10, "start", 10, "#222", text, maxw);
}

static void test_width(void **state)
{
    (void)state;
    /* DejaVu Sans at 100 px: "m" 97.4, "0" 63.6, "W" 98.9, "i" 27.8; each counted at least that */
    assert_true(svg_text_width("m", 100) >= 97.4);
    assert_true(svg_text_width("0", 100) >= 63.6);
    assert_true(svg_text_width("W", 100) >= 98.9);
    assert_true(svg_text_width("i", 100) >= 27.8);
    assert_true(svg_text_width("", 11) == 0);
    /* a UTF-8 character is one glyph, not one per byte */
    assert_true(svg_text_width("\xc2\xb7", 10) == svg_text_width("\xe2\x80\xa6", 10));
    assert_true(svg_text_width("ab", 10) == svg_text_width("a", 10) + svg_text_width("b", 10));
}

static void test_fit(void **state)
{
    (void)state;
    double w;
    char *s = written(fit_left, "n4096 fp16 fused", 500, &w);
    assert_string_equal(s, "<text x=\"0.0\" y=\"10.0\" text-anchor=\"start\" font-size=\"10\" fill=\"#222\">"
                           "n4096 fp16 fused</text>\n");
    assert_true(w <= 500);
    free(s);
    /* too long: cut at a character, "…" after it, the whole text its tooltip, within the width */
    const char *run = "n65536 bf16 fused \xc2\xb7 2026-11-13-h200-rowsweep-nightly-26";
    s = written(fit_left, run, 120, &w);
    assert_true(w <= 120);
    assert_non_null(strstr(s, "<title>n65536 bf16 fused \xc2\xb7 2026-11-13-h200-rowsweep-nightly-26</title>"));
    assert_non_null(strstr(s, "</title>n65536 bf16 fus"));
    assert_non_null(strstr(s, "\xe2\x80\xa6</text>"));
    free(s);
    /* never half a UTF-8 character: the cut falls before the middle dot or after it */
    for (double maxw = 100; maxw < 160; maxw += 1) {
        s = written(fit_left, run, maxw, &w);
        const char *dot = strstr(strstr(s, "</title>"), "\xc2");
        assert_true(!dot || dot[1] == '\xb7');
        free(s);
    }
    /* escaped like any outside text */
    s = written(fit_left, "<a&b>", 500, &w);
    assert_non_null(strstr(s, ">&lt;a&amp;b&gt;</text>"));
    free(s);
}

static void test_styles(void **state)
{
    (void)state;
    for (int ext = 0; ext < 2; ext++) {
        int n = 4 * svg_colors(ext);
        assert_true(svg_colors(ext) >= 8);
        for (int i = 0; i < n; i++) {
            svg_style a = svg_series_style(i, ext);
            assert_string_not_equal(a.color, "#d00000"); /* the limit's */
            for (int j = 0; j < i; j++) {
                svg_style b = svg_series_style(j, ext);
                assert_false(!strcmp(a.color, b.color) && !strcmp(a.dash, b.dash) && a.marker == b.marker);
            }
        }
    }
    assert_string_equal(svg_series_style(0, 0).color, svg_color(0)); /* a profile's colour on the bars */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_width),
        cmocka_unit_test(test_fit),
        cmocka_unit_test(test_styles),
    };
    KLAB_RUN_TESTS(tests);
}
