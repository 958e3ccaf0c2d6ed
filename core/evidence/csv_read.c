#include "evidence/csv_read.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/file_read.h"

/* ---- the tokenizer: RFC 4180 as klab writes it, strictly ---- */

enum { AT_START, IN_PLAIN, IN_QUOTES, AFTER_QUOTE, AFTER_CR };

typedef struct scan {
    char *rec;          /* the record's cells so far, each NUL-terminated */
    size_t len, cap;
    size_t cell0;       /* where the current cell starts in rec */
    size_t start[CSV_MAX_CELLS];
    char *cells[CSV_MAX_CELLS];
    size_t lens[CSV_MAX_CELLS];
    int ncell;
    int state;
    int in_record;      /* a byte of this record was seen */
    long line;          /* the line being read (1-based) */
    long rec_line;      /* the line the record started on */
    long quote_line;    /* the line the open quote is on */
    csv_record_fn fn;
    void *user;
    char why[600];
    long why_line;      /* 0: the error is the file's, not a line's */
} scan;

static int fail(scan *s, long line, const char *why)
{
    snprintf(s->why, sizeof s->why, "%s", why);
    s->why_line = line;
    return -1;
}

/* Room for `extra` more bytes in the record. */
static int grow(scan *s, size_t extra)
{
    if (s->len + extra <= s->cap)
        return 0;
    size_t cap = s->cap ? s->cap : 4096;
    while (cap < s->len + extra)
        cap *= 2;
    char *p = realloc(s->rec, cap);
    if (!p)
        return fail(s, 0, "out of memory");
    s->rec = p;
    s->cap = cap;
    return 0;
}

/* The bytes that end a run of plain cell text: a cell's or line's end, a quote, a NUL. */
static const unsigned char special[256] = {[0] = 1, [','] = 1, ['\n'] = 1, ['\r'] = 1, ['"'] = 1};

/* Appends n bytes to the current cell, within CSV_CELL_MAX. */
static inline int put(scan *s, const char *b, size_t n)
{
    if (s->len - s->cell0 + n > CSV_CELL_MAX) {
        char why[120];
        snprintf(why, sizeof why, "cell %d is longer than %d bytes", s->ncell + 1, CSV_CELL_MAX);
        return fail(s, s->line, why);
    }
    if (grow(s, n + 1) != 0)
        return -1;
    memcpy(s->rec + s->len, b, n);
    s->len += n;
    return 0;
}

static int end_cell(scan *s)
{
    if (s->ncell == CSV_MAX_CELLS) {
        char why[80];
        snprintf(why, sizeof why, "more than %d cells", CSV_MAX_CELLS);
        return fail(s, s->rec_line, why);
    }
    if (grow(s, 1) != 0)
        return -1;
    s->rec[s->len++] = 0;
    s->start[s->ncell++] = s->cell0;
    s->cell0 = s->len;
    return 0;
}

static int end_record(scan *s)
{
    if (end_cell(s) != 0)
        return -1;
    for (int i = 0; i < s->ncell; i++) {
        s->cells[i] = s->rec + s->start[i];
        s->lens[i] = (i + 1 < s->ncell ? s->start[i + 1] : s->len) - s->start[i] - 1;
    }
    char why[600] = "";
    int rc = s->fn(s->user, s->cells, s->lens, s->ncell, s->rec_line, why, sizeof why);
    if (rc != 0)
        return fail(s, rc == CSV_NOT_THIS_KIND ? 0 : s->rec_line, why[0] ? why : "refused");
    s->len = s->cell0 = 0;
    s->ncell = 0;
    s->in_record = 0;
    s->state = AT_START;
    return 0;
}

/* A comma ends a cell, a line feed a record, a carriage return waits for its line feed, wherever a cell
   may end (unquoted, or after its closing quote). 1 when c was one of them, 0 when not, -1 with s->why. */
static int separator(scan *s, char c)
{
    if (c == ',') {
        if (end_cell(s) != 0)
            return -1;
        s->state = AT_START;
    } else if (c == '\n') {
        if (end_record(s) != 0)
            return -1;
        s->line++;
    } else if (c == '\r') {
        s->state = AFTER_CR;
    } else {
        return 0;
    }
    return 1;
}

