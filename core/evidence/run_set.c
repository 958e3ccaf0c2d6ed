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

/* Records the file in r->files: its rows from `first`, or why it has none. */
static void add_file(run_dir *r, const char *file, int first, int n, const char *err)
{
    run_file *f = realloc(r->files, (size_t)(r->nfiles + 1) * sizeof *f);
    if (!f)
        return; /* the rows stay; only the table of this file is not printed */
    r->files = f;
    f = &r->files[r->nfiles++];
    snprintf(f->path, sizeof f->path, "%s", file);
    f->first = first;
    f->n = n;
    f->err = err ? strdup(err) : NULL;
}

/* Appends one CSV's rows to r; a file that is not klab's is a note, not an error. */
static void add_csv(run_set *s, run_dir *r, const char *file)
{
    char err[1200];
    klab_row *rows = NULL;
    int n = csv_read_rows(file, &rows, err, sizeof err);
    if (n < 0) {
        note(s, "%s%s: passed over", err, "");
        add_file(r, file, r->nrows, 0, err);
        return;
    }
    if (n > 0 && r->nrows == 0) { /* the first file's array becomes the run's: no copy of a large run */
        free(r->rows);
        r->rows = rows;
        rows = NULL;
    } else if (n > 0) {
        klab_row *all = realloc(r->rows, (size_t)(r->nrows + n + 1) * sizeof *all);
        if (!all) {
            note(s, "%s: out of memory%s", file, "");
            add_file(r, file, r->nrows, 0, "out of memory");
            free(rows);
            return;
        }
        memcpy(all + r->nrows, rows, (size_t)n * sizeof *rows);
        r->rows = all;
    }
    free(rows);
    add_file(r, file, r->nrows, n, NULL);
    r->nrows += n;
    r->ncsv++;
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

/* The counters file's columns, looked up once (a lookup by name per line was most of a join) */
typedef struct counters_cols {
    int kernel, grid, block, status, reason, index;
    int metric[NCU_NMETRICS];
} counters_cols;

static void counters_cols_init(counters_cols *c)
{
    c->kernel = counters_column("kernel");
    c->grid = counters_column("grid");
    c->block = counters_column("block");
    c->status = counters_column("status");
    c->reason = counters_column("reason");
    c->index = counters_column("kernel_index");
    for (int m = 0; m < NCU_NMETRICS; m++)
        c->metric[m] = counters_column(ncu_metrics[m].column);
}

static int add_kernel(run_dir *r, int row, const counters_cols *cc, char *const *cells)
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
    snprintf(k->name, sizeof k->name, "%s", cells[cc->kernel]);
    snprintf(k->grid, sizeof k->grid, "%s", cells[cc->grid]);
    snprintf(k->block, sizeof k->block, "%s", cells[cc->block]);
    for (int m = 0; m < NCU_NMETRICS; m++) {
        const char *v = cells[cc->metric[m]];
        char *end;
        k->v[m] = strtod(v, &end);
        k->has[m] = *v && !*end;
    }
    c->nkernels++;
    return 0;
}

/* A counters file being joined to a run's rows, a line at a time (csv_read_each) */
typedef struct joining {
    run_dir *r;
    const row_key *ix;
    counters_cols cc;
    int header_seen;
    int lost;
    int *touched;     /* the rows this file joined, to undo when the file turns out damaged */
    int ntouched, cap;
} joining;

static int join_line(void *user, char *const *cells, const size_t *len, int n, long line, char *err, size_t errlen)
{
    joining *j = user;
    (void)len;
    (void)line;
    if (!j->header_seen) {
        int ok = n == COUNTERS_NCOLUMNS;
        for (int i = 0; ok && i < n; i++)
            ok = strcmp(cells[i], counters_columns[i]) == 0;
        if (!ok) {
            snprintf(err, errlen, "not the counters columns this klab writes");
            return CSV_NOT_THIS_KIND;
        }
        j->header_seen = 1;
        return 0;
    }
    if (n != COUNTERS_NCOLUMNS) {
        snprintf(err, errlen, "%d cells, but the header has %d", n, COUNTERS_NCOLUMNS);
        return -1;
    }
    int row = find_row(j->r, j->ix, cells);
    if (row < 0) {
        j->lost++;
        return 0;
    }
    run_counters *c = &j->r->counters[row];
    if (!c->present) {
        if (j->ntouched == j->cap) {
            int cap = j->cap ? 2 * j->cap : 256;
            int *p = realloc(j->touched, (size_t)cap * sizeof *p);
            if (!p) {
                snprintf(err, errlen, "out of memory");
                return -1;
            }
            j->touched = p;
            j->cap = cap;
        }
        j->touched[j->ntouched++] = row;
    }
    const char *status = cells[j->cc.status], *reason = cells[j->cc.reason];
    const char *measured = ncu_status_name(NCU_MEASURED);
    if (!c->present || (strcmp(c->status, measured) != 0 && strcmp(status, measured) == 0))
        snprintf(c->status, sizeof c->status, "%s", status);
    if (!c->reason[0])
        snprintf(c->reason, sizeof c->reason, "%s", reason);
    c->present = 1;
    if (cells[j->cc.index][0] && add_kernel(j->r, row, &j->cc, cells) != 0)
        j->lost++;
    return 0;
}

