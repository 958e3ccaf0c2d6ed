/* A decimal as klab writes them (%.6g, %.0f: at most 15 significant digits, a power of ten within
 * +-22), read exactly without strtod: m and 10^k are both exact doubles, so m * 10^k or m / 10^k is
 * the correctly rounded value strtod gives (Clinger's fast path). A million-row run has 25 million
 * of them in its rows, and 9 million in a counters file of one kernel a row; strtod was a sixth of
 * compare's time. */
#ifndef KLAB_DECIMAL_H
#define KLAB_DECIMAL_H

/* 0 and *out (the whole of s read), or -1 to leave s to strtod (more digits, a larger exponent, a
   sign or space strtod takes, or anything else). */
int decimal_read(const char *s, double *out);

/* 1 when s is decimal digits, after a '-' where `sign` allows one: what strtoll would also read from
   " 12", "+12" or "0x1f" is not a whole number klab writes. */
int decimal_is_whole(const char *s, int sign);

#endif
