/* A klab CSV read back into rows (libcsv): the one reader of a run's evidence, for report, compare,
 * merge and the tests. Columns are matched by name against the schema (row.h), so a file of an older
 * schema with fewer columns still reads. */
#ifndef KLAB_CSV_READ_H
#define KLAB_CSV_READ_H

#include <stddef.h>

#include "evidence/row.h"

/* Reads one klab CSV into rows (malloc'd). Returns the count, or -1 with the reason in err. */
int csv_read_rows(const char *path, klab_row **rows, char *err, size_t errlen);

#endif
