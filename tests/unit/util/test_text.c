/* text: outside text (INI values, plugin descriptors and errors, CSV cells) on the terminal. Control
 * characters, C1 controls and bytes that are not UTF-8 are shown as \xNN; UTF-8 text is kept; a
 * text_printf format is klab's own and is written as it is, its %s arguments escaped. */
#include "klab_test.h"

#include <string.h>

#include "util/text.h"

static void escapes_to(const char *src, const char *want)
{
    char buf[256];
    size_t n = text_escape(buf, sizeof buf, src);
    assert_string_equal(buf, want);
    assert_int_equal(n, strlen(want));
}

static void test_escape(void **state)
{
    (void)state;
    escapes_to("", "");
    escapes_to("plain text, 100 % ascii ~", "plain text, 100 % ascii ~");
    escapes_to("red \x1b[31mtext\x1b[0m", "red \\x1b[31mtext\\x1b[0m");
    escapes_to("a\nb\tc\rd\x07\x7f", "a\\x0ab\\x09c\\x0dd\\x07\\x7f");
    /* UTF-8 is text: 2, 3 and 4 byte characters, and the byte order mark */
    escapes_to("caf\xc3\xa9 \xe2\x80\x94 \xf0\x9f\x9a\x80 \xef\xbb\xbf", "caf\xc3\xa9 \xe2\x80\x94 \xf0\x9f\x9a\x80 \xef\xbb\xbf");
    /* C1 controls (U+009B is CSI to some terminals), then what is not UTF-8: a lone byte, an overlong
       form, a surrogate, a code point past U+10FFFF, a sequence cut short */
    escapes_to("\xc2\x9b" "2J", "\\xc2\\x9b2J");
    escapes_to("\xc2\x80\xc2\x9f\xc2\xa0", "\\xc2\\x80\\xc2\\x9f\xc2\xa0");
    escapes_to("caf\xe9", "caf\\xe9");
    escapes_to("\xc0\xaf", "\\xc0\\xaf");
    escapes_to("\xed\xa0\x80", "\\xed\\xa0\\x80");
    escapes_to("\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80");
    escapes_to("\xe2\x80", "\\xe2\\x80");
    escapes_to("\xe2\x80x", "\\xe2\\x80x");
}

static void test_escape_into_a_short_buffer(void **state)
{
    (void)state;
    char buf[8];
    /* "ab\x1b" needs 6 characters: it fits; with "cd" after it, the result is cut after "ab\x1bc" */
    assert_int_equal(text_escape(buf, sizeof buf, "ab\x1b"), 6);
    assert_string_equal(buf, "ab\\x1b");
    assert_int_equal(text_escape(buf, sizeof buf, "ab\x1b" "cd"), 8);
    assert_string_equal(buf, "ab\\x1bc");
    /* never half an escape, never half a character */
    assert_int_equal(text_escape(buf, 5, "ab\x1b"), 6);
    assert_string_equal(buf, "ab");
    assert_int_equal(text_escape(buf, 5, "ab\xe2\x80\x94"), 5);
    assert_string_equal(buf, "ab");
    /* measuring only */
    assert_int_equal(text_escape(NULL, 0, "\x01\x02"), 8);
}

static void test_plain_length(void **state)
{
    (void)state;
    assert_int_equal(text_plain_length(""), 0);
    assert_int_equal(text_plain_length("abc"), 3);
    assert_int_equal(text_plain_length("ab\tc"), 2);
    assert_int_equal(text_plain_length("caf\xc3\xa9\x1b"), 5);
    assert_int_equal(text_plain_length("\xc2\x9b"), 0);
}

/* What text_printf writes, as a string. */
static char *printed(const char *fmt, ...)
{
    static char *buf;
    size_t len;
    free(buf);
    FILE *fp = open_memstream(&buf, &len);
    assert_non_null(fp);
    va_list ap;
    va_start(ap, fmt);
    int n = text_vfprintf(fp, fmt, ap);
    va_end(ap);
    assert_int_equal(fclose(fp), 0);
    assert_int_equal(n, (int)strlen(buf));
    return buf;
}

static void test_printf_escapes_its_arguments(void **state)
{
    (void)state;
    /* the format's own line breaks stay; an argument's are shown */
    assert_string_equal(printed("\n  REFUSED %s: %s\n", "/p/x.so", "bad\nname \x1b[2J"),
                        "\n  REFUSED /p/x.so: bad\\x0aname \\x1b[2J\n");
    /* a width applies to what is shown */
    assert_string_equal(printed("[%-6s|%6s|%.3s]", "a\x1b", "b", "abcdef"), "[a\\x1b |     b|abc]");
    assert_string_equal(printed("%c%c|%-3c|", 'x', '\a', 'y'), "x\\x07|y  |");
    assert_string_equal(printed("%s", (const char *)NULL), "(null)");
    assert_string_equal(printed("100%% %s%%", "sure"), "100% sure%");
}

static void test_printf_other_conversions_as_printf(void **state)
{
    (void)state;
    char want[512];
    long long big = -1234567890123LL;
    size_t z = 4096;
    void *p = &z;
    snprintf(want, sizeof want, "%d %5i %-4u| %x %X %o %ld %lld %llu %zu %jd %hd %hhu %+.3f %g %e %Lf %p %*d %.*f %08.2f",
             -7, 42, 3u, 255u, 255u, 8u, -5L, big, 18446744073709551615ULL, z, (intmax_t)-9, (short)-3,
             (unsigned char)200, 3.14159, 1e-7, 12345.678, (long double)2.5, p, 6, 99, 2, 1.0 / 3, 3.14159);
    assert_string_equal(printed("%d %5i %-4u| %x %X %o %ld %lld %llu %zu %jd %hd %hhu %+.3f %g %e %Lf %p %*d %.*f %08.2f",
                                -7, 42, 3u, 255u, 255u, 8u, -5L, big, 18446744073709551615ULL, z, (intmax_t)-9,
                                (short)-3, (unsigned char)200, 3.14159, 1e-7, 12345.678, (long double)2.5, p, 6, 99, 2,
                                1.0 / 3, 3.14159),
                        want);
    /* a long argument is not cut */
    char longs[2000];
    memset(longs, 'q', sizeof longs - 1);
    longs[sizeof longs - 1] = 0;
    assert_int_equal(strlen(printed("<%s>", longs)), sizeof longs + 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_escape),
        cmocka_unit_test(test_escape_into_a_short_buffer),
        cmocka_unit_test(test_plain_length),
        cmocka_unit_test(test_printf_escapes_its_arguments),
        cmocka_unit_test(test_printf_other_conversions_as_printf),
    };
    KLAB_RUN_TESTS(tests);
}
