#include "table.h"

#include <csv.h>
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "text.h"

static void us(char *buf, size_t len, int valid, double ms)
{
    if (valid)
        snprintf(buf, len, "%.2f", ms * 1e3);
    else
        snprintf(buf, len, "-");
}

void table_print(FILE *fp, const char *title, const klab_row *rows, int n)
{
    /* names come from INI files, reasons from plugins, and `klab report` reads any CSV: escaped */
    text_printf(fp, "\n%s\n", title);
    fprintf(fp, "%-16s %-5s %-14s %-6s %10s %10s %9s %7s %8s  %s\n", "case", "dtype", "profile", "mode",
            "median us", "p95 us", "GB/s", "limit", "vs base", "status");
    for (int i = 0; i < n; i++) {
        const klab_row *r = &rows[i];
        char med[32], p95[32], gbps[32] = "-", lim[32] = "-", sp[32] = "-", mode[16];
        us(med, sizeof med, r->has_time, r->median_ms);
        us(p95, sizeof p95, r->has_time, r->p95_ms);
        if (r->has_time && r->bytes > 0)
            snprintf(gbps, sizeof gbps, "%.0f", r->gbps);
        if (r->has_time && r->has_limit)
            snprintf(lim, sizeof lim, "%.1f%%", 100 * r->frac_limit);
        if (r->has_time && r->has_speedup)
            snprintf(sp, sizeof sp, "%.2fx", r->speedup);
        snprintf(mode, sizeof mode, "%s%s", r->l2, strcmp(r->launch, "graph") == 0 ? "+g" : "");
        char status[160];
        snprintf(status, sizeof status, "%s%s%s", row_status_name(r->status), r->flags[0] ? " " : "", r->flags);
        text_printf(fp, "%-16s %-5s %-14s %-6s %10s %10s %9s %7s %8s  %s\n", r->kcase, r->dtype, r->profile, mode,
                    med, p95, gbps, lim, sp, status);
        if (r->reason[0])
            text_printf(fp, "%18s%s\n", "", r->reason);
        else if (r->has_time && r->launch_floor_ms > 0)
            fprintf(fp, "%18sunder 10 us: the empty launch alone takes %.2f us (try --graph)\n", "",
                    r->launch_floor_ms * 1e3);
    }
}

/* ---- reading a CSV back ---- */

typedef struct reader {
    int col;          /* current column */
    int line;         /* records seen */
    int map[64];      /* csv column -> row_columns index, -1 unknown */
    int ncols;
    klab_row cur;
    klab_row *rows;
    int n, cap;
    int failed;
} reader;

static double dnum(const char *s, int *valid)
{
    if (!*s)
        return 0;
    *valid = 1;
    return strtod(s, NULL);
}

static void set_cell(klab_row *r, int idx, const char *s)
{
    int v = 0;
    switch (idx) {
    case 0: snprintf(r->run_id, sizeof r->run_id, "%s", s); break;
    case 1: snprintf(r->plugin, sizeof r->plugin, "%s", s); break;
    case 2: snprintf(r->kcase, sizeof r->kcase, "%s", s); break;
    case 3: snprintf(r->shape, sizeof r->shape, "%s", s); break;
    case 4: snprintf(r->dtype, sizeof r->dtype, "%s", s); break;
    case 5: snprintf(r->profile, sizeof r->profile, "%s", s); break;
    case 6: snprintf(r->l2, sizeof r->l2, "%s", s); break;
    case 7: snprintf(r->launch, sizeof r->launch, "%s", s); break;
    case 8:
        for (int k = ROW_PASSED; k <= ROW_REFUSED; k++)
            if (strcmp(s, row_status_name((row_status)k)) == 0)
                r->status = (row_status)k;
        break;
    case 9: snprintf(r->reason, sizeof r->reason, "%s", s); break;
    case 10: snprintf(r->flags, sizeof r->flags, "%s", s); break;
    case 11: r->reps = atoi(s); break;
    case 12: r->discarded = atoi(s); break;
    case 13: r->median_ms = dnum(s, &r->has_time); break;
    case 14: r->p95_ms = dnum(s, &v); break;
    case 15: r->min_ms = dnum(s, &v); break;
    case 16: r->max_ms = dnum(s, &v); break;
    case 17: r->mean_ms = dnum(s, &v); break;
    case 18: r->noise = dnum(s, &v); break;
    case 19: r->bytes = dnum(s, &v); break;
    case 20: r->flops = dnum(s, &v); break;
    case 21: r->gbps = dnum(s, &v); break;
    case 22: r->tflops = dnum(s, &v); break;
    case 23: snprintf(r->limit, sizeof r->limit, "%s", s); break;
    case 24: r->limit_gbps = dnum(s, &v); break;
    case 25: r->frac_limit = dnum(s, &r->has_limit); break;
    case 26: r->speedup = dnum(s, &r->has_speedup); break;
    case 27: r->sm_mhz = dnum(s, &v); break;
    case 28: r->launch_floor_ms = dnum(s, &v); break;
    case 29: r->rel_l2_err = dnum(s, &r->has_err); break;
    case 30: r->max_abs_err = dnum(s, &v); break;
    case 31: r->tol = dnum(s, &v); break;
    case 32: r->seed = strtoull(s, NULL, 10); break;
    default: break;
    }
}