/* A whole line at b[0 .. len) (its line feed at b[len]) with no carriage return or NUL, whose quoted
   cells hold no quote or line break of their own: its cells, taken as the state machine would take
   them byte by byte, a cell at a time. 1 when it was taken so, 0 when the line needs the state machine
   (anything else, a cell or record over the limits: it names what is wrong), -1 with s->why. */
static int plain_line(scan *s, const char *b, size_t len)
{
    if (memchr(b, '\r', len) || memchr(b, 0, len))
        return 0;
    if (grow(s, len + 1) != 0)
        return -1;
    const char *p = b, *end = b + len;
    size_t at = 0;
    int nc = 0;
    for (;;) {
        const char *text = p, *stop;
        if (p < end && *p == '"') { /* the cell is its quotes' text; after the closing one, its end */
            text = p + 1;
            stop = memchr(text, '"', (size_t)(end - text));
            if (!stop || (stop + 1 < end && stop[1] != ','))
                return 0;
            p = stop + 1;
        } else {
            /* a byte at a time: a cell is a few bytes, less than two memchr calls cost */
            for (stop = p; stop < end && *stop != ',' && *stop != '"';)
                stop++;
            if (stop < end && *stop == '"')
                return 0;
            p = stop;
        }
        size_t n = (size_t)(stop - text);
        if (nc == CSV_MAX_CELLS || n > CSV_CELL_MAX)
            return 0;
        memcpy(s->rec + at, text, n);
        s->rec[at + n] = 0;
        s->start[nc++] = at;
        at += n + 1;
        if (p == end)
            break;
        p++; /* the comma */
    }
    s->ncell = nc - 1; /* end_record ends the last cell, as a line feed does */
    s->cell0 = s->start[nc - 1];
    s->len = at - 1;
    s->in_record = 1;
    s->rec_line = s->line;
    if (end_record(s) != 0)
        return -1;
    s->line++;
    return 1;
}

/* Feeds bytes to the state machine. 0, or -1 with s->why. */
static int feed(scan *s, const char *b, size_t n)
{
    int sep;
    for (size_t i = 0; i < n; i++) {
        if (!s->in_record) { /* a line at once; the state machine only where a line needs it */
            const char *nl = memchr(b + i, '\n', n - i);
            int got = nl ? plain_line(s, b + i, (size_t)(nl - (b + i))) : 0;
            if (got < 0)
                return -1;
            if (got) {
                i = (size_t)(nl - b);
                continue;
            }
        }
        char c = b[i];
        if (c == 0)
            return fail(s, s->line, "a NUL byte (a CSV file is text)");
        if (!s->in_record) {
            s->in_record = 1;
            s->rec_line = s->line;
        }
        switch (s->state) {
        case AT_START:
        case IN_PLAIN:
            if ((sep = separator(s, c)) != 0) {
                if (sep < 0)
                    return -1;
            } else if (c == '"') {
                if (s->state == IN_PLAIN)
                    return fail(s, s->line, "a quote inside a cell that does not start with one");
                s->state = IN_QUOTES;
                s->quote_line = s->line;
            } else {
                /* the common case: copy the run of plain bytes up to the next special one */
                size_t k = i;
                while (k < n && !special[(unsigned char)b[k]])
                    k++;
                if (put(s, b + i, k - i) != 0)
                    return -1;
                i = k - 1;
                s->state = IN_PLAIN;
            }
            break;
        case IN_QUOTES:
            if (c == '"')
                s->state = AFTER_QUOTE;
            else {
                if (c == '\n')
                    s->line++;
                if (put(s, &c, 1) != 0)
                    return -1;
            }
            break;
        case AFTER_QUOTE:
            if (c == '"') {
                if (put(s, "\"", 1) != 0)
                    return -1;
                s->state = IN_QUOTES;
            } else if ((sep = separator(s, c)) != 0) {
                if (sep < 0)
                    return -1;
            } else {
                return fail(s, s->line, "text after the quote that closes a cell");
            }
            break;
        case AFTER_CR:
            if (c != '\n')
                return fail(s, s->line, "a carriage return not followed by a line feed");
            if (end_record(s) != 0)
                return -1;
            s->line++;
            break;
        }
    }
    return 0;
}

