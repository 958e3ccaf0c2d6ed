/* CSV evidence, written so that no reader ever sees half a file: rows go to "<path>.partial", which
 * is flushed, synced and renamed to <path> only when the plugin's rows are complete. A crash leaves at
 * most a file whose name says it is partial. Quoting is libcsv's. */
#ifndef KLAB_CSV_SINK_H
#define KLAB_CSV_SINK_H

#include <stdio.h>

#include "evidence/row.h"

typedef struct csv_sink {
    FILE *fp;
    char path[4096];
    char partial[4100];
    int rows;
} csv_sink;

/* Creates missing directories on the way. Returns 0, or -1 with the reason in err. */
int csv_sink_open(csv_sink *s, const char *path, char *err, size_t errlen);
/* Continues an interrupted CSV: its <path>.partial cut to its first `keep` bytes (the header and
   whole rows, progress_file.h), `rows` of them rows, opened for appending; keep 0: begun anew, as
   csv_sink_open. Returns 0, or -1 with the reason in err. */
int csv_sink_resume(csv_sink *s, const char *path, long long keep, int rows, char *err, size_t errlen);
int csv_sink_row(csv_sink *s, const klab_row *r);
/* The same file discipline for a CSV of other records (the counters file): its header, its records. */
int csv_sink_open_with(csv_sink *s, const char *path, const char *const *header, int n, char *err, size_t errlen);
int csv_sink_record(csv_sink *s, const char *const *cells, int n);
/* Completes the file (fsync + rename). Returns 0, or -1 with the reason (the rows stay in the
   .partial file). */
int csv_sink_commit(csv_sink *s, char *err, size_t errlen);
/* Gives up: removes the partial file. */
void csv_sink_discard(csv_sink *s);

/* Writes one field, quoted by libcsv only when it holds a comma, quote or line break. */
int csv_field(FILE *fp, const char *text);

/* Completes a file written to `partial`: flush, fsync, close (fp is closed either way), rename to
   `path`. Returns 0, or -1 with errno set; the partial file is left for the caller to keep or remove. */
int file_commit(FILE *fp, const char *partial, const char *path);

/* mkdir -p. Returns 0 or -1 with errno set. */
int make_dirs(const char *path);

/* A whole regular file's bytes, NUL-terminated (malloc'd; *len without the NUL), or NULL with errno set
   (EINVAL for a file that is not a regular one, EFBIG for one over FILE_READ_ALL_MAX bytes). For klab's
   own files; evidence from outside goes through file_read_whole (util/file_read.h), which says why. */
#define FILE_READ_ALL_MAX ((size_t)1 << 30)
char *file_read_all(const char *path, size_t *len);

#endif
