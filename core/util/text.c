#include "util/text.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Length of the valid UTF-8 sequence at s (2..4), or 0 if s does not start one. Overlong forms,
   surrogates and code points past U+10FFFF are not valid. */
static int utf8_length(const unsigned char *s)
{
    uint32_t cp;
    int n;
    if (s[0] >= 0xc2 && s[0] <= 0xdf) {
        n = 2;
        cp = s[0] & 0x1f;
    } else if (s[0] >= 0xe0 && s[0] <= 0xef) {
        n = 3;
        cp = s[0] & 0x0f;
    } else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
        n = 4;
        cp = s[0] & 0x07;
    } else {
        return 0;
    }
    for (int i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80) /* also stops at the terminating NUL */
            return 0;
        cp = cp << 6 | (s[i] & 0x3f);
    }
    static const uint32_t least[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < least[n] || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
        return 0;
    if (cp >= 0x80 && cp <= 0x9f)
        return 0; /* C1 controls: some terminals obey U+009B as CSI */
    return n;
}

/* How many bytes at s make one character shown as it is (1..4), or 0 when s[0] is to be escaped. */
static int kept_length(const unsigned char *s)
{
    if (s[0] >= 0x20 && s[0] < 0x7f)
        return 1;
    return s[0] >= 0x80 ? utf8_length(s) : 0;
}

/* The next piece of s as it is to be shown: *in is how many bytes of s it stands for; returns its
   length in out (the character itself, or a 4-character escape). */
static int next_piece(const unsigned char *s, char out[4], int *in)
{
    static const char hex[] = "0123456789abcdef";
    int n = kept_length(s);
    if (n) {
        memcpy(out, s, (size_t)n);
        *in = n;
        return n;
    }
    out[0] = '\\';
    out[1] = 'x';
    out[2] = hex[s[0] >> 4];
    out[3] = hex[s[0] & 15];
    *in = 1;
    return 4;
}

size_t text_escape(char *dst, size_t len, const char *src)
{
    const unsigned char *s = (const unsigned char *)src;
    size_t need = 0;
    int full = 0;
    while (*s) {
        char piece[4];
        int in, n = next_piece(s, piece, &in);
        if (!full && need + (size_t)n < len)
            memcpy(dst + need, piece, (size_t)n);
        else if (!full) {
            full = 1;
            if (len)
                dst[need] = 0;
        }
        need += (size_t)n;
        s += in;
    }
    if (!full && len)
        dst[need] = 0;
    return need;
}

size_t text_plain_length(const char *src)
{
    const unsigned char *s = (const unsigned char *)src;
    size_t at = 0;
    for (int n; s[at] && (n = kept_length(s + at)) > 0;)
        at += (size_t)n;
    return at;
}

/* A value of one printf conversion, widened: every integer to (u)intmax_t, a character to a string. */
typedef struct conv_value {
    enum { V_STR, V_INT, V_UINT, V_DOUBLE, V_LDOUBLE, V_PTR } kind;
    const char *str;
    intmax_t i;
    uintmax_t u;
    double d;
    long double ld;
    const void *p;
} conv_value;

/* Formats one value with spec (already rewritten for the widened type), a '*' width and precision
   first when star_w / star_p, into small or a malloc'd buffer (*out). Returns the length, or -1. */
static int format_one(char *small, size_t cap, char **out, const char *spec, int star_w, int w, int star_p,
                      int pr, const conv_value *v)
{
    char *b = small;
    for (int pass = 0; pass < 2; pass++) {
        int n;
#define FMT(val)                                                                                    \
    (star_w && star_p ? snprintf(b, cap, spec, w, pr, val)                                          \
     : star_w         ? snprintf(b, cap, spec, w, val)                                              \
     : star_p         ? snprintf(b, cap, spec, pr, val)                                             \
                      : snprintf(b, cap, spec, val))
        switch (v->kind) {
        case V_STR: n = FMT(v->str); break;
        case V_INT: n = FMT(v->i); break;
        case V_UINT: n = FMT(v->u); break;
        case V_DOUBLE: n = FMT(v->d); break;
        case V_LDOUBLE: n = FMT(v->ld); break;
        default: n = FMT(v->p); break;
        }
#undef FMT
        if (n < 0 || (size_t)n < cap) {
            *out = b;
            return n;
        }
        cap = (size_t)n + 1;
        if (!(b = malloc(cap)))
            return -1;
    }
    free(b);
    return -1;
}