static void on_field(void *data, size_t len, void *user)
{
    reader *rd = user;
    char s[1024];
    snprintf(s, sizeof s, "%.*s", (int)(len < sizeof s ? len : sizeof s - 1), data ? (const char *)data : "");
    if (rd->line == 0) {
        int idx = -1;
        for (int i = 0; i < ROW_NCOLUMNS; i++)
            if (strcmp(s, row_columns[i]) == 0)
                idx = i;
        if (rd->col < 64)
            rd->map[rd->col] = idx;
        rd->ncols = rd->col + 1;
    } else if (rd->col < rd->ncols && rd->col < 64 && rd->map[rd->col] >= 0) {
        set_cell(&rd->cur, rd->map[rd->col], s);
    }
    rd->col++;
}

static void on_record(int c, void *user)
{
    (void)c;
    reader *rd = user;
    if (rd->line > 0) {
        if (rd->n == rd->cap) {
            rd->cap = rd->cap ? 2 * rd->cap : 64;
            klab_row *p = realloc(rd->rows, (size_t)rd->cap * sizeof *p);
            if (!p) {
                rd->failed = 1;
                return;
            }
            rd->rows = p;
        }
        rd->rows[rd->n++] = rd->cur;
    }
    memset(&rd->cur, 0, sizeof rd->cur);
    rd->col = 0;
    rd->line++;
}

int table_read_csv(const char *path, klab_row **rows, char *err, size_t errlen)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    struct csv_parser p;
    csv_init(&p, CSV_APPEND_NULL);
    reader rd;
    memset(&rd, 0, sizeof rd);
    char buf[65536];
    size_t n;
    int bad = 0;
    while ((n = fread(buf, 1, sizeof buf, fp)) > 0)
        if (csv_parse(&p, buf, n, on_field, on_record, &rd) != n) {
            snprintf(err, errlen, "%s: %s", path, csv_strerror(csv_error(&p)));
            bad = 1;
            break;
        }
    if (!bad)
        csv_fini(&p, on_field, on_record, &rd);
    csv_free(&p);
    fclose(fp);
    if (bad || rd.failed) {
        if (rd.failed)
            snprintf(err, errlen, "%s: out of memory", path);
        free(rd.rows);
        return -1;
    }
    if (rd.line == 0 || rd.map[0] != 0) {
        snprintf(err, errlen, "%s: not a klab CSV (no run_id header)", path);
        free(rd.rows);
        return -1;
    }
    *rows = rd.rows;
    return rd.n;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int table_report(FILE *fp, const char *dir, char *err, size_t errlen)
{
    DIR *d = opendir(dir);
    if (!d) {
        snprintf(err, errlen, "%s: cannot open: %s", dir, strerror(errno));
        return -1;
    }
    char *names[256];
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < 256) {
        size_t len = strlen(e->d_name);
        if (len > 4 && strcmp(e->d_name + len - 4, ".csv") == 0)
            names[n++] = strdup(e->d_name);
    }
    closedir(d);
    if (n == 0) {
        snprintf(err, errlen, "%s: no CSV files here", dir);
        return -1;
    }
    qsort(names, (size_t)n, sizeof names[0], cmp_str);
    char path[4400];
    snprintf(path, sizeof path, "%s/meta.ini", dir);
    FILE *meta = fopen(path, "r");
    if (meta) {
        char line[1024];
        while (fgets(line, sizeof line, meta))
            if (!strncmp(line, "id", 2) || !strncmp(line, "started", 7) || !strncmp(line, "commit", 6) ||
                !strncmp(line, "name", 4) || !strncmp(line, "command", 7) || !strncmp(line, "l2 ", 3))
                fputs(line, fp);
        fclose(meta);
    }
    int rc = 0;
    for (int i = 0; i < n; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        klab_row *rows = NULL;
        int nr = table_read_csv(path, &rows, err, errlen);
        if (nr < 0) {
            rc = -1;
        } else {
            char title[4500];
            snprintf(title, sizeof title, "%s (%d rows)", path, nr);
            table_print(fp, title, rows, nr);
        }
        free(rows);
        free(names[i]);
    }
    return rc;
}
