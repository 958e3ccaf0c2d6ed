#include "evidence/ncu_csv.h"

#include <csv.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/decimal.h"

/* ---- CSV records ---- */

typedef struct rec_reader {
    csv_records *r;
    char **cur;
    int ncur, capcur;
    int failed;
} rec_reader;

static void rec_field(void *data, size_t len, void *user)
{
    rec_reader *rd = user;
    if (rd->failed)
        return;
    if (rd->ncur == rd->capcur) {
        int c = rd->capcur ? 2 * rd->capcur : 32;
        char **p = realloc(rd->cur, (size_t)c * sizeof *p);
        if (!p) {
            rd->failed = 1;
            return;
        }
        rd->cur = p;
        rd->capcur = c;
    }
    char *s = malloc(len + 1);
    if (!s) {
        rd->failed = 1;
        return;
    }
    if (len)
        memcpy(s, data, len);
    s[len] = 0;
    rd->cur[rd->ncur++] = s;
}

static void rec_end(int c, void *user)
{
    (void)c;
    rec_reader *rd = user;
    csv_records *r = rd->r;
    if (rd->failed)
        return;
    if (r->n == r->cap) {
        int cap = r->cap ? 2 * r->cap : 32;
        char ***cells = realloc(r->cells, (size_t)cap * sizeof *cells);
        int *nf = cells ? realloc(r->nf, (size_t)cap * sizeof *nf) : NULL;
        if (cells)
            r->cells = cells;
        if (!nf) {
            rd->failed = 1;
            return;
        }
        r->nf = nf;
        r->cap = cap;
    }
    r->cells[r->n] = rd->cur;
    r->nf[r->n] = rd->ncur;
    r->n++;
    rd->cur = NULL;
    rd->ncur = rd->capcur = 0;
}

void csv_records_free(csv_records *r)
{
    for (int i = 0; i < r->n; i++) {
        for (int k = 0; k < r->nf[i]; k++)
            free(r->cells[i][k]);
        free(r->cells[i]);
    }
    free(r->cells);
    free(r->nf);
    memset(r, 0, sizeof *r);
}

int csv_records_parse(const char *text, size_t len, csv_records *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    struct csv_parser p;
    if (csv_init(&p, 0) != 0) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    rec_reader rd = {out, NULL, 0, 0, 0};
    int bad = csv_parse(&p, text, len, rec_field, rec_end, &rd) != len;
    if (bad)
        snprintf(err, errlen, "%s", csv_strerror(csv_error(&p)));
    else
        csv_fini(&p, rec_field, rec_end, &rd);
    csv_free(&p);
    for (int k = 0; k < rd.ncur; k++)
        free(rd.cur[k]);
    free(rd.cur);
    if (!bad && rd.failed)
        snprintf(err, errlen, "out of memory");
    if (bad || rd.failed) {
        csv_records_free(out);
        return -1;
    }
    return 0;
}

int csv_records_column(const csv_records *r, const char *name)
{
    if (r->n == 0)
        return -1;
    for (int k = 0; k < r->nf[0]; k++)
        if (strcmp(r->cells[0][k], name) == 0)
            return k;
    return -1;
}

/* ---- ncu ---- */

/* The hmma pipe metric is the one that reads a GEMM's tensor pipe on Hopper, for mma.sync and wgmma alike: on
 * the H200 (2026-11-22, ncu of CUDA 13) cuBLAS's wgmma kernel read 95 % there while the gmma metric came back
 * empty. The gmma column stays for an ncu that fills it. */
const ncu_metric ncu_metrics[NCU_NMETRICS] = {
    {"dram_pct", "dram__throughput.avg.pct_of_peak_sustained_elapsed"},
    {"achieved_occupancy_pct", "sm__warps_active.avg.pct_of_peak_sustained_active"},
    {"sm_pct", "sm__throughput.avg.pct_of_peak_sustained_elapsed"},
    {"tensor_hmma_pct", "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active"},
    {"tensor_gmma_pct", "sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active"},
    {"l2_hit_pct", "lts__t_sector_hit_rate.pct"},
    {"registers", "launch__registers_per_thread"},
    {"smem_static_bytes", "launch__shared_mem_per_block_static"},
    {"smem_dynamic_bytes", "launch__shared_mem_per_block_dynamic"},
};

void ncu_metric_list(unsigned skip, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = 0;
    for (int i = 0; i < NCU_NMETRICS && used < len; i++)
        if (!(skip & (1u << i)))
            used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? "," : "", ncu_metrics[i].metric);
}

int ncu_named_metric(const char *error)
{
    for (int i = 0; i < NCU_NMETRICS; i++) {
        /* by its base name: ncu may quote the metric with or without its rollup and suffix */
        const char *m = ncu_metrics[i].metric;
        size_t base = strcspn(m, ".");
        for (const char *p = strstr(error, "__"); p; p = strstr(p + 1, "__")) {
            const char *start = p;
            while (start > error && (start[-1] == '_' || (start[-1] >= 'a' && start[-1] <= 'z')))
                start--;
            /* compared first: start[base] is inside the string only once its first base bytes match
               (ASan found the read past the end of a shorter one) */
            if (strncmp(start, m, base) != 0)
                continue;
            char next = start[base]; /* the name must end there: not sm__throughput_x for sm__throughput */
            if (!(next == '_' || (next >= 'a' && next <= 'z') || (next >= '0' && next <= '9')))
                return i;
        }
    }
    return -1;
}

