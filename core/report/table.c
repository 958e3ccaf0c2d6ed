#include "report/table.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "evidence/counters.h"
#include "evidence/csv_read.h"
#include "evidence/run_set.h"
#include "report/scope.h"
#include "util/dir_list.h"
#include "util/file_read.h"
#include "util/text.h"

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
                /* escaped where it needs it: text_printf on every cell of a million rows is seconds;
                   a plain cell is padded as "%*s " pads it, without printf */
                size_t n = text_plain_length(cell);
                if (cell[n]) {
                    text_printf(fp, "%*s ", row_schema[i].width, cell);
                    continue;
                }
                int w = row_schema[i].width, pad = (w < 0 ? -w : w) - (int)n; /* a negative width: on the left */
                for (; w > 0 && pad > 0; pad--)
                    fputc(' ', fp);
                fwrite(cell, 1, n, fp);
                for (; pad > 0; pad--)
                    fputc(' ', fp);
                fputc(' ', fp);
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

/* meta.ini's lines a table is headed with: the run, the build, the GPU, the method */
static void meta_header(FILE *fp, const char *dir)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/meta.ini", dir);
    /* read as every file of a run folder is: a regular file, bounded (a FIFO here used to hang report) */
    size_t len;
    char why[600];
    char *meta = file_read_whole(path, 1u << 20, &len, why, sizeof why);
    if (!meta && errno != ENOENT)
        text_printf(fp, "(meta.ini not read: %s)\n", why);
    for (char *line = meta, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = 0;
        if (!strncmp(line, "id", 2) || !strncmp(line, "started", 7) || !strncmp(line, "commit", 6) ||
            !strncmp(line, "name", 4) || !strncmp(line, "command", 7) || !strncmp(line, "l2 ", 3))
            text_printf(fp, "%s\n", line);
    }
    free(meta);
}

int table_report_run(FILE *fp, FILE *errfp, const run_dir *d)
{
    meta_header(fp, d->path);
    int rc = 0;
    for (int i = 0; i < d->nfiles; i++) {
        const run_file *f = &d->files[i];
        if (f->err) {
            text_printf(errfp, "klab: %s\n", f->err);
            rc = -1;
            continue;
        }
        char title[4500];
        snprintf(title, sizeof title, "%s (%d rows)", f->path, f->n);
        /* a million rows on a terminal are read by no one and were seconds of the report's time: the
           pages' bound, the first rows, and a line that says the CSV holds the rest */
        int shown = f->n < SCOPE_SHOWN_MAX ? f->n : SCOPE_SHOWN_MAX;
        table_print(fp, title, d->rows + f->first, shown);
        if (shown < f->n)
            text_printf(fp, "(the first %d of %d rows: %d left out here; %s holds every row)\n", shown, f->n,
                        f->n - shown, f->path);
    }
    return rc;
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
    meta_header(fp, dir);
    char path[4400];
    int rc = 0;
    for (int i = 0; i < n; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        klab_row *rows = NULL;
        int nr = csv_read_rows(path, &rows, err, errlen);
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
