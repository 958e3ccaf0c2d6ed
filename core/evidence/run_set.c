#include "evidence/run_set.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "evidence/counters.h"
#include "evidence/csv_read.h"
#include "evidence/run_meta.h"
#include "util/checksum.h"
#include "util/dir_list.h"

static void note(run_set *s, const char *fmt, const char *a, const char *b)
{
    if (s->nnotes < RUN_SET_NOTES)
        snprintf(s->notes[s->nnotes++], sizeof s->notes[0], fmt, a, b);
}

/* ---- the folder ---- */

static run_dir *new_run(run_set *s, const char *path)
{
    if (s->n == s->cap) {
        int c = s->cap ? 2 * s->cap : 8;
        run_dir *p = realloc(s->runs, (size_t)c * sizeof *p);
        if (!p)
            return NULL;
        s->runs = p;
        s->cap = c;
    }
    run_dir *r = &s->runs[s->n];
    memset(r, 0, sizeof *r);
    snprintf(r->path, sizeof r->path, "%s", path);
    return r;
}

/* Appends one CSV's rows to r; a file that is not klab's is a note, not an error. */
static void add_csv(run_set *s, run_dir *r, const char *file)
{
    char err[1200];
    klab_row *rows = NULL;
    int n = csv_read_rows(file, &rows, err, sizeof err);
    if (n < 0) {
        note(s, "%s%s: passed over", err, "");
        return;
    }
    klab_row *all = realloc(r->rows, (size_t)(r->nrows + n + 1) * sizeof *all);
    if (!all) {
        note(s, "%s: out of memory%s", file, "");
        free(rows);
        return;
    }
    if (n)
        memcpy(all + r->nrows, rows, (size_t)n * sizeof *rows);
    r->rows = all;
    r->nrows += n;
    r->ncsv++;
    free(rows);
}

/* ---- counters: <plugin>.counters.csv joined to the rows by their key ---- */

static int counters_column(const char *name)
{
    for (int i = 0; i < COUNTERS_NCOLUMNS; i++)
        if (strcmp(counters_columns[i], name) == 0)
            return i;
    return -1;
}

/* The rows of a run by their counters key (counters.h): hashed and sorted once, so joining n lines
   to n rows takes O(n log n), not a scan of every row per line. */
typedef struct row_key {
    uint64_t h;
    int row;
} row_key;

static uint64_t key_hash(const char *const *key)
{
    uint64_t h = CHECKSUM_INIT;
    for (int k = 0; k < COUNTERS_NKEY; k++)
        h = checksum_update(h, key[k], strlen(key[k]) + 1);
    return h;
}

static int cmp_row_key(const void *a, const void *b)
{
    const row_key *x = a, *y = b;
    return x->h < y->h ? -1 : x->h > y->h ? 1 : x->row - y->row;
}

static row_key *index_rows(const run_dir *r)
{
    row_key *ix = malloc(((size_t)r->nrows + 1) * sizeof *ix);
    for (int i = 0; ix && i < r->nrows; i++) {
        char gpu[16];
        const char *key[COUNTERS_NKEY];
        counters_row_key(&r->rows[i], gpu, key);
        ix[i] = (row_key){key_hash(key), i};
    }
    if (ix && r->nrows > 1)
        qsort(ix, (size_t)r->nrows, sizeof *ix, cmp_row_key);
    return ix;
}

