#include "scale/merge_rows.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "evidence/counters.h"
#include "evidence/csv_read.h"
#include "evidence/csv_sink.h"
#include "evidence/row.h"
#include "host/parallel.h"
#include "util/checksum.h"

/* One file being read into a set. */
typedef struct reading {
    rec_set *s;
    const char *from;
    int counters;        /* a counters file, else a CSV of rows */
    int header_seen;
    int oom;             /* the failure was memory, not the file */
    int key[16], nkey;   /* the key's columns */
    int sort[3];
    char *scratch;       /* the key being looked up */
    size_t scratch_cap;
} reading;

/* FNV-1a's low bits, which pick the slot, follow keys that differ in one character too closely (case
   n0000123 beside n0000124): long runs of taken slots made the table quadratic at a million rows.
   MurmurHash3's finaliser spreads every bit over all of them. */
static uint64_t mix(uint64_t h)
{
    h ^= h >> 33;
    h *= UINT64_C(0xff51afd7ed558ccd);
    h ^= h >> 33;
    h *= UINT64_C(0xc4ceb9fe1a85ec53);
    h ^= h >> 33;
    return h;
}

static int grow_table(rec_set *s)
{
    size_t nslot = s->nslot ? 2 * s->nslot : 1024;
    size_t *slot = calloc(nslot, sizeof *slot);
    if (!slot)
        return -1;
    for (size_t i = 0; i < s->n; i++) {
        size_t at = (size_t)s->r[i].h & (nslot - 1);
        while (slot[at])
            at = (at + 1) & (nslot - 1);
        slot[at] = i + 1;
    }
    free(s->slot);
    s->slot = slot;
    s->nslot = nslot;
    return 0;
}

/* The key's non-empty cells, for a refusal a person reads. */
static void key_words(const char *key, size_t keylen, char *buf, size_t len)
{
    size_t o = 0;
    buf[0] = 0;
    for (const char *p = key; p < key + keylen; p += strlen(p) + 1)
        if (*p && o < len)
            o += (size_t)snprintf(buf + o, len - o, "%s%s", o ? " " : "", p);
}

/* A set's records' text: a malloc a record was a tenth of a million-row merge's time. */
typedef struct rec_block {
    struct rec_block *prev;
    size_t used, cap;
    char text[];
} rec_block;

/* n bytes of s's text, or NULL out of memory. */
static char *rec_text(rec_set *s, size_t n)
{
    if (!s->text || s->text->cap - s->text->used < n) {
        size_t cap = n > ((size_t)1 << 20) ? n : (size_t)1 << 20;
        rec_block *b = malloc(sizeof *b + cap);
        if (!b)
            return NULL;
        b->prev = s->text;
        b->used = 0;
        b->cap = cap;
        s->text = b;
    }
    char *p = s->text->text + s->text->used;
    s->text->used += n;
    return p;
}

static int add(reading *rd, char *const *cells, const size_t *lens, int n, char *err, size_t errlen)
{
    rec_set *s = rd->s;
    size_t keylen = 0;
    for (int i = 0; i < rd->nkey; i++)
        keylen += lens[rd->key[i]] + 1;
    size_t len = (size_t)(cells[n - 1] - cells[0]) + lens[n - 1] + 1; /* the cells lie one after another */
    if (keylen > rd->scratch_cap) {
        char *p = realloc(rd->scratch, keylen);
        if (!p)
            goto oom;
        rd->scratch = p;
        rd->scratch_cap = keylen;
    }
    size_t o = 0;
    for (int i = 0; i < rd->nkey; i++) {
        memcpy(rd->scratch + o, cells[rd->key[i]], lens[rd->key[i]] + 1);
        o += lens[rd->key[i]] + 1;
    }
    uint64_t h = mix(checksum_update(CHECKSUM_INIT, rd->scratch, keylen));
    if (2 * (s->n + 1) > s->nslot && grow_table(s) != 0)
        goto oom;
    size_t at = (size_t)h & (s->nslot - 1);
    for (; s->slot[at]; at = (at + 1) & (s->nslot - 1)) {
        merge_rec *r = &s->r[s->slot[at] - 1];
        if (r->h != h || r->keylen != keylen || memcmp(r->key, rd->scratch, keylen) != 0)
            continue;
        /* the same key: the same record found again (a shard merged twice), or two results */
        if (r->len == len && r->ncell == n && memcmp(r->all, cells[0], len) == 0)
            return 0;
        char named[1200];
        key_words(r->key, r->keylen, named, sizeof named);
        snprintf(err, errlen, "the %s [%s] is in %s and in %s with different results",
                 rd->counters ? "counters line" : "row", named, r->from, rd->from);
        return -1;
    }
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 256;
        merge_rec *p = realloc(s->r, cap * sizeof *p);
        if (!p)
            goto oom;
        s->r = p;
        s->cap = cap;
    }
    char *buf = rec_text(s, len + keylen);
    if (!buf)
        goto oom;
    merge_rec *r = &s->r[s->n];
    memset(r, 0, sizeof *r);
    memcpy(buf, cells[0], len);
    memcpy(buf + len, rd->scratch, keylen);
    r->all = buf;
    r->len = len;
    r->key = buf + len;
    r->keylen = keylen;
    r->h = h;
    r->ncell = n;
    r->from = rd->from;
    r->order = (long)s->n;
    for (int j = 0; j < 3; j++)
        r->sort[j] = buf + (cells[rd->sort[j]] - cells[0]);
    s->slot[at] = ++s->n;
    return 0;
