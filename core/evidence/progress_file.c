#include "evidence/progress_file.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int progress_path(const char *csv_path, char *buf, size_t len)
{
    size_t n = strlen(csv_path);
    if (n >= 4 && strcmp(csv_path + n - 4, ".csv") == 0)
        n -= 4;
    int w = snprintf(buf, len, "%.*s%s", (int)n, csv_path, PROGRESS_SUFFIX);
    return w < 0 || (size_t)w >= len ? -1 : 0;
}

int progress_open(progress_file *p, const char *csv_path, long long keep, char *err, size_t errlen)
{
    p->fp = NULL;
    if (progress_path(csv_path, p->path, sizeof p->path) != 0) {
        snprintf(err, errlen, "%s: the path of its progress file is too long", csv_path);
        return -1;
    }
    if (keep > 0 && truncate(p->path, (off_t)keep) != 0) {
        snprintf(err, errlen, "cannot cut %s back to its whole units: %s", p->path, strerror(errno));
        return -1;
    }
    p->fp = fopen(p->path, keep > 0 ? "a" : "w");
    if (!p->fp) {
        snprintf(err, errlen, "cannot write %s: %s", p->path, strerror(errno));
        return -1;
    }
    if (keep <= 0 &&
        fputs("# klab: unit, case, dtype, bytes and rows of the partial CSV after each unit; removed with it\n",
              p->fp) < 0) {
        snprintf(err, errlen, "cannot write %s: %s", p->path, strerror(errno));
        fclose(p->fp);
        p->fp = NULL;
        return -1;
    }
    return fflush(p->fp) == 0 ? 0 : -1;
}

int progress_mark_unit(progress_file *p, csv_sink *s, int unit, const char *kcase, const char *dtype, char *err,
                       size_t errlen)
{
    if (!p->fp || !s->fp)
        return 0;
    /* the rows first, on disk (fsync is refused by some file systems, EINVAL: written, not forced) */
    if (fflush(s->fp) != 0 || (fsync(fileno(s->fp)) != 0 && errno != EINVAL && errno != ENOTSUP)) {
        snprintf(err, errlen, "cannot write %s: %s", s->partial, strerror(errno));
        return -1;
    }
    long long bytes = (long long)ftello(s->fp);
    if (bytes < 0 || fprintf(p->fp, "%d\t%s\t%s\t%lld\t%d\n", unit, kcase, dtype, bytes, s->rows) < 0 ||
        fflush(p->fp) != 0) {
        snprintf(err, errlen, "cannot write %s: %s", p->path, strerror(errno));
        return -1;
    }
    return 0;
}

void progress_close(progress_file *p, int remove)
{
    if (p->fp)
        fclose(p->fp);
    p->fp = NULL;
    if (remove && p->path[0])
        unlink(p->path);
}

/* One complete line "unit\tcase\tdtype\tbytes\trows" (without its '\n') into *m; the case may hold a
   tab: the fields after it are taken from the right. 0, or -1 when it is no such line. */
static int parse_mark(char *line, progress_mark *m)
{
    char *f[4];
    for (int i = 3; i >= 1; i--) {
        char *tab = strrchr(line, '\t');
        if (!tab)
            return -1;
        *tab = 0;
        f[i] = tab + 1;
    }
    f[0] = strchr(line, '\t');
    if (!f[0])
        return -1;
    *f[0]++ = 0;
    char *end;
    long unit = strtol(line, &end, 10);
    if (!*line || *end || unit < 0)
        return -1;
    long long bytes = strtoll(f[2], &end, 10);
    if (!*f[2] || *end || bytes <= 0)
        return -1;
    long rows = strtol(f[3], &end, 10);
    if (!*f[3] || *end || rows < 0)
        return -1;
    m->unit = (int)unit;
    snprintf(m->kcase, sizeof m->kcase, "%s", f[0]);
    snprintf(m->dtype, sizeof m->dtype, "%s", f[1]);
    m->bytes = bytes;
    m->rows = (int)rows;
    return 0;
}

/* 1 when the byte at `at` of fp is a line break. */
static int newline_at(FILE *fp, long long at)
{
    return fseeko(fp, (off_t)at, SEEK_SET) == 0 && getc(fp) == '\n';
}

int progress_last(const char *progress, const char *partial, progress_mark *m, long long *keep_log, char *err,
                  size_t errlen)
{
    memset(m, 0, sizeof *m);
    m->unit = -1;
    *keep_log = 0;
    FILE *csv = fopen(partial, "rb");
    struct stat st;
    if (!csv || fstat(fileno(csv), &st) != 0) {
        snprintf(err, errlen, "cannot read %s: %s", partial, strerror(errno));
        if (csv)
            fclose(csv);
        return -1;
    }
    long long size = (long long)st.st_size, header = 0;
    for (int c; (c = getc(csv)) != EOF;)
        if (header++, c == '\n')
            break;
    if (header == 0 || !newline_at(csv, header - 1))
        header = 0; /* not even the header line is whole: the file is begun anew */
    m->bytes = header;
    size_t len = 0;
    char *text = file_read_all(progress, &len);
    int found = 0;
    for (char *line = text; text && line < text + len;) {
        char *nl = memchr(line, '\n', (size_t)(text + len - line));
        if (!nl)
            break; /* a line torn by the interruption */
        *nl = 0;
        progress_mark k;
        /* a mark holds only where the partial file has its bytes, ending a line, after the header */
        if (line[0] != '#' && header > 0 && parse_mark(line, &k) == 0 && k.bytes >= header && k.bytes <= size &&
            newline_at(csv, k.bytes - 1)) {
            *m = k;
            *keep_log = (long long)(nl + 1 - text);
            found = 1;
        }
        line = nl + 1;
    }
    free(text);
    fclose(csv);
    return found;
}