/* The first row (in file order) whose key is the line's first cells, or -1. */
static int find_row(const run_dir *r, const row_key *ix, char *const *cells)
{
    uint64_t h = key_hash((const char *const *)cells);
    size_t lo = 0, hi = (size_t)r->nrows;
    while (lo < hi) { /* the first entry of hash h */
        size_t mid = lo + (hi - lo) / 2;
        if (ix[mid].h < h)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (; lo < (size_t)r->nrows && ix[lo].h == h; lo++) {
        char gpu[16];
        const char *key[COUNTERS_NKEY];
        counters_row_key(&r->rows[ix[lo].row], gpu, key);
        int same = 1;
        for (int k = 0; same && k < COUNTERS_NKEY; k++)
            same = strcmp(key[k], cells[k]) == 0;
        if (same)
            return ix[lo].row;
    }
    return -1;
}

static int add_kernel(run_dir *r, int row, char *const *cells)
{
    if ((r->nkernels & (r->nkernels - 1)) == 0) { /* 0, 1, 2, 4, ...: room doubles */
        run_kernel *p = realloc(r->kernels, (size_t)(r->nkernels ? 2 * r->nkernels : 1) * sizeof *p);
        if (!p)
            return -1;
        r->kernels = p;
    }
    int at = r->nkernels++;
    run_kernel *k = &r->kernels[at];
    memset(k, 0, sizeof *k);
    k->row = row;
    k->next = -1;
    run_counters *c = &r->counters[row];
    if (c->nkernels == 0)
        c->first_kernel = at;
    else
        r->kernels[c->last_kernel].next = at;
    c->last_kernel = at;
    snprintf(k->name, sizeof k->name, "%s", cells[counters_column("kernel")]);
    snprintf(k->grid, sizeof k->grid, "%s", cells[counters_column("grid")]);
    snprintf(k->block, sizeof k->block, "%s", cells[counters_column("block")]);
    for (int m = 0; m < NCU_NMETRICS; m++) {
        const char *v = cells[counters_column(ncu_metrics[m].column)];
        char *end;
        k->v[m] = strtod(v, &end);
        k->has[m] = *v && !*end;
    }
    c->nkernels++;
    return 0;
}

/* One counters file into r: each line to the row its key names. Lines naming no row are a note. */
static void add_counters(run_set *s, run_dir *r, const char *file)
{
    char err[1200];
    csv_records rec;
    if (counters_read(file, &rec, err, sizeof err) != 0) {
        note(s, "%s%s: passed over", err, "");
        return;
    }
    if (!r->counters && !(r->counters = calloc((size_t)r->nrows + 1, sizeof *r->counters))) {
        note(s, "%s: out of memory%s", file, "");
        csv_records_free(&rec);
        return;
    }
    row_key *ix = index_rows(r);
    if (!ix) {
        note(s, "%s: out of memory%s", file, "");
        csv_records_free(&rec);
        return;
    }
    r->ncounters_files++;
    int st = counters_column("status"), why = counters_column("reason"), idx = counters_column("kernel_index");
    const char *measured = ncu_status_name(NCU_MEASURED);
    int lost = 0;
    for (int i = 1; i < rec.n; i++) {
        int row = rec.nf[i] == COUNTERS_NCOLUMNS ? find_row(r, ix, rec.cells[i]) : -1;
        if (row < 0) {
            lost++;
            continue;
        }
        run_counters *c = &r->counters[row];
        const char *status = rec.cells[i][st], *reason = rec.cells[i][why];
        if (!c->present || (strcmp(c->status, measured) != 0 && strcmp(status, measured) == 0))
            snprintf(c->status, sizeof c->status, "%s", status);
        if (!c->reason[0])
            snprintf(c->reason, sizeof c->reason, "%s", reason);
        c->present = 1;
        if (rec.cells[i][idx][0] && add_kernel(r, row, rec.cells[i]) != 0)
            lost++;
    }
    if (lost) {
        char n[32];
        snprintf(n, sizeof n, "%d", lost);
        note(s, "%s: %s lines name no row of the run (or could not be kept): passed over", file, n);
    }
    free(ix);
    csv_records_free(&rec);
}

const run_counters *run_set_counters(const run_dir *r, const klab_row *row)
{
    if (!r->counters || row < r->rows || row >= r->rows + r->nrows)
        return NULL;
    return &r->counters[row - r->rows];
}

int run_set_first_kernel(const run_dir *r, const klab_row *row)
{
    const run_counters *c = run_set_counters(r, row);
    return c && c->nkernels ? c->first_kernel : -1;
}

int run_set_counter_value(const run_dir *r, const klab_row *row, int m, double *v)
{
    int got = 0;
    for (int i = run_set_first_kernel(r, row); i >= 0; i = r->kernels[i].next) {
        const run_kernel *k = &r->kernels[i];
        if (!k->has[m])
            continue;
        if (!got || k->v[m] > *v)
            *v = k->v[m];
        got = 1;
    }
    return got;
}

void run_set_read_meta(run_dir *r, const char *dir)
{
    char path[4200], err[1200];
    snprintf(path, sizeof path, "%s/meta.ini", dir);
    run_meta m;
    struct stat st;
    r->has_meta = stat(path, &st) == 0 && run_meta_read(path, &m, err, sizeof err) == 0;
    if (r->has_meta) {
        snprintf(r->id, sizeof r->id, "%s", m.id);
        snprintf(r->started, sizeof r->started, "%s", m.started);
        snprintf(r->commit, sizeof r->commit, "%s", m.commit);
        snprintf(r->command, sizeof r->command, "%s", m.command);
        snprintf(r->gpu, sizeof r->gpu, "%s", m.gpu);
    }
    if (!r->id[0]) {
        const char *b = strrchr(dir, '/');
        snprintf(r->id, sizeof r->id, "%s", b && b[1] ? b + 1 : dir);
    }
}

/* Two runs of one id (every PyTorch run is "torch") would read as one on a page: the later one is
   named by its parent folder too ("2026-11-22-h200-abi2-timer2/torch"). */
static void unique_id(run_set *s, run_dir *r)
{
    for (int i = 0; i < s->n; i++)
        if (strcmp(s->runs[i].id, r->id) == 0) {
            char dir[4096], id[sizeof r->id];
            snprintf(dir, sizeof dir, "%s", r->path);
            char *slash = strrchr(dir, '/');
            if (r->is_file && slash) /* a CSV: its run is its folder */
                *slash = 0, slash = strrchr(dir, '/');
            if (slash) {
                *slash = 0;
                const char *parent = strrchr(dir, '/');
                snprintf(id, sizeof id, "%.30s/%.30s", parent ? parent + 1 : dir, r->id);
                snprintf(r->id, sizeof r->id, "%s", id);
            }
            return;
        }
}

/* The run new_run began, kept (1) when it read a klab CSV, else dropped (0): the notes say why. */
static int keep_run(run_set *s, run_dir *r)
{
    if (r->ncsv == 0) {
        free(r->rows);
        free(r->counters);
        free(r->kernels);
        return 0;
    }
    unique_id(s, r);
    s->n++;
    return 1;
}

/* A folder of CSVs as one run: 1 when it had any, 0 when none, -1 out of memory. */
static int add_folder(run_set *s, const char *dir)
{
    char **csv;
    int n = dir_list(dir, ".csv", &csv);
    if (n <= 0)
        return 0;
    run_dir *r = new_run(s, dir);
    if (!r) {
        dir_list_free(csv, n);
        return -1;
    }
    run_set_read_meta(r, dir);
    for (int pass = 0; pass < 2; pass++) /* the rows, then the counters joined to them */
        for (int i = 0; i < n; i++) {
            char path[4400];
            snprintf(path, sizeof path, "%s/%s", dir, csv[i]);
            if (counters_is_file(csv[i]) == pass)
                pass ? add_counters(s, r, path) : add_csv(s, r, path);
        }
    dir_list_free(csv, n);
    return keep_run(s, r);
}

int run_set_add(run_set *s, const char *path, char *err, size_t errlen)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    if (S_ISREG(st.st_mode)) {
        run_dir *r = new_run(s, path);
        if (!r) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        r->is_file = 1;
        char dir[4096];
        snprintf(dir, sizeof dir, "%s", path);
        char *slash = strrchr(dir, '/');
        snprintf(slash ? slash : dir, slash ? sizeof dir - (size_t)(slash - dir) : sizeof dir, "%s", slash ? "" : ".");
        run_set_read_meta(r, dir);
        add_csv(s, r, path);
        char ctr[4400]; /* the counters file beside it: x.csv -> x.counters.csv */
        size_t len = strlen(path);
        struct stat cst;
        if (len > 4 && !counters_is_file(path) &&
            snprintf(ctr, sizeof ctr, "%.*s%s", (int)(len - 4), path, COUNTERS_SUFFIX) < (int)sizeof ctr &&
            stat(ctr, &cst) == 0)
            add_counters(s, r, ctr);
        if (!keep_run(s, r)) {
            snprintf(err, errlen, "%s: not a klab CSV", path);
            return -1;
        }
        return 0;
    }
    int got = add_folder(s, path);
    if (got < 0) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    if (got > 0)
        return 0;
    char **subs;
    int n = dir_list(path, NULL, &subs);
    for (int i = 0; i < n && got >= 0; i++) {
        char sub[4400];
        snprintf(sub, sizeof sub, "%s/%s", path, subs[i]);
        int k = add_folder(s, sub);
        got = k < 0 ? -1 : got + k;
    }
    dir_list_free(subs, n > 0 ? n : 0);
    if (got <= 0) {
        snprintf(err, errlen, got < 0 ? "out of memory" : "%s: no klab CSV here or in its folders", path);
        return -1;
    }
    return 0;
}

