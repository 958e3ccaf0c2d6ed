/* The CSV writer's golden files (support/golden.h): each fixtures/csv_sink/<name>.rows describes rows
 * (or records), csv_sink writes them as a run does, and the committed file's bytes are diffed against
 * <name>.rows.expected beside it.
 *
 * A .rows file, one item a line ("; " begins a comment):
 *   [row]                 a klab_row, zeroed; then COLUMN = VALUE for any column of the schema
 *                         (core/evidence/row.c), and has_time, has_ci, has_limit, has_speedup,
 *                         has_speedup_ci, has_err, has_gpu = 0|1
 *   [header]              instead of rows: a file of other records (csv_sink_open_with), its header
 *                         cells as `cell = VALUE`; then [record] sections of `cell = VALUE`
 *   KEY = VALUE           VALUE is the rest of the line, with \n \r \t \\ \xNN as in C
 *   KEY *= N TEXT         TEXT repeated N times (long cells)
 * Numbers are read by strtod: nan, inf and -inf stand for themselves.
 *
 *   csv_golden DIR [--write]
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "evidence/csv_sink.h"
#include "golden.h"
#include "util/file_read.h"

#define MAX_CELLS 64
#define MAX_TEXT 4096

typedef struct sheet {
    int records; /* [header] seen: cells, not rows */
    int nrows;
    klab_row rows[16];
    int ncells[17]; /* [0] the header, then each record */
    char cell[17][MAX_CELLS][MAX_TEXT];
} sheet;

static sheet sh; /* large: off the stack */

static const struct {
    const char *name;
    size_t off;
} flags[] = {
    {"has_time", offsetof(klab_row, has_time)},     {"has_ci", offsetof(klab_row, has_ci)},
    {"has_limit", offsetof(klab_row, has_limit)},   {"has_speedup", offsetof(klab_row, has_speedup)},
    {"has_speedup_ci", offsetof(klab_row, has_speedup_ci)},
    {"has_err", offsetof(klab_row, has_err)},       {"has_gpu", offsetof(klab_row, has_gpu)},
};

/* VALUE with its escapes undone into out[cap]. Returns 0, or -1 on a bad escape or overflow. */
static int unescape(const char *v, char *out, size_t cap)
{
    size_t n = 0;
    for (const char *p = v; *p; p++) {
        char c = *p;
        if (c == '\\') {
            p++;
            switch (*p) {
            case 'n': c = '\n'; break;
            case 'r': c = '\r'; break;
            case 't': c = '\t'; break;
            case '\\': c = '\\'; break;
            case 'x': {
                char hex[3] = {p[1], p[1] ? p[2] : 0, 0};
                char *end;
                c = (char)strtol(hex, &end, 16);
                if (end != hex + 2)
                    return -1;
                p += 2;
                break;
            }
            default: return -1;
            }
        }
        if (n + 1 >= cap)
            return -1;
        out[n++] = c;
    }
    out[n] = 0;
    return 0;
}

/* `KEY *= N TEXT`: TEXT N times into out[cap]. */
static int repeat(const char *v, char *out, size_t cap)
{
    char *end;
    long count = strtol(v, &end, 10);
    if (end == v || *end != ' ' || count < 0)
        return -1;
    char unit[MAX_TEXT];
    if (unescape(end + 1, unit, sizeof unit) != 0)
        return -1;
    size_t ul = strlen(unit), n = 0;
    for (long i = 0; i < count; i++, n += ul) {
        if (n + ul + 1 > cap)
            return -1;
        memcpy(out + n, unit, ul);
    }
    out[n] = 0;
    return 0;
}

/* One COLUMN = VALUE of a row, into its klab_row field by the column's kind. */
static int set_column(klab_row *r, const char *key, const char *text)
{
    for (size_t f = 0; f < sizeof flags / sizeof flags[0]; f++)
        if (strcmp(key, flags[f].name) == 0) {
            *(int *)((char *)r + flags[f].off) = atoi(text);
            return 0;
        }
    int i = row_column_index(key);
    if (i < 0)
        return -1;
    const row_column *c = &row_schema[i];
    void *field = (char *)r + c->off;
    char *end = NULL;
    switch (c->kind) {
    case COL_TEXT:
        if (strlen(text) >= c->size)
            return -1; /* a field holds no more: the row could not carry it */
        memcpy(field, text, strlen(text) + 1);
        return 0;
    case COL_STATUS:
        for (int s = ROW_PASSED; s <= ROW_REFUSED; s++)
            if (strcmp(text, row_status_name((row_status)s)) == 0) {
                *(row_status *)field = (row_status)s;
                return 0;
            }
        return -1;
    case COL_INT: *(int *)field = (int)strtol(text, &end, 10); break;
    case COL_NUM:
    case COL_COUNT: *(double *)field = strtod(text, &end); break;
    case COL_U64: *(uint64_t *)field = strtoull(text, &end, 10); break;
    case COL_SCHEMA: return -1;
    }
    return end && end != text && *end == 0 ? 0 : -1;
}