const char *ncu_status_name(ncu_status s)
{
    switch (s) {
    case NCU_MEASURED: return "measured";
    case NCU_REFUSED: return "refused";
    case NCU_NO_KERNELS: return "no-kernels";
    case NCU_FAILED: return "failed";
    }
    return "?";
}

/* A cell as a number klab writes back: ncu may group digits ("65,536"); the grouping goes. */
static void plain_number(const char *s, char *buf, size_t len)
{
    size_t o = 0;
    for (; *s && o + 1 < len; s++)
        if (*s != ',')
            buf[o++] = *s;
    buf[o] = 0;
}

/* The first line that holds `what`, into buf without its "==ERROR== " tag. 1 if found. */
static int find_line(const char *text, size_t len, const char *what, char *buf, size_t blen)
{
    const char *end = text + len;
    for (const char *p = text; p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end;
        size_t n = (size_t)(le - p);
        char line[700];
        snprintf(line, sizeof line, "%.*s", (int)(n < sizeof line ? n : sizeof line - 1), p);
        if (strstr(line, what)) {
            const char *s = line;
            if (strncmp(s, "==", 2) == 0 && (s = strstr(s + 2, "== ")) != NULL)
                s += 3;
            else
                s = line;
            snprintf(buf, blen, "%s", s);
            return 1;
        }
        p = nl ? nl + 1 : end;
    }
    return 0;
}

void ncu_parse(const char *text, size_t len, ncu_result *r)
{
    memset(r, 0, sizeof *r);
    char line[600];
    if (find_line(text, len, "ERR_NVGPUCTRPERM", line, sizeof line)) {
        r->status = NCU_REFUSED;
        snprintf(r->reason, sizeof r->reason,
                 "no permission for the GPU's performance counters (ERR_NVGPUCTRPERM): %s", line);
        return;
    }
    /* the CSV report is the lines that begin with a quote; ncu's own messages begin with "==" */
    char *csv = malloc(len + 1);
    if (!csv) {
        r->status = NCU_FAILED;
        snprintf(r->reason, sizeof r->reason, "out of memory reading ncu's output");
        return;
    }
    size_t n = 0;
    const char *end = text + len;
    for (const char *p = text; p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl + 1 : end;
        if (*p == '"') {
            memcpy(csv + n, p, (size_t)(le - p));
            n += (size_t)(le - p);
        }
        p = le;
    }
    csv[n] = 0;
    csv_records rec;
    char err[200];
    int parsed = csv_records_parse(csv, n, &rec, err, sizeof err) == 0;
    free(csv);
    int id = parsed ? csv_records_column(&rec, "ID") : -1;
    int kname = parsed ? csv_records_column(&rec, "Kernel Name") : -1;
    if (kname < 0 && parsed)
        kname = csv_records_column(&rec, "Function Name");
    int grid = parsed ? csv_records_column(&rec, "Grid Size") : -1;
    int block = parsed ? csv_records_column(&rec, "Block Size") : -1;
    int col[NCU_NMETRICS];
    for (int m = 0; m < NCU_NMETRICS; m++)
        col[m] = parsed ? csv_records_column(&rec, ncu_metrics[m].metric) : -1;
    for (int i = 1; parsed && id >= 0 && i < rec.n; i++) {
        char **c = rec.cells[i];
        if (rec.nf[i] <= id || !decimal_is_whole(c[id], 0))
            continue; /* the units line under the header */
        if (r->nkernels == NCU_MAX_KERNELS) {
            r->more++;
            continue;
        }
        ncu_kernel *k = &r->k[r->nkernels++];
        snprintf(k->name, sizeof k->name, "%s", kname >= 0 && kname < rec.nf[i] ? c[kname] : "");
        snprintf(k->grid, sizeof k->grid, "%s", grid >= 0 && grid < rec.nf[i] ? c[grid] : "");
        snprintf(k->block, sizeof k->block, "%s", block >= 0 && block < rec.nf[i] ? c[block] : "");
        for (int m = 0; m < NCU_NMETRICS; m++)
            if (col[m] >= 0 && col[m] < rec.nf[i])
                plain_number(c[col[m]], k->value[m], sizeof k->value[m]);
    }
    if (parsed)
        csv_records_free(&rec);
    if (r->nkernels > 0)
        return;
    if (find_line(text, len, "==ERROR==", line, sizeof line)) {
        r->status = NCU_FAILED;
        snprintf(r->reason, sizeof r->reason, "ncu: %s", line);
    } else if (!parsed) {
        r->status = NCU_FAILED;
        snprintf(r->reason, sizeof r->reason, "ncu's CSV could not be read: %s", err);
    } else if ((line[0] = 0, find_line(text, len, "No kernels were profiled", line, sizeof line)) || n == 0 ||
               id >= 0) {
        r->status = NCU_NO_KERNELS;
        snprintf(r->reason, sizeof r->reason, "no kernel ran inside klab's profiled range%s%s",
                 line[0] ? ": " : "", line[0] ? line : "");
    } else {
        r->status = NCU_FAILED;
        snprintf(r->reason, sizeof r->reason, "ncu's CSV has no ID column: not the raw page klab asked for");
    }
}
