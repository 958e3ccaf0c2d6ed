/* A klab CSV read back: the one reader of a run's evidence, for report, compare, merge and the tests.
 *
 * It believes nothing it cannot check. The file must be a regular file (a FIFO or a link to /dev/zero
 * named *.csv is refused by its type, never waited on or read forever) of at most CSV_READ_MAX bytes;
 * its text must be RFC 4180 CSV as klab writes it: every record ends with a line feed (CRLF too), has
 * as many cells as the header, no NUL byte, no quote that does not close or text after a closing quote,
 * no cell over CSV_CELL_MAX bytes. A UTF-8 byte order mark before the header is allowed. Each cell of a
 * row must fit its field and read as its column's kind (a status klab knows, a number, a whole
 * number); a row must name its status. Anything else is an error naming the file and line, never a
 * row cut, skipped or guessed at: a damaged row must not read as a passed one.
 *
 * Columns are matched by name against the schema (row.h), so a file of an older schema with fewer
 * columns still reads, and a column this klab does not know is passed over. */
#ifndef KLAB_CSV_READ_H
#define KLAB_CSV_READ_H

#include <stddef.h>

#include "evidence/ncu_csv.h"
#include "evidence/row.h"

#define CSV_READ_MAX ((size_t)4 << 30) /* bytes of one CSV: a million rows take about half a GiB */
#define CSV_CELL_MAX 65536             /* bytes of one cell: klab's longest field is 512 */
#define CSV_MAX_CELLS 512              /* cells of one record: klab writes 48 */

/* One record as the reader hands it over: n cells of len[i] bytes, NUL-terminated (a NUL inside is
   refused, so the string is the whole cell) and laid out one after the other (cells[i + 1] is
   cells[i] + len[i] + 1), and the line the record starts on (the header's is 1). Returns 0 to go
   on, or -1 with the reason in err (the reader puts the file and line before it), or
   CSV_NOT_THIS_KIND when the file as a whole is not what the caller reads (the file alone is named). */
#define CSV_NOT_THIS_KIND (-2)
typedef int (*csv_record_fn)(void *user, char *const *cells, const size_t *len, int n, long line, char *err,
                             size_t errlen);

/* Reads `path` strictly (above), one record at a time. Returns 0, or -1 with "path:line: why" (or
   "path: why") in err. */
int csv_read_each(const char *path, csv_record_fn fn, void *user, char *err, size_t errlen);

/* One row of a klab CSV, read and checked, with the line it starts on: for the reader that keeps only
   part of each (a klab_row is 2 KB; a million of them, 2 GB). r is the reader's own, valid for the
   call. Returns 0 to go on, or -1 with the reason in err. */
typedef int (*csv_row_fn)(void *user, const klab_row *r, long line, char *err, size_t errlen);

/* Reads one klab CSV a row at a time (fn), has[i] set for each schema column its header names.
   0, or -1 with "path[:line]: why" in err. */
int csv_read_each_row(const char *path, csv_row_fn fn, void *user, unsigned char has[ROW_NCOLUMNS], char *err,
                      size_t errlen);

/* A klab CSV's rows with where each came from. */
typedef struct csv_table {
    klab_row *rows;
    int n;
    long *line;                       /* the line each row starts on */
    unsigned char has[ROW_NCOLUMNS];  /* the header names column i of the schema */
} csv_table;

/* Reads one klab CSV into t (free with csv_table_free). 0, or -1 with the reason in err. */
int csv_read_table(const char *path, csv_table *t, char *err, size_t errlen);
void csv_table_free(csv_table *t);

/* csv_read_table's rows alone (malloc'd). Returns the count, or -1 with the reason in err. */
int csv_read_rows(const char *path, klab_row **rows, char *err, size_t errlen);

/* Any CSV of text cells read strictly into rec (record 0 the header; every record as many cells as
   it). 0, or -1 with the reason in err. */
int csv_read_records(const char *path, csv_records *rec, char *err, size_t errlen);

#endif
