#include "process/samples_file.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "evidence/csv_sink.h"
#include "process/wire.h"

/* A name from the worker becomes part of a path: no separators, no control characters. */
static void put_name(char *dst, size_t len, const char *name)
{
    size_t i = 0;
    for (; name[i] && i + 1 < len; i++)
        dst[i] = name[i] == '/' || name[i] == '\\' || (unsigned char)name[i] < 0x20 ? '_' : name[i];
    dst[i] = 0;
}

int samples_file_path(const char *csv_path, const char *plugin, const char *kcase, const char *dtype,
                      const char *profile, char *buf, size_t len)
{
    char p[64], c[64], d[8], f[64];
    put_name(p, sizeof p, plugin);
    put_name(c, sizeof c, kcase);
    put_name(d, sizeof d, dtype);
    put_name(f, sizeof f, profile);
    const char *slash = strrchr(csv_path, '/');
    int dirlen = slash ? (int)(slash - csv_path) : 1;
    const char *dir = slash ? csv_path : ".";
    int n = snprintf(buf, len, "%.*s/%s.samples/%s.%s.%s.csv", dirlen, dir, p, c, d, f);
    return n < 0 || (size_t)n >= len ? -1 : 0;
}

int samples_file_add(const char *csv_path, const void *payload, uint32_t length, char *err, size_t errlen)
{
    const wire_samples *h;
    const wire_sample *s;
    if (wire_samples_parse(payload, length, &h, &s) != 0) {
        snprintf(err, errlen, "a SAMPLES message of %u bytes does not match its header: ignored", length);
        return -1;
    }
    char path[4400], partial[4420];
    char plugin[64], kcase[64], dtype[8], profile[64]; /* the worker's strings, terminated here */
    snprintf(plugin, sizeof plugin, "%.*s", (int)sizeof h->plugin, h->plugin);
    snprintf(kcase, sizeof kcase, "%.*s", (int)sizeof h->kcase, h->kcase);
    snprintf(dtype, sizeof dtype, "%.*s", (int)sizeof h->dtype - 1, h->dtype);
    snprintf(profile, sizeof profile, "%.*s", (int)sizeof h->profile, h->profile);
    if (samples_file_path(csv_path, plugin, kcase, dtype, profile, path, sizeof path) != 0) {
        snprintf(err, errlen, "the samples file of %s %s %s %s: path too long", plugin, kcase, dtype, profile);
        return -1;
    }
    snprintf(partial, sizeof partial, "%s.partial", path);
    FILE *fp;
    if (h->first == 0) {
        char dir[4400];
        snprintf(dir, sizeof dir, "%s", path);
        *strrchr(dir, '/') = 0;
        if (make_dirs(dir) != 0) {
            snprintf(err, errlen, "cannot create %s: %s", dir, strerror(errno));
            return -1;
        }
        fp = fopen(partial, "w");
        if (fp && fputs("step,ms\n", fp) < 0) {
            fclose(fp);
            fp = NULL;
        }
    } else {
        /* a later chunk continues a file its first chunk began */
        fp = access(partial, F_OK) == 0 ? fopen(partial, "a") : NULL;
        if (!fp && errno == ENOENT) {
            snprintf(err, errlen, "samples %u.. of %s arrived before the first ones: ignored", h->first, path);
            return -1;
        }
    }
    if (!fp) {
        snprintf(err, errlen, "cannot write %s: %s", partial, strerror(errno));
        return -1;
    }
    int bad = 0;
    for (uint32_t i = 0; i < h->n && !bad; i++)
        bad = fprintf(fp, "%lld,%.9g\n", (long long)s[i].step, s[i].ms) < 0;
    int last = h->first + h->n == h->total;
    bad |= fflush(fp) != 0;
    /* fsync is refused by some file systems (EINVAL): the data are written, only not forced out */
    if (last && !bad && fsync(fileno(fp)) != 0 && errno != EINVAL && errno != ENOTSUP)
        bad = 1;
    bad |= fclose(fp) != 0;
    if (bad || (last && rename(partial, path) != 0)) {
        snprintf(err, errlen, "cannot complete %s (samples kept in %s): %s", path, partial, strerror(errno));
        return -1;
    }
    return 0;
}
