#include "evidence/csv_read.h"

#include <csv.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

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

int csv_read_rows(const char *path, klab_row **rows, char *err, size_t errlen)
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