int run_set_latest(const char *out_dir, char *path, size_t len, char *err, size_t errlen)
{
    char **subs;
    int n = dir_list(out_dir, NULL, &subs);
    if (n < 0) {
        snprintf(err, errlen, "%s: %s: give a run folder (klab report out/RUN_ID)", out_dir, strerror(errno));
        return -1;
    }
    double best = -1;
    int at = -1;
    for (int i = 0; i < n; i++) {
        char meta[4400];
        struct stat st;
        snprintf(meta, sizeof meta, "%s/%s/meta.ini", out_dir, subs[i]);
        if (stat(meta, &st) != 0)
            continue;
        double t = (double)st.st_mtim.tv_sec + 1e-9 * (double)st.st_mtim.tv_nsec;
        if (t >= best) { /* names are sorted: a tie goes to the later name */
            best = t;
            at = i;
        }
    }
    int rc = -1;
    if (at < 0)
        snprintf(err, errlen, "%s: no run folder (one with meta.ini) here: run klab first, or name one", out_dir);
    else if (snprintf(path, len, "%s/%s", out_dir, subs[at]) >= (int)len)
        snprintf(err, errlen, "%s/%s: path too long", out_dir, subs[at]);
    else
        rc = 0;
    dir_list_free(subs, n > 0 ? n : 0);
    return rc;
}

void run_set_free(run_set *s)
{
    for (int i = 0; i < s->n; i++) {
        free(s->runs[i].rows);
        free(s->runs[i].counters);
        free(s->runs[i].kernels);
    }
    free(s->runs);
    memset(s, 0, sizeof *s);
}
