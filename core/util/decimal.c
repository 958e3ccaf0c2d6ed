#include "util/decimal.h"

#include <stdint.h>

int decimal_read(const char *s, double *out)
{
    static const double pow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                   1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    const char *p = s;
    int neg = *p == '-';
    p += neg;
    uint64_t m = 0;
    int digits = 0, frac = 0, any = 0;
    for (; *p >= '0' && *p <= '9'; p++, any = 1)
        if (m || *p != '0')
            m = 10 * m + (uint64_t)(*p - '0'), digits++;
    if (*p == '.')
        for (p++; *p >= '0' && *p <= '9'; p++, any = 1, frac++)
            if (m || *p != '0')
                m = 10 * m + (uint64_t)(*p - '0'), digits++;
    if (!any || digits > 15)
        return -1;
    int e = 0;
    if (*p == 'e' || *p == 'E') {
        p++;
        int eneg = *p == '-';
        p += *p == '-' || *p == '+';
        if (*p < '0' || *p > '9')
            return -1;
        for (; *p >= '0' && *p <= '9' && e < 1000; p++)
            e = 10 * e + (*p - '0');
        e = eneg ? -e : e;
    }
    if (*p)
        return -1;
    e -= frac;
    if (e < -22 || e > 22)
        return -1;
    double v = (double)m;
    v = e < 0 ? v / pow10[-e] : v * pow10[e];
    *out = neg ? -v : v;
    return 0;
}

int decimal_is_whole(const char *s, int sign)
{
    s += sign && *s == '-';
    if (!*s)
        return 0;
    for (; *s; s++)
        if (*s < '0' || *s > '9')
            return 0;
    return 1;
}