/* One counters file into r: each line to the row its key names. Lines naming no row are a note; a
   file the reader refuses is passed over whole, with its reason. */
static void add_counters(run_set *s, run_dir *r, const char *file)
{
    char err[1200];
    if (!r->counters && !(r->counters = calloc((size_t)r->nrows + 1, sizeof *r->counters))) {
        note(s, "%s: out of memory%s", file, "");
        return;
    }
    row_key *ix = index_rows(r);
    if (!ix) {
        note(s, "%s: out of memory%s", file, "");
        return;
    }
    joining j = {r, ix, {0}, 0, 0, NULL, 0, 0};
    counters_cols_init(&j.cc);
    int nkernels = r->nkernels;
    if (csv_read_each(file, join_line, &j, err, sizeof err) != 0) {
        /* a damaged file joins nothing: the lines read before the damage are undone */
        for (int i = 0; i < j.ntouched; i++)
            memset(&r->counters[j.touched[i]], 0, sizeof r->counters[0]);
        r->nkernels = nkernels;
        note(s, "%s%s: passed over", err, "");
    } else {
        r->ncounters_files++;
        if (j.lost) {
            char n[32];
            snprintf(n, sizeof n, "%d", j.lost);
            note(s, "%s: %s lines name no row of the run (or could not be kept): passed over", file, n);
        }
    }
    free(j.touched);
    free(ix);
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

/* ---- a run's rows by what they measured (run_set_vs) ---- */

typedef struct run_sibling {
    uint64_t h;
    int row;
} run_sibling;

static uint64_t sibling_hash(const klab_row *r, const char *profile)
{
    const char *f[] = {r->run_id, r->plugin, r->kcase, r->dtype, r->l2, profile};
    uint64_t h = CHECKSUM_INIT;
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
        h = checksum_update(h, f[i], strlen(f[i]) + 1);
    return h;
}

static int cmp_sibling(const void *a, const void *b)
{
    const run_sibling *x = a, *y = b;
    return x->h < y->h ? -1 : x->h > y->h ? 1 : x->row - y->row;
}

/* 0, or -1 out of memory (run_set_vs then finds nothing: the claims say no row beside it) */
static int index_siblings(run_dir *r)
{
    r->sib = malloc(((size_t)r->nrows + 1) * sizeof *r->sib);
    if (!r->sib)
        return -1;
    for (int i = 0; i < r->nrows; i++)
        r->sib[i] = (run_sibling){sibling_hash(&r->rows[i], r->rows[i].profile), i};
    if (r->nrows > 1)
        qsort(r->sib, (size_t)r->nrows, sizeof *r->sib, cmp_sibling);
    return 0;
}

const klab_row *run_set_vs(const run_dir *r, const klab_row *like, const char *profile)
{
    if (!r->sib)
        return NULL;
    uint64_t h = sibling_hash(like, profile);
    size_t lo = 0, hi = (size_t)r->nrows;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (r->sib[mid].h < h)
            lo = mid + 1;
        else
            hi = mid;
    }
    const klab_row *best = NULL;
    for (; lo < (size_t)r->nrows && r->sib[lo].h == h; lo++) { /* in file order */
        const klab_row *o = &r->rows[r->sib[lo].row];
        if (strcmp(o->profile, profile) || strcmp(o->plugin, like->plugin) || strcmp(o->kcase, like->kcase) ||
            strcmp(o->dtype, like->dtype) || strcmp(o->l2, like->l2) || strcmp(o->run_id, like->run_id))
            continue;
        if (!best || (strcmp(o->launch, like->launch) == 0 && strcmp(best->launch, like->launch) != 0))
            best = o;
    }
    return best;
}

static void free_run(run_dir *r)
{
    free(r->rows);
    free(r->counters);
    free(r->kernels);
    free(r->sib);
    for (int i = 0; i < r->nfiles; i++)
        free(r->files[i].err);
    free(r->files);
}

/* The run new_run began, kept (1) when it read a klab CSV, else dropped (0): the notes say why. */
static int keep_run(run_set *s, run_dir *r)
{
    if (r->ncsv == 0) {
        free_run(r);
        return 0;
    }
    if (index_siblings(r) != 0)
        note(s, "%s: out of memory%s: claims find no row beside another", r->path, "");
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
    for (int i = 0; i < s->n; i++)
        free_run(&s->runs[i]);
    free(s->runs);
    memset(s, 0, sizeof *s);
}