static int parse(const char *name, char *text)
{
    memset(&sh, 0, sizeof sh);
    int in = 0; /* 1 row, 2 header, 3 record */
    int lineno = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        lineno++;
        if (line[0] == ';' || line[0] == 0)
            continue;
        if (strcmp(line, "[row]") == 0 && sh.nrows < 16) {
            in = 1;
            sh.nrows++;
            continue;
        }
        if (strcmp(line, "[header]") == 0 || strcmp(line, "[record]") == 0) {
            in = line[1] == 'h' ? 2 : 3;
            sh.records = 1;
            if (in == 3 && ++sh.nrows > 16)
                break;
            continue;
        }
        char *eq = strstr(line, " = "), *rep = strstr(line, " *= ");
        char value[MAX_TEXT];
        int bad = !in || (!eq && !rep);
        if (!bad) {
            char *sep = rep && (!eq || rep < eq) ? rep : eq;
            *sep = 0;
            bad = sep == rep ? repeat(sep + 4, value, sizeof value) : unescape(sep + 3, value, sizeof value);
        }
        if (!bad && in == 1)
            bad = set_column(&sh.rows[sh.nrows - 1], line, value);
        else if (!bad) {
            int rec = in == 2 ? 0 : sh.nrows;
            bad = strcmp(line, "cell") != 0 || sh.ncells[rec] == MAX_CELLS;
            if (!bad)
                memcpy(sh.cell[rec][sh.ncells[rec]++], value, strlen(value) + 1);
        }
        if (bad) {
            fprintf(stderr, "%s: item %d ('%s') is not one this test reads\n", name, lineno, line);
            return -1;
        }
    }
    return 0;
}

/* Writes the sheet with csv_sink into path and commits it. */
static int write_sheet(const char *path)
{
    char err[512];
    csv_sink s;
    const char *cells[MAX_CELLS];
    int rc;
    if (sh.records) {
        for (int c = 0; c < sh.ncells[0]; c++)
            cells[c] = sh.cell[0][c];
        rc = csv_sink_open_with(&s, path, cells, sh.ncells[0], err, sizeof err);
    } else {
        rc = csv_sink_open(&s, path, err, sizeof err);
    }
    for (int i = 0; rc == 0 && i < sh.nrows; i++) {
        if (!sh.records) {
            rc = csv_sink_row(&s, &sh.rows[i]);
            continue;
        }
        for (int c = 0; c < sh.ncells[i + 1]; c++)
            cells[c] = sh.cell[i + 1][c];
        rc = csv_sink_record(&s, cells, sh.ncells[i + 1]);
    }
    if (rc == 0)
        rc = csv_sink_commit(&s, err, sizeof err);
    else
        csv_sink_discard(&s);
    if (rc != 0)
        fprintf(stderr, "%s: %s\n", path, err);
    return rc;
}

static int render(const char *name, FILE *out)
{
    char err[512];
    size_t len;
    char *text = file_read_whole(name, 1 << 20, &len, err, sizeof err);
    if (!text) {
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    int rc = parse(name, text);
    free(text);
    char dir[] = "/tmp/klab-csv-golden-XXXXXX", path[64];
    if (rc != 0 || !mkdtemp(dir))
        return -1;
    snprintf(path, sizeof path, "%s/out.csv", dir);
    rc = write_sheet(path);
    char *bytes = rc == 0 ? file_read_whole(path, 1 << 24, &len, err, sizeof err) : NULL;
    if (bytes)
        fwrite(bytes, 1, len, out);
    free(bytes);
    unlink(path);
    rmdir(dir);
    return bytes ? 0 : -1;
}

int main(int argc, char **argv)
{
    return golden_main(argc, argv, ".rows", render);
}
