#include "host/redzone.h"

#include <stdio.h>

static unsigned char pattern_byte(size_t i)
{
    return (unsigned char)(0xa5u ^ (unsigned)(i * 0x3bu) ^ (unsigned)(i >> 8));
}

void redzone_pattern(unsigned char *guard, size_t n)
{
    for (size_t i = 0; i < n; i++)
        guard[i] = pattern_byte(i);
}

size_t redzone_changed(const unsigned char *guard, size_t n)
{
    size_t changed = 0;
    for (size_t i = 0; i < n; i++)
        changed += guard[i] != pattern_byte(i);
    return changed;
}

int redzone_check(const unsigned char *before, const unsigned char *after, size_t n, const char *role,
                  const char *name, int copy, char *msg, size_t msglen)
{
    size_t b = redzone_changed(before, n), a = redzone_changed(after, n);
    if (!a && !b)
        return 0;
    char who[160];
    if (copy > 0)
        snprintf(who, sizeof who, "%s '%s' (copy %d)", role, name, copy);
    else
        snprintf(who, sizeof who, "%s '%s'", role, name);
    if (b && a)
        snprintf(msg, msglen, "%s: %zu bytes before its start and %zu bytes past its end were written", who, b, a);
    else if (b)
        snprintf(msg, msglen, "%s: %zu bytes before its start were written", who, b);
    else
        snprintf(msg, msglen, "%s: %zu bytes past its end were written", who, a);
    return 1;
}