int csv_read_each(const char *path, csv_record_fn fn, void *user, char *err, size_t errlen)
{
    off_t size;
    int fd = file_open_regular(path, &size, err, errlen);
    if (fd < 0)
        return -1;
    if ((unsigned long long)size > CSV_READ_MAX) {
        snprintf(err, errlen, "%s: %lld bytes: CSV files over %zu bytes are refused", path, (long long)size,
                 CSV_READ_MAX);
        close(fd);
        return -1;
    }
    scan *s = calloc(1, sizeof *s);
    enum { CHUNK = 1 << 20 };
    char *buf = malloc(CHUNK);
    if (!s || !buf) {
        snprintf(err, errlen, "%s: out of memory", path);
        free(s);
        free(buf);
        close(fd);
        return -1;
    }
    s->fn = fn;
    s->user = user;
    s->line = 1;
    /* the size at opening bounds the read: a file that grows meanwhile (a writer still at it) is
       refused rather than read without end */
    unsigned long long total = 0;
    int rc = 0, first = 1;
    for (;;) {
        ssize_t got = read(fd, buf, CHUNK);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            snprintf(s->why, sizeof s->why, "cannot read: %s", strerror(errno));
            s->why_line = 0;
            rc = -1;
            break;
        }
        if (got == 0)
            break;
        total += (unsigned long long)got;
        if (total > (unsigned long long)size) {
            rc = fail(s, 0, "the file grew while it was read (is something still writing it?)");
            break;
        }
        const char *b = buf;
        size_t n = (size_t)got;
        /* a UTF-8 byte order mark, as some editors and spreadsheets write: not part of the header */
        if (first && n >= 3 && memcmp(b, "\xef\xbb\xbf", 3) == 0)
            b += 3, n -= 3;
        first = 0;
        if ((rc = feed(s, b, n)) != 0)
            break;
    }
    if (rc == 0 && s->in_record) {
        if (s->state == IN_QUOTES)
            rc = fail(s, s->quote_line, "a quote opens a cell here and never closes");
        else
            rc = fail(s, s->rec_line, "the last line has no line ending: the file was cut short");
    }
    if (rc != 0) {
        if (s->why_line > 0)
            snprintf(err, errlen, "%s:%ld: %s", path, s->why_line, s->why);
        else
            snprintf(err, errlen, "%s: %s", path, s->why);
    }
    free(s->rec);
    free(s);
    free(buf);
    close(fd);
    return rc;
}

/* ---- klab rows ---- */

typedef struct row_reader {
    csv_row_fn fn;
    void *user;
    unsigned char *has;
    int ncols;
    int map[CSV_MAX_CELLS]; /* file column -> schema column, -1 unknown */
    int status_col;         /* the file column of status */
    klab_row row;           /* the row being read: handed to fn, then reused */
} row_reader;

static int on_row(void *user, char *const *cells, const size_t *len, int n, long line, char *err, size_t errlen)
{
    row_reader *rd = user;
    if (rd->ncols == 0) { /* the header: the first record */
        rd->ncols = n;
        rd->status_col = -1;
        for (int i = 0; i < n; i++) {
            int c = row_column_index(cells[i]);
            rd->map[i] = c;
            if (c < 0)
                continue;
            if (rd->has[c]) {
                snprintf(err, errlen, "the header names column '%s' twice", cells[i]);
                return -1;
            }
            rd->has[c] = 1;
            if (strcmp(cells[i], "status") == 0)
                rd->status_col = i;
        }
        if (rd->map[0] != row_column_index("run_id")) {
            snprintf(err, errlen, "not a klab CSV (no run_id header)");
            return CSV_NOT_THIS_KIND;
        }
        static const char *const need[] = {"plugin", "case", "dtype", "profile", "status"};
        for (size_t k = 0; k < sizeof need / sizeof need[0]; k++)
            if (!rd->has[row_column_index(need[k])]) {
                snprintf(err, errlen, "not a klab CSV: the header has no '%s' column", need[k]);
                return CSV_NOT_THIS_KIND;
            }
        return 0;
    }
    if (n != rd->ncols) {
        snprintf(err, errlen, "%d cells, but the header has %d", n, rd->ncols);
        return -1;
    }
    /* an empty status would read as the enum's first value, passed */
    if (!cells[rd->status_col][0]) {
        snprintf(err, errlen, "the row has no status");
        return -1;
    }
    klab_row *r = &rd->row;
    memset(r, 0, sizeof *r);
    for (int i = 0; i < n; i++)
        if (rd->map[i] >= 0 && row_parse_len(r, rd->map[i], cells[i], len[i], err, errlen) != 0)
            return -1;
    return rd->fn(rd->user, r, line, err, errlen);
}

