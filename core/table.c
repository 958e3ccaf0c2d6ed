#include "table.h"

#include <csv.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "counters.h"
#include "dir_list.h"
#include "text.h"

/* The columns the schema marks for the terminal (row.h), in its order; the status column goes last,
   since its width varies, and notes go on a line of their own under the row. */
static int fixed_column(int i)
{
    row_show sh = row_schema[i].show;
    return sh != SHOW_NO && sh != SHOW_STATUS && sh != SHOW_NOTE;
}

void table_print(FILE *fp, const char *title, const klab_row *rows, int n)
{
    /* names come from INI files, reasons from plugins, and `klab report` reads any CSV: escaped */
    text_printf(fp, "\n%s\n", title);
    for (int i = 0; i < ROW_NCOLUMNS; i++)
        if (fixed_column(i))
            fprintf(fp, "%*s ", row_schema[i].width, row_schema[i].head);
    for (int i = 0; i < ROW_NCOLUMNS; i++)
        if (row_schema[i].show == SHOW_STATUS)
            fprintf(fp, " %s", row_schema[i].head);
    fputc('\n', fp);
    for (int k = 0; k < n; k++) {
        const klab_row *r = &rows[k];
        char cell[600];
        for (int i = 0; i < ROW_NCOLUMNS; i++)
            if (fixed_column(i)) {
                row_term(r, i, cell, sizeof cell);
                text_printf(fp, "%*s ", row_schema[i].width, cell);
            }
        for (int i = 0; i < ROW_NCOLUMNS; i++)
            if (row_schema[i].show == SHOW_STATUS) {
                row_term(r, i, cell, sizeof cell);
                text_printf(fp, " %s", cell);
            }
        fputc('\n', fp);
        for (int i = 0; i < ROW_NCOLUMNS; i++)
            if (row_schema[i].show == SHOW_NOTE) {
                row_term(r, i, cell, sizeof cell);
                if (cell[0])
                    text_printf(fp, "%18s%s\n", "", cell);
            }
    }
}

/* ---- reading a CSV back ---- */

typedef struct reader {
    int col;          /* current column */
    int line;         /* records seen */
    int map[128];     /* csv column -> row_schema index, -1 unknown */
    int ncols;
    klab_row cur;
    klab_row *rows;
    int n, cap;
    int failed;
} reader;

static void on_field(void *data, size_t len, void *user)
{
    reader *rd = user;
    char s[1024];
    snprintf(s, sizeof s, "%.*s", (int)(len < sizeof s ? len : sizeof s - 1), data ? (const char *)data : "");
    if (rd->line == 0) {
        if (rd->col < 128)
            rd->map[rd->col] = row_column_index(s);
        rd->ncols = rd->col + 1;
    } else if (rd->col < rd->ncols && rd->col < 128 && rd->map[rd->col] >= 0) {
        row_parse(&rd->cur, rd->map[rd->col], s);
    }
    rd->col++;
}

static void on_record(int c, void *user)
{
    (void)c;
    reader *rd = user;
    if (rd->line > 0 && row_push(&rd->rows, &rd->n, &rd->cap, &rd->cur) != 0) {
        rd->failed = 1;
        return;
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
    if (rd.line == 0 || rd.map[0] != row_column_index("run_id")) {
        snprintf(err, errlen, "%s: not a klab CSV (no run_id header)", path);
        free(rd.rows);
        return -1;
    }
    *rows = rd.rows;
    return rd.n;
}

int table_report(FILE *fp, const char *dir, char *err, size_t errlen)
{
    char **names;
    int all = dir_list(dir, ".csv", &names);
    if (all < 0) {
        snprintf(err, errlen, "%s: cannot open: %s", dir, strerror(errno));
        return -1;
    }
    int n = counters_drop(names, all); /* a counters file is ncu's, not rows */
    if (n == 0) {
        dir_list_free(names, 0);
        snprintf(err, errlen, "%s: no CSV files here", dir);
        return -1;
    }
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
    }
    dir_list_free(names, n);
    return rc;
}
