#include "util/fixed.h"

#include <math.h>
#include <stdio.h>

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
