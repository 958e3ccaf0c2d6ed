/* What Nsight Compute (ncu --csv --page raw --print-units base) wrote about one klab row's kernels: a
 * kernel a line with the metrics klab asks for, or why there are none (no permission for the GPU's
 * performance counters, no kernel in the profiled range, another ncu error). Pure: text in, records
 * out; running ncu is profiling.c's. Also the CSV record reader the counters file is read back with. */
#ifndef KLAB_NCU_CSV_H
#define KLAB_NCU_CSV_H

#include <stddef.h>

/* Records of text cells, as libcsv reads them. Record 0 is the header where the file has one. */
typedef struct csv_records {
    int n, cap;
    int *nf;       /* cells in each record */
    char ***cells; /* malloc'd strings */
} csv_records;

/* Parses CSV text (libcsv's rules). Returns 0, or -1 with the reason; free with csv_records_free. */
int csv_records_parse(const char *text, size_t len, csv_records *out, char *err, size_t errlen);
void csv_records_free(csv_records *r);
/* The index of column `name` in record 0, or -1. */
int csv_records_column(const csv_records *r, const char *name);

/* The counters klab asks ncu for: its column in the counters CSV, and ncu's metric. */
typedef struct ncu_metric {
    const char *column;
    const char *metric;
} ncu_metric;
#define NCU_NMETRICS 9
extern const ncu_metric ncu_metrics[NCU_NMETRICS];

/* ncu's --metrics list: every metric above but those whose bit (1 << index) is in `skip`,
   comma-separated. */
void ncu_metric_list(unsigned skip, char *buf, size_t len);

/* The index of the metric above an ncu error names (an ncu that does not know it), or -1. */
int ncu_named_metric(const char *error);

typedef enum ncu_status {
    NCU_MEASURED = 0, /* kernels with counters */
    NCU_REFUSED,      /* no permission for the performance counters (ERR_NVGPUCTRPERM) */
    NCU_NO_KERNELS,   /* ncu ran but profiled nothing in the range */
    NCU_FAILED        /* ncu reported an error, or wrote nothing klab can read */
} ncu_status;

const char *ncu_status_name(ncu_status s);

#define NCU_MAX_KERNELS 64

typedef struct ncu_kernel {
    char name[512];
    char grid[64], block[64];
    char value[NCU_NMETRICS][48]; /* as ncu wrote it, digit grouping removed; "" when ncu gave none */
} ncu_kernel;

typedef struct ncu_result {
    ncu_status status;
    char reason[600];
    int nkernels;
    int more; /* kernels past NCU_MAX_KERNELS, not kept */
    ncu_kernel k[NCU_MAX_KERNELS];
} ncu_result;

/* Reads ncu's output (its log: ==PROF==, ==WARNING== and ==ERROR== lines, and the CSV report).
   Always fills *r: a refusal or error is a status with its reason, never a failure of the call. */
void ncu_parse(const char *text, size_t len, ncu_result *r);

#endif