oom:
    rd->oom = 1;
    snprintf(err, errlen, "out of memory");
    return -1;
}

/* The header must be exactly the columns this klab writes: a merge writes back what it read, so a file
   of other columns would come out under the wrong names. */
static int header(reading *rd, char *const *cells, int n, const char *const *want, int nwant, char *err,
                  size_t errlen)
{
    int ok = n == nwant;
    for (int i = 0; ok && i < n; i++)
        ok = strcmp(cells[i], want[i]) == 0;
    if (!ok) {
        snprintf(err, errlen, "not the %s this klab writes (schema %d): merge writes back what it reads",
                 rd->counters ? "counters columns" : "CSV columns", ROW_SCHEMA);
        return CSV_NOT_THIS_KIND;
    }
    rd->header_seen = 1;
    return 0;
}

static const char *const *schema_names(void)
{
    static const char *names[ROW_NCOLUMNS];
    for (int i = 0; i < ROW_NCOLUMNS; i++)
        names[i] = row_schema[i].name;
    return names;
}

static int on_row(void *user, char *const *cells, const size_t *lens, int n, long line, char *err, size_t errlen)
{
    reading *rd = user;
    (void)line;
    if (!rd->header_seen)
        return header(rd, cells, n, schema_names(), ROW_NCOLUMNS, err, errlen);
    if (n != ROW_NCOLUMNS) {
        snprintf(err, errlen, "%d cells, but the header has %d", n, ROW_NCOLUMNS);
        return -1;
    }
    /* every cell must read as its column's kind, and the row name its status (csv_read.c's checks);
       the row is only written by the parse, never read: not cleared first, 2 KB a row */
    klab_row scratch;
    for (int i = 0; i < n; i++)
        if (row_parse_len(&scratch, i, cells[i], lens[i], err, errlen) != 0)
            return -1;
    if (!cells[row_column_index("status")][0]) {
        snprintf(err, errlen, "the row has no status");
        return -1;
    }
    return add(rd, cells, lens, n, err, errlen);
}

static int on_counters(void *user, char *const *cells, const size_t *lens, int n, long line, char *err,
                       size_t errlen)
{
    reading *rd = user;
    (void)line;
    if (!rd->header_seen)
        return header(rd, cells, n, counters_columns, COUNTERS_NCOLUMNS, err, errlen);
    if (n != COUNTERS_NCOLUMNS) {
        snprintf(err, errlen, "%d cells, but the header has %d", n, COUNTERS_NCOLUMNS);
        return -1;
    }
    return add(rd, cells, lens, n, err, errlen);
}

