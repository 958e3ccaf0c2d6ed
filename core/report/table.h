/* The short readable table on the terminal, and `klab report DIR`, which prints the same table from a
 * run folder's CSV files (read back by csv_read.h). */
#ifndef KLAB_TABLE_H
#define KLAB_TABLE_H

#include <stdio.h>

#include "evidence/row.h"

void table_print(FILE *fp, const char *title, const klab_row *rows, int n);

/* Prints every *.csv of a run folder, with its meta.ini header. Returns 0, or -1 with err. */
int table_report(FILE *fp, const char *dir, char *err, size_t errlen);

/* The same from a run read already (run_set.h): its meta.ini header and each CSV's table, without
   reading the CSVs again; a CSV that could not be read is named on errfp. Of a CSV of more than
   SCOPE_SHOWN_MAX rows (scope.h), the first that many, and a line saying how many are left out. Returns 0, or -1 when one
   could not. */
struct run_dir;
int table_report_run(FILE *fp, FILE *errfp, const struct run_dir *d);

#endif