int text_vfprintf(FILE *fp, const char *fmt, va_list ap)
{
    va_list args;
    va_copy(args, ap);
    int total = 0;
    for (const char *p = fmt; *p && total >= 0;) {
        size_t lit = *p == '%' ? (p[1] == '%' ? 1 : 0) : strcspn(p, "%");
        if (lit) { /* klab's own text, as it is ("%%" is one '%') */
            total = fwrite(p, 1, lit, fp) == lit ? total + (int)lit : -1;
            p += lit + (*p == '%');
            continue;
        }
        /* %[flags][width][.precision][length]conversion */
        const char *q = p + 1;
        q += strspn(q, "-+ #0");
        int star_w = *q == '*', star_p = 0;
        q += star_w ? 1 : strspn(q, "0123456789");
        if (*q == '.') {
            q++;
            star_p = *q == '*';
            q += star_p ? 1 : strspn(q, "0123456789");
        }
        const char *len = q;
        q += strspn(q, "hlLjzt");
        char conv = *q, lm[3] = {0};
        memcpy(lm, len, (size_t)(q - len) < 2 ? (size_t)(q - len) : 2);
        int w = star_w ? va_arg(args, int) : 0, pr = star_p ? va_arg(args, int) : 0;
        conv_value v = {V_STR, NULL, 0, 0, 0, 0, NULL};
        char spec[40], ch[2] = {0}, *esc = NULL;
        const char *mod = "";
        if (conv == 's' || conv == 'c') {
            const char *s = conv == 's' ? va_arg(args, const char *) : (ch[0] = (char)va_arg(args, int), ch);
            if (!s)
                s = "(null)";
            size_t need = text_escape(NULL, 0, s);
            if (!(esc = malloc(need + 1))) {
                total = -1;
                break;
            }
            text_escape(esc, need + 1, s);
            v.str = esc;
            conv = 's';
        } else if (conv == 'd' || conv == 'i') {
            v.kind = V_INT;
            mod = "j";
            v.i = !strcmp(lm, "ll") ? va_arg(args, long long) : lm[0] == 'l' ? va_arg(args, long)
                : lm[0] == 'z' || lm[0] == 't' ? va_arg(args, ptrdiff_t) : lm[0] == 'j' ? va_arg(args, intmax_t)
                : va_arg(args, int);
        } else if (conv && strchr("ouxX", conv)) {
            v.kind = V_UINT;
            mod = "j";
            v.u = !strcmp(lm, "ll") ? va_arg(args, unsigned long long) : lm[0] == 'l' ? va_arg(args, unsigned long)
                : lm[0] == 'z' || lm[0] == 't' ? va_arg(args, size_t) : lm[0] == 'j' ? va_arg(args, uintmax_t)
                : va_arg(args, unsigned);
        } else if (conv && strchr("fFeEgGaA", conv)) {
            v.kind = lm[0] == 'L' ? V_LDOUBLE : V_DOUBLE;
            mod = lm[0] == 'L' ? "L" : "";
            if (lm[0] == 'L')
                v.ld = va_arg(args, long double);
            else
                v.d = va_arg(args, double);
        } else if (conv == 'p') {
            v.kind = V_PTR;
            v.p = va_arg(args, void *);
        } else {
            total = -1; /* %n, or a format this function does not know: nothing more is trusted */
            break;
        }
        if ((size_t)(len - p) + strlen(mod) + 2 > sizeof spec) {
            free(esc);
            total = -1;
            break;
        }
        snprintf(spec, sizeof spec, "%.*s%s%c", (int)(len - p), p, mod, conv);
        char small[256], *out;
        int n = format_one(small, sizeof small, &out, spec, star_w, w, star_p, pr, &v);
        if (n < 0 || fwrite(out, 1, (size_t)n, fp) != (size_t)n)
            total = -1;
        else
            total += n;
        if (n >= 0 && out != small)
            free(out);
        free(esc);
        p = q + 1;
    }
    va_end(args);
    return total;
}

int text_printf(FILE *fp, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = text_vfprintf(fp, fmt, ap);
    va_end(ap);
    return n;
}