static int read_into(rec_set *s, const char *path, const char *from, int counters, char *err, size_t errlen)
{
    reading rd;
    memset(&rd, 0, sizeof rd);
    rd.s = s;
    rd.from = from;
    rd.counters = counters;
    if (counters) {
        for (int i = 0; i < COUNTERS_NKEY; i++)
            rd.key[rd.nkey++] = i;
        rd.key[rd.nkey++] = COUNTERS_NKEY; /* kernel_index */
        rd.sort[0] = 2, rd.sort[1] = 3, rd.sort[2] = 7; /* case, dtype, gpu_uuid */
    } else {
        static const char *const key[] = {"plugin", "case", "dtype", "profile", "config", "l2", "launch", "gpu_uuid"};
        for (size_t i = 0; i < sizeof key / sizeof key[0]; i++)
            rd.key[rd.nkey++] = row_column_index(key[i]);
        rd.sort[0] = row_column_index("case");
        rd.sort[1] = row_column_index("dtype");
        rd.sort[2] = row_column_index("gpu_uuid");
    }
    int rc = csv_read_each(path, counters ? on_counters : on_row, &rd, err, errlen);
    if (rc == 0 && !rd.header_seen) {
        snprintf(err, errlen, "%s: empty: no header", path);
        rc = -1;
    }
    free(rd.scratch);
    return rc == 0 ? 0 : rd.oom ? -1 : MERGE_ROWS_REFUSED;
}

int merge_read_rows(rec_set *s, const char *path, const char *from, char *err, size_t errlen)
{
    return read_into(s, path, from, 0, err, errlen);
}

int merge_read_counters(rec_set *s, const char *path, const char *from, char *err, size_t errlen)
{
    return read_into(s, path, from, 1, err, errlen);
}

/* Moves src's records into dst, src's order after dst's: a key dst has with the same text is dropped,
   with other text refused. src is left empty. 0, MERGE_ROWS_REFUSED or -1. */
static int absorb(rec_set *dst, rec_set *src, int counters, char *err, size_t errlen)
{
    int rc = 0;
    size_t i = 0;
    for (; i < src->n && rc == 0; i++) {
        merge_rec *x = &src->r[i];
        if (2 * (dst->n + 1) > dst->nslot && grow_table(dst) != 0) {
            snprintf(err, errlen, "out of memory");
            rc = -1;
            break;
        }
        size_t at = (size_t)x->h & (dst->nslot - 1);
        const merge_rec *same = NULL;
        for (; dst->slot[at]; at = (at + 1) & (dst->nslot - 1)) {
            const merge_rec *r = &dst->r[dst->slot[at] - 1];
            if (r->h == x->h && r->keylen == x->keylen && memcmp(r->key, x->key, x->keylen) == 0) {
                same = r;
                break;
            }
        }
        if (same) {
            if (same->len != x->len || same->ncell != x->ncell || memcmp(same->all, x->all, x->len) != 0) {
                char named[1200];
                key_words(same->key, same->keylen, named, sizeof named);
                snprintf(err, errlen, "the %s [%s] is in %s and in %s with different results",
                         counters ? "counters line" : "row", named, same->from, x->from);
                rc = MERGE_ROWS_REFUSED;
            }
            continue;
        }
        if (dst->n == dst->cap) {
            size_t cap = dst->cap ? 2 * dst->cap : 256;
            merge_rec *p = realloc(dst->r, cap * sizeof *p);
            if (!p) {
                snprintf(err, errlen, "out of memory");
                rc = -1;
                break;
            }
            dst->r = p;
            dst->cap = cap;
        }
        dst->r[dst->n] = *x;
        dst->r[dst->n].order = (long)dst->n;
        dst->slot[at] = ++dst->n;
    }
    /* the text moves with the records (and stays for those dropped, until dst is freed) */
    rec_block **last = &src->text;
    while (*last)
        last = &(*last)->prev;
    *last = dst->text;
    dst->text = src->text;
    src->text = NULL;
    src->n = 0;
    merge_free_set(src);
    return rc;
}

typedef struct read_job {
    char path[4400];
    const char *from;
    int counters, present;
    rec_set set;
    int rc;
    char err[2000];
} read_job;

/* Reads [begin, end) of the runs' files, each into a set of its own: absorbed in the runs' order below. */
static void read_some(void *arg, size_t begin, size_t end)
{
    read_job *jobs = arg;
    for (size_t i = begin; i < end; i++)
        if (jobs[i].present)
            jobs[i].rc = read_into(&jobs[i].set, jobs[i].path, jobs[i].from, jobs[i].counters, jobs[i].err,
                                   sizeof jobs[i].err);
}

