#include "util/fixed.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

int fixed_text(char *buf, double v, int d)
{
    /* v times 10^d is exact in long double's 64-bit significand (53 bits times at most 7 for 1000),
       and rintl rounds it half to even as printf rounds the exact value in the default mode; beyond
       1e15 (the integer would not fit 63 bits), infinities and NaN, printf itself */
    static const long double scale[] = {1, 10, 100, 1000};
    if (d < 0 || d > 3 || !isfinite(v) || fabs(v) >= 1e15)
        return snprintf(buf, FIXED_MAX, "%.*f", d, v);
    unsigned long long u = (unsigned long long)fabsl(rintl((long double)v * scale[d]));
    char digits[24];
    int n = 0, len = 0;
    do {
        digits[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u || n <= d); /* at least one digit before the point */
    if (signbit(v))
        buf[len++] = '-'; /* printf keeps the sign of a value that rounds to zero: -0.0 */
    while (n-- > 0) {
        buf[len++] = digits[n];
        if (n == d && d)
            buf[len++] = '.';
    }
    buf[len] = 0;
    return len;
}

int fixed_general(char *buf, double v, int p)
{
    /* "%g" is "%f" with p - 1 - X decimals, X the exponent of v rounded to p digits, while
       -4 <= X < p, then without trailing zeros; here only where those decimals are 0 to 3 */
    double a = fabs(v), pow10 = 1;
    int x = 0;
    if (p < 1 || p > 15 || !(a >= 1) || !isfinite(v))
        return snprintf(buf, FIXED_MAX, "%.*g", p, v);
    while (x < p && a >= pow10 * 10) {
        pow10 *= 10;
        x++;
    }
    int len = 0;
    for (int pass = 0; pass < 2; pass++) {
        if (x >= p || p - 1 - x > 3)
            return snprintf(buf, FIXED_MAX, "%.*g", p, v);
        len = fixed_text(buf, v, p - 1 - x);
        int whole = (int)strcspn(buf + (v < 0), "."); /* digits before the point */
        if (whole == x + 1)
            break;
        x++; /* rounding carried to 10^(x + 1): one exponent up, one decimal fewer */
    }
    if (strchr(buf, '.')) {
        while (buf[len - 1] == '0')
            buf[--len] = 0;
        if (buf[len - 1] == '.')
            buf[--len] = 0;
    }
    return len;
}
