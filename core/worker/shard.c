#include "worker/shard.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/checksum.h"

static int whole(const char *s, const char *end, long *v)
{
    if (s == end || end - s > 9)
        return -1;
    long x = 0;
    for (const char *p = s; p < end; p++) {
        if (*p < '0' || *p > '9')
            return -1;
        x = 10 * x + (*p - '0');
    }
    *v = x;
    return 0;
}

int shard_parse(const char *text, int *k, int *n, char *err, size_t errlen)
{
    const char *slash = strchr(text, '/');
    long kk, nn;
    if (!slash || whole(text, slash, &kk) != 0 || whole(slash + 1, slash + strlen(slash), &nn) != 0) {
        snprintf(err, errlen, "--shard: '%s' is not K/N (e.g. 0/4, the first of four slices)", text);
        return -1;
    }
    if (nn < 1 || nn > SHARD_MAX || kk >= nn) {
        snprintf(err, errlen, "--shard: '%s' needs 0 <= K < N <= %d", text, SHARD_MAX);
        return -1;
    }
    *k = (int)kk;
    *n = (int)nn;
    return 0;
}

int shard_of(const char *plugin, int index, int n)
{
    if (n <= 1)
        return 0;
    uint64_t h = checksum_update(CHECKSUM_INIT, plugin, strlen(plugin));
    return (int)((h % (uint64_t)n + (uint64_t)index) % (uint64_t)n);
}
