/* Where each unit's rows end in a plugin's <plugin>.csv.partial: a sidecar <plugin>.progress beside it,
 * one line per unit whose rows are all written, appended by the parent as it receives them:
 *     <unit>\t<case>\t<dtype>\t<bytes>\t<rows>
 * bytes: the partial CSV's length after that unit's rows (header included), rows: how many rows that
 * is. The CSV is flushed and synced before its line is written, so a line never claims bytes the file
 * does not hold. klab --resume cuts the partial CSV back to the last unit it holds whole (a row torn by
 * SIGINT, SIGKILL or a lost node goes with the unit it was part of) and continues after it. The file
 * is removed once the CSV is complete. */
#ifndef KLAB_PROGRESS_FILE_H
#define KLAB_PROGRESS_FILE_H

#include <stdio.h>

#include "evidence/csv_sink.h"

#define PROGRESS_SUFFIX ".progress"

typedef struct progress_file {
    FILE *fp; /* NULL: no sidecar (a run with no CSV, or one that could not be written) */
    char path[4200];
} progress_file;

/* One line: a unit whose rows end at `bytes` of the partial CSV. */
typedef struct progress_mark {
    int unit;
    char kcase[64], dtype[16];
    long long bytes;
    int rows;
} progress_mark;

/* <x>.progress for the CSV <x>.csv. 0, or -1 when it does not fit. */
int progress_path(const char *csv_path, char *buf, size_t len);

/* The sidecar of csv_path, cut to its first `keep` bytes (0: begun anew, its comment line written)
   and opened for appending. 0, or -1 with the reason in err (p->fp stays NULL). */
int progress_open(progress_file *p, const char *csv_path, long long keep, char *err, size_t errlen);

/* After unit `unit`'s rows are in s: s flushed and synced, then its line appended and flushed.
   Without a sidecar (p->fp NULL) nothing. 0, or -1 with the reason in err. */
int progress_mark_unit(progress_file *p, csv_sink *s, int unit, const char *kcase, const char *dtype, char *err,
                       size_t errlen);

/* Closes the sidecar; `remove` (the CSV is complete): deletes it. */
void progress_close(progress_file *p, int remove);

/* What an interrupted CSV holds whole: the last mark of `progress` whose bytes the partial file holds
   and end a line, in *m, and in *keep_log the sidecar's bytes up to that line's end. Without one (no
   sidecar, no unit done, every mark past the file's end), m->unit is -1 and m->bytes the length of
   the partial's header line (0 when even that is torn). Returns 1 with a unit, 0 without, -1 when
   the partial file cannot be read (err). */
int progress_last(const char *progress, const char *partial, progress_mark *m, long long *keep_log, char *err,
                  size_t errlen);

#endif
