#include "evidence/counters.h"

#include "evidence/csv_read.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const counters_columns[COUNTERS_NCOLUMNS] = {
    "run_id", "plugin", "case", "dtype", "profile", "config", "gpu", "gpu_uuid", /* the row */
    "kernel_index", "kernel", "grid", "block", "status", "reason",
    /* ncu_metrics, in order */
    "dram_pct", "achieved_occupancy_pct", "sm_pct", "tensor_hmma_pct", "tensor_gmma_pct", "l2_hit_pct",
    "registers", "smem_static_bytes", "smem_dynamic_bytes",
};

void counters_row_key(const klab_row *row, char gpu[16], const char *key[COUNTERS_NKEY])
{
    gpu[0] = 0;
    if (row->has_gpu)
        snprintf(gpu, 16, "%d", row->gpu_index);
    const char *k[COUNTERS_NKEY] = {row->run_id,  row->plugin, row->kcase, row->dtype,
                                    row->profile, row->config, gpu,        row->gpu_uuid};
    memcpy(key, k, sizeof k);
}

int counters_is_file(const char *name)
{
    size_t n = strlen(name), s = strlen(COUNTERS_SUFFIX);
    return n > s && strcmp(name + n - s, COUNTERS_SUFFIX) == 0;
}

int counters_drop(char **names, int n)
{
    int kept = 0;
    for (int i = 0; i < n; i++)
        if (counters_is_file(names[i]))
            free(names[i]);
        else
            names[kept++] = names[i];
    return kept;
}

int counters_open(csv_sink *s, const char *run_dir, const char *plugin, char *err, size_t errlen)
{
    for (int m = 0; m < NCU_NMETRICS; m++)
        if (strcmp(counters_columns[COUNTERS_NKEY + 6 + m], ncu_metrics[m].column) != 0) {
            snprintf(err, errlen, "counters: column %s is not metric %s", counters_columns[COUNTERS_NKEY + 6 + m],
                     ncu_metrics[m].column);
            return -1;
        }
    char path[4400];
    snprintf(path, sizeof path, "%s/%s%s", run_dir, plugin, COUNTERS_SUFFIX);
    return csv_sink_open_with(s, path, counters_columns, COUNTERS_NCOLUMNS, err, errlen);
}

/* One line: the row's key, then the kernel's cells (NULL: the line says only status and reason). */
static int add_line(csv_sink *s, const klab_row *row, int index, const ncu_kernel *k, const char *status,
                    const char *reason)
{
    char gpu[16], idx[16] = "";
    if (k)
        snprintf(idx, sizeof idx, "%d", index);
    const char *cells[COUNTERS_NCOLUMNS] = {
        [COUNTERS_NKEY] = idx, k ? k->name : "", k ? k->grid : "", k ? k->block : "", status, reason,
    };
    counters_row_key(row, gpu, cells);
    for (int m = 0; m < NCU_NMETRICS; m++)
        cells[COUNTERS_NKEY + 6 + m] = k ? k->value[m] : "";
    return csv_sink_record(s, cells, COUNTERS_NCOLUMNS);
}

int counters_add(csv_sink *s, const klab_row *row, const ncu_result *r)
{
    if (r->status != NCU_MEASURED || r->nkernels == 0)
        return add_line(s, row, 0, NULL, ncu_status_name(r->status), r->reason);
    char why[700];
    snprintf(why, sizeof why, "%s", r->reason); /* metrics this ncu did not know, if any */
    for (int i = 0; i < r->nkernels; i++) {
        if (i == r->nkernels - 1 && r->more) /* the last line says what the file lacks */
            snprintf(why + strlen(why), sizeof why - strlen(why), "%s%d more kernels not kept", why[0] ? "; " : "",
                     r->more);
        if (add_line(s, row, i, &r->k[i], ncu_status_name(NCU_MEASURED), why) != 0)
            return -1;
    }
    return 0;
}

int counters_add_status(csv_sink *s, const klab_row *row, const char *status, const char *reason)
{
    return add_line(s, row, 0, NULL, status, reason);
}

int counters_read(const char *path, csv_records *rec, char *err, size_t errlen)
{
    if (csv_read_records(path, rec, err, errlen) != 0)
        return -1;
    int ok = rec->n > 0 && rec->nf[0] == COUNTERS_NCOLUMNS;
    for (int i = 0; ok && i < COUNTERS_NCOLUMNS; i++)
        ok = strcmp(rec->cells[0][i], counters_columns[i]) == 0;
    if (!ok) {
        snprintf(err, errlen, "%s: not the counters columns this klab writes", path);
        csv_records_free(rec);
        return -2;
    }
    return 0;
}
