/* <plugin>.counters.csv: the hardware counters of each row's kernels, beside <plugin>.csv and joined
 * to it by the row's key columns (run_id, plugin, case, dtype, profile, config, gpu_uuid). A row has
 * one line per kernel ncu profiled, or one line whose status says why it has none: refused (no
 * permission for the counters), no-ncu, no-kernels, failed, not-profiled (the row did not pass). */
#ifndef KLAB_COUNTERS_H
#define KLAB_COUNTERS_H

#include "evidence/csv_sink.h"
#include "evidence/ncu_csv.h"
#include "evidence/row.h"

#define COUNTERS_SUFFIX ".counters.csv"
#define COUNTERS_NKEY 8 /* the row's key, the first columns */
#define COUNTERS_NCOLUMNS (COUNTERS_NKEY + 6 + NCU_NMETRICS)

extern const char *const counters_columns[COUNTERS_NCOLUMNS];

/* The row's key as the counters file writes it, in counters_columns' order (gpu: its buffer). */
void counters_row_key(const klab_row *row, char gpu[16], const char *key[COUNTERS_NKEY]);

/* 1 when a file name is a counters file (not a CSV of rows). */
int counters_is_file(const char *name);

/* The n names (malloc'd, as dir_list gives them) less the counters files, which are freed; order kept.
   Returns how many are left: a run folder's CSVs of rows. */
int counters_drop(char **names, int n);

/* Opens <run_dir>/<plugin>.counters.csv (written as .partial, renamed by csv_sink_commit). */
int counters_open(csv_sink *s, const char *run_dir, const char *plugin, char *err, size_t errlen);

/* The row's lines: one per kernel when r measured some, else one with r's status and reason. */
int counters_add(csv_sink *s, const klab_row *row, const ncu_result *r);

/* One line saying why the row has no counters (status: no-ncu, not-profiled, ...). */
int counters_add_status(csv_sink *s, const klab_row *row, const char *status, const char *reason);

/* Reads a counters file back: its records, record 0 the header, checked to be exactly
   counters_columns. 0; -1 with err when it cannot be read or parsed; -2 when its columns differ. */
int counters_read(const char *path, csv_records *rec, char *err, size_t errlen);

#endif
