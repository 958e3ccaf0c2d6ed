/* The joins over a run's rows (run_set.h): its counters files' lines to the rows their key names, each
 * row's kernels as a chain, and a row's `vs` row; each through an index sorted once, so that joining
 * or looking up n rows takes O(n log n), not a scan of the run per row. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evidence/counters.h"
#include "evidence/csv_read.h"
#include "evidence/run_set.h"
#include "evidence/run_set_internal.h"
#include "util/checksum.h"
#include "util/decimal.h"
#include "util/strpool.h"

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

/* len: each key's length where the caller knows it (a counters line's cells), else NULL */
static uint64_t key_hash(const char *const *key, const size_t *len)
{
    uint64_t h = CHECKSUM_INIT;
    for (int k = 0; k < COUNTERS_NKEY; k++)
        h = checksum_update(h, key[k], (len ? len[k] : strlen(key[k])) + 1);
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
        ix[i] = (row_key){key_hash(key, NULL), i};
    }
    if (ix && r->nrows > 1)
        qsort(ix, (size_t)r->nrows, sizeof *ix, cmp_row_key);
    return ix;
}

/* The first row (in file order) whose key is the line's first cells, or -1. */
static int find_row(const run_dir *r, const row_key *ix, char *const *cells, const size_t *len)
{
    uint64_t h = key_hash((const char *const *)cells, len);
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

/* The pool's copy of at most max bytes of s (as a char[max + 1] kept them), or NULL out of memory. */
static const char *kept(run_dir *r, const char *s, size_t max)
{
    size_t n = strlen(s);
    return strpool_add(r->text, s, n < max ? n : max);
}

/* A cell of n bytes into dst[size], cut to fit as snprintf("%s") cuts it, without printf's cost on
   each of a million lines */
static void cut_copy(char *dst, size_t size, const char *cell, size_t n)
{
    if (n >= size)
        n = size - 1;
    memcpy(dst, cell, n);
    dst[n] = 0;
}

static int add_kernel(run_dir *r, int row, const counters_cols *cc, char *const *cells, const size_t *len)
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
    if (!(k->name = kept(r, cells[cc->kernel], 199))) {
        r->nkernels--;
        return -1;
    }
    k->row = row;
    k->next = -1;
    run_counters *c = &r->counters[row];
    if (c->nkernels == 0)
        c->first_kernel = at;
    else
        r->kernels[c->last_kernel].next = at;
    c->last_kernel = at;
    cut_copy(k->grid, sizeof k->grid, cells[cc->grid], len[cc->grid]);
    cut_copy(k->block, sizeof k->block, cells[cc->block], len[cc->block]);
    for (int m = 0; m < NCU_NMETRICS; m++) {
        const char *v = cells[cc->metric[m]];
        char *end;
        if (decimal_read(v, &k->v[m]) == 0) /* strtod's value, most of a million lines' metrics */
            k->has[m] = 1;
        else {
            k->v[m] = strtod(v, &end);
            k->has[m] = *v && !*end;
        }
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
    int row = find_row(j->r, j->ix, cells, len);
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
    if (!c->reason[0] && !(c->reason = kept(j->r, reason, 299))) {
        c->reason = "";
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    c->present = 1;
    if (cells[j->cc.index][0] && add_kernel(j->r, row, &j->cc, cells, len) != 0)
        j->lost++;
    return 0;
}

void run_join_counters(run_dir *r, const char *file, char *why, size_t whylen)
{
    char err[1200];
    why[0] = 0;
    if (!r->text && !(r->text = strpool_new())) {
        snprintf(why, whylen, "%s: out of memory", file);
        return;
    }
    if (!r->counters) {
        if (!(r->counters = calloc((size_t)r->nrows + 1, sizeof *r->counters))) {
            snprintf(why, whylen, "%s: out of memory", file);
            return;
        }
        for (int i = 0; i < r->nrows; i++)
            r->counters[i].reason = "";
    }
    row_key *ix = index_rows(r);
    if (!ix) {
        snprintf(why, whylen, "%s: out of memory", file);
        return;
    }
    joining j = {r, ix, {0}, 0, 0, NULL, 0, 0};
    counters_cols_init(&j.cc);
    int nkernels = r->nkernels;
    if (csv_read_each(file, join_line, &j, err, sizeof err) != 0) {
        /* a damaged file joins nothing: the lines read before the damage are undone */
        for (int i = 0; i < j.ntouched; i++)
            r->counters[j.touched[i]] = (run_counters){.reason = ""};
        r->nkernels = nkernels;
        snprintf(why, whylen, "%s: passed over", err);
    } else {
        r->ncounters_files++;
        if (j.lost)
            snprintf(why, whylen, "%s: %d lines name no row of the run (or could not be kept): passed over", file,
                     j.lost);
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
int run_join_siblings(run_dir *r)
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

/* ---- a run's profiles ---- */

int run_join_profiles(run_dir *r)
{
    int cap = 0;
    for (int i = 0; i < r->nrows; i++) {
        const char *p = r->rows[i].profile;
        int seen = i > 0 && strcmp(p, r->rows[i - 1].profile) == 0; /* a CSV's rows come a few profiles over */
        for (int k = 0; k < r->nprofiles && !seen; k++)
            seen = strcmp(p, r->rows[r->profile_first[k]].profile) == 0;
        if (seen)
            continue;
        if (r->nprofiles == cap) {
            cap = cap ? 2 * cap : 8;
            int *f = realloc(r->profile_first, (size_t)cap * sizeof *f);
            if (!f) {
                free(r->profile_first);
                r->profile_first = NULL;
                r->nprofiles = 0;
                return -1;
            }
            r->profile_first = f;
        }
        r->profile_first[r->nprofiles++] = i;
    }
    return 0;
}

const klab_row *run_set_profile_first(const run_dir *r, const char *profile)
{
    if (r->profile_first || r->nrows == 0) {
        for (int k = 0; k < r->nprofiles; k++)
            if (strcmp(r->rows[r->profile_first[k]].profile, profile) == 0)
                return &r->rows[r->profile_first[k]];
        return NULL;
    }
    for (int i = 0; i < r->nrows; i++)
        if (strcmp(r->rows[i].profile, profile) == 0)
            return &r->rows[i];
    return NULL;
}
