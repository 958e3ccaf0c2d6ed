#include "evidence/csv_sink.h"

#include <csv.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/file_read.h"

int make_dirs(const char *path)
{
    char buf[4096];
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf) {
        errno = ENAMETOOLONG;
        return -1;
    }
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = 0;
        if (mkdir(buf, 0777) != 0 && errno != EEXIST)
            return -1;
        *p = '/';
    }
    if (mkdir(buf, 0777) != 0 && errno != EEXIST)
        return -1;
    return 0;
}

char *file_read_all(const char *path, size_t *len)
{
    char err[300];
    return file_read_whole(path, FILE_READ_ALL_MAX, len, err, sizeof err);
}

int csv_field(FILE *fp, const char *text)
{
    if (strpbrk(text, ",\"\r\n"))
        return csv_fwrite(fp, text, strlen(text)) == 0 ? 0 : -1;
    return fputs(text, fp) < 0 ? -1 : 0;
}

static int write_record(FILE *fp, const char *const *cells, int n)
{
    for (int i = 0; i < n; i++) {
        if (i && fputc(',', fp) == EOF)
            return -1;
        if (csv_field(fp, cells[i]) != 0)
            return -1;
    }
    return fputc('\n', fp) == EOF ? -1 : 0;
}

int csv_sink_open(csv_sink *s, const char *path, char *err, size_t errlen)
{
    const char *names[ROW_NCOLUMNS];
    for (int i = 0; i < ROW_NCOLUMNS; i++)
        names[i] = row_schema[i].name;
    return csv_sink_open_with(s, path, names, ROW_NCOLUMNS, err, errlen);
}

int csv_sink_open_with(csv_sink *s, const char *path, const char *const *header, int n, char *err, size_t errlen)
{
    memset(s, 0, sizeof *s);
    snprintf(s->path, sizeof s->path, "%s", path);
    snprintf(s->partial, sizeof s->partial, "%s.partial", path);
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash && slash != dir) {
        *slash = 0;
        if (make_dirs(dir) != 0) {
            snprintf(err, errlen, "cannot create %s: %s", dir, strerror(errno));
            return -1;
        }
    }
    s->fp = fopen(s->partial, "w");
    if (!s->fp) {
        snprintf(err, errlen, "cannot write %s: %s", s->partial, strerror(errno));
        return -1;
    }
    if (write_record(s->fp, header, n) != 0) {
        snprintf(err, errlen, "cannot write %s: %s", s->partial, strerror(errno));
        csv_sink_discard(s);
        return -1;
    }
    return 0;
}

int csv_sink_resume(csv_sink *s, const char *path, long long keep, int rows, char *err, size_t errlen)
{
    if (keep <= 0)
        return csv_sink_open(s, path, err, errlen);
    memset(s, 0, sizeof *s);
    snprintf(s->path, sizeof s->path, "%s", path);
    snprintf(s->partial, sizeof s->partial, "%s.partial", path);
    if (truncate(s->partial, (off_t)keep) != 0 || !(s->fp = fopen(s->partial, "a"))) {
        snprintf(err, errlen, "cannot continue %s: %s", s->partial, strerror(errno));
        return -1;
    }
    s->rows = rows;
    return 0;
}

int csv_sink_row(csv_sink *s, const klab_row *r)
{
    char cells[ROW_NCOLUMNS][600];
    const char *ptrs[ROW_NCOLUMNS];
    for (int i = 0; i < ROW_NCOLUMNS; i++) {
        row_cell(r, i, cells[i], sizeof cells[i]);
        ptrs[i] = cells[i];
    }
    return csv_sink_record(s, ptrs, ROW_NCOLUMNS);
}

int csv_sink_record(csv_sink *s, const char *const *cells, int n)
{
    s->rows++;
    return write_record(s->fp, cells, n);
}

int file_commit(FILE *fp, const char *partial, const char *path)
{
    int bad = ferror(fp) || fflush(fp) != 0;
    /* fsync is refused by some file systems (EINVAL): the data are written, only not forced out */
    if (!bad && fsync(fileno(fp)) != 0 && errno != EINVAL && errno != ENOTSUP)
        bad = 1;
    bad |= fclose(fp) != 0;
    return bad || rename(partial, path) != 0 ? -1 : 0;
}

int csv_sink_commit(csv_sink *s, char *err, size_t errlen)
{
    int bad = file_commit(s->fp, s->partial, s->path);
    s->fp = NULL;
    if (bad) {
        /* the rows stay in the .partial file: its name says it may be incomplete */
        snprintf(err, errlen, "cannot complete %s (rows kept in %s): %s", s->path, s->partial, strerror(errno));
        return -1;
    }
    return 0;
}

void csv_sink_discard(csv_sink *s)
{
    if (s->fp)
        fclose(s->fp);
    s->fp = NULL;
    unlink(s->partial);
}