int csv_read_each_row(const char *path, csv_row_fn fn, void *user, unsigned char has[ROW_NCOLUMNS], char *err,
                      size_t errlen)
{
    memset(has, 0, ROW_NCOLUMNS);
    row_reader *rd = calloc(1, sizeof *rd);
    if (!rd) {
        snprintf(err, errlen, "%s: out of memory", path);
        return -1;
    }
    rd->fn = fn;
    rd->user = user;
    rd->has = has;
    int rc = csv_read_each(path, on_row, rd, err, errlen);
    if (rc == 0 && rd->ncols == 0) {
        snprintf(err, errlen, "%s: not a klab CSV (no header)", path);
        rc = -1;
    }
    free(rd);
    return rc;
}

typedef struct table_fill {
    csv_table *t;
    int cap;
} table_fill;

static int keep_row(void *user, const klab_row *r, long line, char *err, size_t errlen)
{
    table_fill *f = user;
    csv_table *t = f->t;
    if (t->n == f->cap) {
        int cap = f->cap ? 2 * f->cap : 64;
        klab_row *rows = realloc(t->rows, (size_t)cap * sizeof *rows);
        long *lines = rows ? realloc(t->line, (size_t)cap * sizeof *lines) : NULL;
        if (rows)
            t->rows = rows;
        if (!lines) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        t->line = lines;
        f->cap = cap;
    }
    t->rows[t->n] = *r;
    t->line[t->n++] = line;
    return 0;
}

int csv_read_table(const char *path, csv_table *t, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    table_fill f = {t, 0};
    int rc = csv_read_each_row(path, keep_row, &f, t->has, err, errlen);
    if (rc != 0)
        csv_table_free(t);
    return rc;
}

void csv_table_free(csv_table *t)
{
    free(t->rows);
    free(t->line);
    memset(t, 0, sizeof *t);
}

int csv_read_rows(const char *path, klab_row **rows, char *err, size_t errlen)
{
    csv_table t;
    if (csv_read_table(path, &t, err, errlen) != 0)
        return -1;
    free(t.line);
    *rows = t.rows;
    return t.n;
}

/* ---- records of text ---- */

static int on_record(void *user, char *const *cells, const size_t *len, int n, long line, char *err,
                     size_t errlen)
{
    csv_records *r = user;
    (void)line;
    (void)len;
    if (r->n > 0 && n != r->nf[0]) {
        snprintf(err, errlen, "%d cells, but the header has %d", n, r->nf[0]);
        return -1;
    }
    if (r->n == r->cap) {
        int cap = r->cap ? 2 * r->cap : 64;
        char ***c = realloc(r->cells, (size_t)cap * sizeof *c);
        int *nf = c ? realloc(r->nf, (size_t)cap * sizeof *nf) : NULL;
        if (c)
            r->cells = c;
        if (!nf) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        r->nf = nf;
        r->cap = cap;
    }
    char **copy = calloc((size_t)n, sizeof *copy);
    if (!copy) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (int i = 0; i < n; i++)
        if (!(copy[i] = strdup(cells[i]))) {
            while (i--)
                free(copy[i]);
            free(copy);
            snprintf(err, errlen, "out of memory");
            return -1;
        }
    r->cells[r->n] = copy;
    r->nf[r->n++] = n;
    return 0;
}

int csv_read_records(const char *path, csv_records *rec, char *err, size_t errlen)
{
    memset(rec, 0, sizeof *rec);
    if (csv_read_each(path, on_record, rec, err, errlen) != 0) {
        csv_records_free(rec);
        return -1;
    }
    return 0;
}