int merge_read_all(rec_set *s, const char *const *dirs, int nruns, const char *name, int counters, char *err,
                   size_t errlen)
{
    read_job *jobs = calloc((size_t)nruns, sizeof *jobs);
    if (!jobs) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (int r = 0; r < nruns; r++) {
        read_job *j = &jobs[r];
        struct stat st;
        snprintf(j->path, sizeof j->path, "%s/%s", dirs[r], name);
        j->from = dirs[r];
        j->counters = counters;
        j->present = !(lstat(j->path, &st) != 0 && errno == ENOENT); /* a shard without this plugin's units */
    }
    /* the runs' files read at once on the host's pool (stopped after, so no worker is forked with its
       threads running): parsing and checking them is most of a merge's time */
    parallel_for((size_t)nruns, 1, read_some, jobs);
    parallel_shutdown();
    /* joined in the runs' order: the first refusal in that order is the one said */
    int rc = 0;
    for (int r = 0; r < nruns; r++) {
        read_job *j = &jobs[r];
        if (rc == 0 && j->rc != 0) {
            snprintf(err, errlen, "%s", j->err);
            rc = j->rc;
        }
        if (rc == 0 && j->present)
            rc = absorb(s, &j->set, counters, err, errlen);
        merge_free_set(&j->set);
    }
    free(jobs);
    return rc;
}

static int cmp_rec(const void *pa, const void *pb)
{
    const merge_rec *a = pa, *b = pb;
    for (int i = 0; i < 3; i++) {
        int d = strcmp(a->sort[i] ? a->sort[i] : "", b->sort[i] ? b->sort[i] : "");
        if (d)
            return d;
    }
    return a->order < b->order ? -1 : a->order > b->order;
}

/* One record's line as csv_field writes each cell (quoted where it holds a comma, quote or line break,
   its quotes doubled), built in *buf and written at once: the cell-by-cell stdio calls were two
   fifths of a merge's time. */
static int put_line(FILE *fp, const merge_rec *r, int ncols, char **buf, size_t *cap)
{
    static const unsigned char quote[256] = {[','] = 1, ['"'] = 1, ['\r'] = 1, ['\n'] = 1};
    size_t need = 3 * r->len + 3 * (size_t)ncols + 4; /* each cell doubled and quoted, and its copy */
    if (need > *cap) {
        char *p = realloc(*buf, need);
        if (!p)
            return -1;
        *buf = p;
        *cap = need;
    }
    char *b = *buf;
    size_t o = 0;
    const char *p = r->all;
    for (int k = 0; k < ncols && k < r->ncell; k++) {
        if (k)
            b[o++] = ',';
        /* copied as it is, in one pass that also looks for what needs quotes; redone quoted if so */
        size_t start = o;
        int q = 0;
        for (; *p; p++) {
            q |= quote[(unsigned char)*p];
            b[o++] = *p;
        }
        p++;
        if (q) {
            size_t l = o - start;
            char *cell = b + start + l + 2; /* past the widest quoted form's start: no overlap */
            memmove(cell, b + start, l);
            o = start;
            b[o++] = '"';
            for (size_t i = 0; i < l; i++) {
                if (cell[i] == '"')
                    b[o++] = '"';
                b[o++] = cell[i];
            }
            b[o++] = '"';
        }
    }
    b[o++] = '\n';
    return fwrite(b, 1, o, fp) == o ? 0 : -1;
}

int merge_write_set(rec_set *s, const char *path, const char *const *header, int ncols, char *err, size_t errlen)
{
    if (s->n > 1) /* qsort's pointer may not be NULL, even for nothing to sort */
        qsort(s->r, s->n, sizeof s->r[0], cmp_rec);
    free(s->slot); /* the order moved: the table is stale, and nothing is added after writing */
    s->slot = NULL;
    s->nslot = 0;
    csv_sink sink;
    if (csv_sink_open_with(&sink, path, header, ncols, err, errlen) != 0)
        return -1;
    char *buf = NULL;
    size_t cap = 0;
    for (size_t i = 0; i < s->n; i++) {
        if (put_line(sink.fp, &s->r[i], ncols, &buf, &cap) != 0) {
            snprintf(err, errlen, "cannot write %s: %s", sink.partial, strerror(errno));
            free(buf);
            csv_sink_discard(&sink);
            return -1;
        }
        sink.rows++;
    }
    free(buf);
    return csv_sink_commit(&sink, err, errlen);
}

void merge_free_set(rec_set *s)
{
    for (rec_block *b = s->text, *prev; b; b = prev) {
        prev = b->prev;
        free(b);
    }
    free(s->r);
    free(s->slot);
    memset(s, 0, sizeof *s);
}
