/* The values of an INI file's keys, read one at a time: shapes, whole numbers, numbers in a range,
 * comma lists and names. Nothing here knows which key wants which; ini_case.c decides that.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/ini_config_internal.h"

char *cfg_trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    char *end = s + strlen(s);
    while (end > s && isspace((unsigned char)end[-1]))
        *--end = 0;
    return s;
}

int cfg_valid_name(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (!(isalnum((unsigned char)*s) || *s == '_' || *s == '-' || *s == '.' || *s == '^'))
            return 0;
    return 1;
}

/* A value longer than its buffer is refused, never cut: a cut name could make two cases one, a cut
   value would run something the file does not say. Returns 1 (reported) when it does not fit. */
int cfg_too_long(parse_state *ps, const char *key, const char *what, const char *v, size_t cap)
{
    size_t n = strlen(v);
    if (n < cap)
        return 0;
    cfg_fail(ps, "[%s] key '%s': %s is %zu characters; the limit is %zu", ps->section, key, what, n, cap - 1);
    return 1;
}

int cfg_lower_or_digit(char ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9');
}

int cfg_parse_shape(const char *s, int64_t dims[KLAB_MAX_RANK], char *why, size_t whylen)
{
    int rank = 0;
    const char *p = s;
    double total = 1;
    if (!*p) {
        snprintf(why, whylen, "empty shape");
        return -1;
    }
    while (*p) {
        if (rank == KLAB_MAX_RANK) {
            snprintf(why, whylen, "'%s' has more than %d dimensions", s, KLAB_MAX_RANK);
            return -1;
        }
        if (!isdigit((unsigned char)*p)) {
            snprintf(why, whylen, "'%s' is not a shape like 4096x8192 or 2^28", s);
            return -1;
        }
        errno = 0;
        char *end;
        long long v = strtoll(p, &end, 10);
        if (*end == '^') {
            /* the exponent must be digits: strtoll alone would read "2^" as 2^0 and skip a sign */
            long long e = isdigit((unsigned char)end[1]) ? strtoll(end + 1, &end, 10) : -1;
            if (v != 2 || e < 0 || e > 40) {
                snprintf(why, whylen, "'%s': only powers of two up to 2^40 are written with ^", s);
                return -1;
            }
            v = 1LL << e;
        }
        if (errno || v <= 0) {
            snprintf(why, whylen, "'%s': dimensions must be positive whole numbers", s);
            return -1;
        }
        dims[rank++] = v;
        total *= (double)v;
        p = end;
        if (*p == 'x' || *p == 'X') {
            p++;
            if (!*p) {
                snprintf(why, whylen, "'%s' ends with 'x'", s);
                return -1;
            }
        } else if (*p) {
            snprintf(why, whylen, "'%s' is not a shape like 4096x8192 or 2^28", s);
            return -1;
        }
    }
    if (total > (double)(1LL << 40)) {
        snprintf(why, whylen, "'%s' has more than 2^40 elements", s);
        return -1;
    }
    for (int i = rank; i < KLAB_MAX_RANK; i++)
        dims[i] = 1;
    return rank;
}

int cfg_parse_int(parse_state *ps, const char *key, const char *v, int lo, int hi, int *out)
{
    char *end;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (!*v || *cfg_trim(end) || errno) {
        cfg_fail(ps, "[%s] key '%s': '%s' is not a whole number", ps->section, key, v);
        return -1;
    }
    if (x < lo || x > hi) {
        cfg_fail(ps, "[%s] key '%s': %ld is outside %d..%d", ps->section, key, x, lo, hi);
        return -1;
    }
    *out = (int)x;
    return 0;
}

int cfg_parse_double(parse_state *ps, const char *key, const char *v, double lo, double hi,
                        double *out)
{
    char *end;
    errno = 0;
    double x = strtod(v, &end);
    if (!*v || *cfg_trim(end) || errno || !isfinite(x)) {
        cfg_fail(ps, "[%s] key '%s': '%s' is not a number", ps->section, key, v);
        return -1;
    }
    if (x <= lo || x > hi) {
        cfg_fail(ps, "[%s] key '%s': %g is outside (%g, %g]", ps->section, key, x, lo, hi);
        return -1;
    }
    *out = x;
    return 0;
}

/* Splits a comma list in place; returns the count, or -1 (reported) if empty or too long. */
int cfg_split_list(parse_state *ps, const char *key, char *v, char **items, int max)
{
    int n = 0;
    if (!*v) {
        cfg_fail(ps, "[%s] key '%s': empty list", ps->section, key);
        return -1;
    }
    /* split at every comma: strtok would merge "a,,b" into "a,b". A trailing comma stays allowed, so
       "a,\n    b" gets the continuation-line error on the line that needs it. */
    for (char *tok = v, *next; tok; tok = next) {
        next = strchr(tok, ',');
        if (next)
            *next++ = 0;
        tok = cfg_trim(tok);
        if (!*tok && !next && n > 0)
            break;
        if (!*tok) {
            cfg_fail(ps, "[%s] key '%s': empty item in the list", ps->section, key);
            return -1;
        }
        if (n == max) {
            cfg_fail(ps, "[%s] key '%s': more than %d items", ps->section, key, max);
            return -1;
        }
        items[n++] = tok;
    }
    return n;
}
