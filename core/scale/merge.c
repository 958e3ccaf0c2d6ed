#include "scale/merge.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "evidence/counters.h"
#include "evidence/csv_read.h"
#include "evidence/csv_sink.h"
#include "evidence/row.h"
#include "evidence/run_meta.h"
#include "util/text.h"

#define MAX_RUNS 4096
#define MAX_FILES 1024

/* A run folder and what its meta.ini says (run_meta_read): merging must agree on commit, schema, INIs. */
typedef struct run_info {
    const char *dir;
    run_meta m;
} run_info;

static const char *ini_hash_of(const run_info *r, const char *plugin)
{
    for (int i = 0; i < r->m.ninis; i++)
        if (strcmp(r->m.ini_plugin[i], plugin) == 0)
            return r->m.ini_hash[i];
    return NULL;
}

/* The first difference between run a (the first) and run b, as a sentence; 0 when they agree. */
static int differs(const run_info *a, const run_info *b, char *err, size_t errlen)
{
    if (strcmp(a->m.commit, b->m.commit) != 0) {
        snprintf(err, errlen, "the commit differs: %s has %s, %s has %s", a->dir, a->m.commit, b->dir, b->m.commit);
        return 1;
    }
    if (a->m.quick != b->m.quick) {
        /* a smoke pass's few samples beside a full run's would read as one run's evidence */
        snprintf(err, errlen, "%s is a quick run (--quick) and %s is not: merge quick runs only with quick runs",
                 a->m.quick ? a->dir : b->dir, a->m.quick ? b->dir : a->dir);
        return 1;
    }
    if (strcmp(a->m.csv_schema, b->m.csv_schema) != 0) {
        snprintf(err, errlen, "the CSV schema differs: %s has %s, %s has %s", a->dir, a->m.csv_schema, b->dir,
                 b->m.csv_schema);
        return 1;
    }
    for (int pass = 0; pass < 2; pass++) {
        const run_info *x = pass ? b : a, *y = pass ? a : b;
        for (int i = 0; i < x->m.ninis; i++) {
            const char *h = ini_hash_of(y, x->m.ini_plugin[i]);
            if (!h) {
                snprintf(err, errlen, "the INIs differ: %s ran %s's INI, %s did not", x->dir, x->m.ini_plugin[i], y->dir);
                return 1;
            }
            if (strcmp(h, x->m.ini_hash[i]) != 0) {
                snprintf(err, errlen,
                         "the INIs differ: %s's INI has hash %s in %s and %s in %s (see [ini_paths] in each meta.ini)",
                         x->m.ini_plugin[i], a == x ? x->m.ini_hash[i] : h, a->dir, a == x ? h : x->m.ini_hash[i],
                         b->dir);
                return 1;
            }
        }
    }
    return 0;
}

/* ---- the files of the runs ---- */

typedef struct name_list {
    int n;
    char name[MAX_FILES][256];
} name_list;

static void add_name(name_list *l, const char *name)
{
    for (int i = 0; i < l->n; i++)
        if (strcmp(l->name[i], name) == 0)
            return;
    if (l->n < MAX_FILES)
        snprintf(l->name[l->n++], sizeof l->name[0], "%s", name);
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* The run folder's row CSVs, counters files and samples folders; a .partial file refuses the run. */
static int scan_run(const char *dir, name_list *csvs, name_list *counters, name_list *samples, char *err,
                    size_t errlen)
{
    DIR *d = opendir(dir);
    if (!d) {
        snprintf(err, errlen, "%s: cannot open: %s", dir, strerror(errno));
        return -1;
    }
    struct dirent *e;
    int rc = 0;
    while ((e = readdir(d))) {
        const char *n = e->d_name;
        if (ends_with(n, ".partial")) {
            snprintf(err, errlen, "%s/%s: the run was interrupted or its files were not completed; merge only whole runs",
                     dir, n);
            rc = MERGE_REFUSED;
            break;
        }
        if (counters_is_file(n))
            add_name(counters, n);
        else if (ends_with(n, ".csv"))
            add_name(csvs, n);
        else if (ends_with(n, ".samples"))
            add_name(samples, n);
    }
    closedir(d);
    return rc;
}

/* ---- rows ---- */

typedef struct text_rec {
    char **cell; /* ncell strings */
    int ncell;
    char *key, *all;
    const char *from;
    int order;
} text_rec;

typedef struct rec_set {
    int n, cap;
    text_rec *r;
} rec_set;

static char *join(char *const *cells, int n)
{
    size_t len = 1;
    for (int i = 0; i < n; i++)
        len += strlen(cells[i]) + 1;
    char *s = malloc(len);
    if (!s)
        return NULL;
    s[0] = 0;
    size_t o = 0;
    for (int i = 0; i < n; i++)
        o += (size_t)sprintf(s + o, "%s\x1f", cells[i]);
    return s;
}

/* Adds a record unless an identical one is there; MERGE_REFUSED when its key is there with other text. */
static int add_rec(rec_set *s, char **cells, int n, const int *key_cols, int nkey, const char *from, const char *what,
                   char *err, size_t errlen)
{
    char *kc[16];
    for (int i = 0; i < nkey; i++)
        kc[i] = key_cols[i] < n ? cells[key_cols[i]] : "";
    char *key = join(kc, nkey), *all = join(cells, n);
    if (!key || !all) {
        free(key);
        free(all);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (int i = 0; i < s->n; i++) {
        if (strcmp(s->r[i].key, key) != 0)
            continue;
        int same = strcmp(s->r[i].all, all) == 0;
        if (!same) {
            char named[1200] = ""; /* the key's non-empty cells */
            for (int k = 0; k < nkey; k++)
                if (*kc[k])
                    snprintf(named + strlen(named), sizeof named - strlen(named), "%s%s", named[0] ? " " : "", kc[k]);
            snprintf(err, errlen, "%s: the %s [%s] is in %s and in %s with different results", what,
                     nkey > 8 ? "counters line" : "row", named, s->r[i].from, from);
        }
        free(key);
        free(all);
        for (int k = 0; k < n; k++)
            free(cells[k]);
        free(cells);
        return same ? 0 : MERGE_REFUSED;
    }
    if (s->n == s->cap) {
        int cap = s->cap ? 2 * s->cap : 256;
        text_rec *p = realloc(s->r, (size_t)cap * sizeof *p);
        if (!p) {
            free(key);
            free(all);
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        s->r = p;
        s->cap = cap;
    }
    s->r[s->n] = (text_rec){cells, n, key, all, from, s->n};
    s->n++;
    return 0;
}

static void free_set(rec_set *s)
{
    for (int i = 0; i < s->n; i++) {
        for (int k = 0; k < s->r[i].ncell; k++)
            free(s->r[i].cell[k]);
        free(s->r[i].cell);
        free(s->r[i].key);
        free(s->r[i].all);
    }
    free(s->r);
    memset(s, 0, sizeof *s);
}

/* The order of the merged file: (case, dtype, GPU), then as found. */
static int sort_cols[3];
static int cmp_rec(const void *pa, const void *pb)
{
    const text_rec *a = pa, *b = pb;
    for (int i = 0; i < 3; i++) {
        int c = sort_cols[i];
        int d = strcmp(c < a->ncell ? a->cell[c] : "", c < b->ncell ? b->cell[c] : "");
        if (d)
            return d;
    }
    return a->order - b->order;
}

static char **dup_cells(const klab_row *r)
{
    char **c = calloc(ROW_NCOLUMNS, sizeof *c);
    for (int i = 0; c && i < ROW_NCOLUMNS; i++) {
        char buf[1024];
        row_cell(r, i, buf, sizeof buf);
        if (!(c[i] = strdup(buf))) {
            for (int k = 0; k < i; k++)
                free(c[k]);
            free(c);
            return NULL;
        }
    }
    return c;
}

static int read_rows(rec_set *set, const char *path, const char *from, char *err, size_t errlen)
{
    static const char *const key[] = {"plugin", "case", "dtype", "profile", "config", "l2", "launch", "gpu_uuid"};
    int kc[8];
    for (int i = 0; i < 8; i++)
        kc[i] = row_column_index(key[i]);
    klab_row *rows = NULL;
    int n = csv_read_rows(path, &rows, err, errlen);
    if (n < 0)
        return -1;
    int rc = 0;
    for (int i = 0; i < n && rc == 0; i++) {
        char **cells = dup_cells(&rows[i]);
        if (!cells) {
            snprintf(err, errlen, "out of memory");
            rc = -1;
            break;
        }
        rc = add_rec(set, cells, ROW_NCOLUMNS, kc, 8, from, path, err, errlen);
    }
    free(rows);
    return rc;
}

static int read_counters(rec_set *set, const char *path, const char *from, char *err, size_t errlen)
{
    csv_records rec;
    int got = counters_read(path, &rec, err, errlen);
    if (got != 0)
        return got == -2 ? MERGE_REFUSED : -1;
    int kc[COUNTERS_NKEY + 1];
    for (int i = 0; i < COUNTERS_NKEY; i++)
        kc[i] = i;
    kc[COUNTERS_NKEY] = csv_records_column(&rec, "kernel_index");
    int rc = 0;
    for (int i = 1; i < rec.n && rc == 0; i++) {
        rc = add_rec(set, rec.cells[i], rec.nf[i], kc, COUNTERS_NKEY + 1, from, path, err, errlen);
        rec.cells[i] = NULL; /* the set owns (or has freed) the cells */
        rec.nf[i] = 0;
    }
    csv_records_free(&rec);
    return rc;
}

static int write_set(rec_set *set, const char *path, const char *const *header, int ncols, char *err, size_t errlen)
{
    qsort(set->r, (size_t)set->n, sizeof set->r[0], cmp_rec);
    csv_sink s;
    if (csv_sink_open_with(&s, path, header, ncols, err, errlen) != 0)
        return -1;
    for (int i = 0; i < set->n; i++)
        if (csv_sink_record(&s, (const char *const *)set->r[i].cell, set->r[i].ncell) != 0) {
            snprintf(err, errlen, "cannot write %s: %s", s.partial, strerror(errno));
            csv_sink_discard(&s);
            return -1;
        }
    return csv_sink_commit(&s, err, errlen);
}

/* ---- samples and meta.ini ---- */

static int write_whole(const char *path, const char *data, size_t len, char *err, size_t errlen)
{
    char tmp[4400];
    snprintf(tmp, sizeof tmp, "%s.partial", path);
    FILE *fp = fopen(tmp, "wb");
    if (fp)
        fwrite(data, 1, len, fp); /* a short write leaves the stream's error flag, which file_commit reads */
    if (!fp || file_commit(fp, tmp, path) != 0) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        unlink(tmp);
        return -1;
    }
    return 0;
}

/* Every file of <run>/<dir> across the runs, once; the same name with other bytes is refused. With
   write set, copies them into <out>/<dir>. */
static int merge_samples(const char *out, const run_info *runs, int nruns, const char *dir, int write, char *err,
                         size_t errlen)
{
    name_list *seen = calloc(1, sizeof *seen);
    int *from = calloc(MAX_FILES, sizeof *from);
    if (!seen || !from) {
        free(seen);
        free(from);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    int rc = 0;
    for (int r = 0; r < nruns && rc == 0; r++) {
        char path[4400];
        snprintf(path, sizeof path, "%s/%s", runs[r].dir, dir);
        DIR *d = opendir(path);
        struct dirent *e;
        while (d && rc == 0 && (e = readdir(d))) {
            if (e->d_name[0] == '.' || ends_with(e->d_name, ".partial"))
                continue;
            int at = -1;
            for (int i = 0; i < seen->n; i++)
                if (strcmp(seen->name[i], e->d_name) == 0)
                    at = i;
            if (at < 0) {
                from[seen->n] = r;
                add_name(seen, e->d_name);
                continue;
            }
            char pa[4700], pb[4700];
            snprintf(pa, sizeof pa, "%s/%s/%s", runs[from[at]].dir, dir, e->d_name);
            snprintf(pb, sizeof pb, "%s/%s", path, e->d_name);
            size_t la = 0, lb = 0;
            char *a = file_read_all(pa, &la), *b = file_read_all(pb, &lb);
            if (!a || !b || la != lb || memcmp(a, b, la) != 0) {
                snprintf(err, errlen, "%s and %s differ", pa, pb);
                rc = MERGE_REFUSED;
            }
            free(a);
            free(b);
        }
        if (d)
            closedir(d);
    }
    if (rc == 0 && write && seen->n) {
        char od[4400];
        snprintf(od, sizeof od, "%s/%s", out, dir);
        if (make_dirs(od) != 0) {
            snprintf(err, errlen, "cannot create %s: %s", od, strerror(errno));
            rc = -1;
        }
        for (int i = 0; i < seen->n && rc == 0; i++) {
            char src[4700], dst[4700];
            snprintf(src, sizeof src, "%s/%s/%s", runs[from[i]].dir, dir, seen->name[i]);
            snprintf(dst, sizeof dst, "%s/%s", od, seen->name[i]);
            size_t len = 0;
            char *data = file_read_all(src, &len);
            if (!data) {
                snprintf(err, errlen, "cannot read %s: %s", src, strerror(errno));
                rc = -1;
            } else {
                rc = write_whole(dst, data, len, err, errlen);
            }
            free(data);
        }
    }
    free(seen);
    free(from);
    return rc;
}

/* The first run's meta.ini without any [merge] or [phases] section of its own, then this merge's
   sources. [phases] is dropped, not summed: a merged folder may be merged again with its sources,
   which would count their time twice, and the first run's alone would pass for all of them; each
   source's meta.ini keeps its own (klab --devices, which times the whole run, writes the merged
   folder's: devices.c). */
static int write_meta(const char *out, const run_info *runs, int nruns, char *err, size_t errlen)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/meta.ini", runs[0].dir);
    size_t len = 0;
    char *text = file_read_all(path, &len);
    if (!text) {
        snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
        return -1;
    }
    size_t cap = len + 512 + (size_t)nruns * 5000, o = 0;
    char *buf = malloc(cap);
    if (!buf) {
        free(text);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    int skip = 0;
    for (char *line = text, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        size_t n = next ? (size_t)(++next - line) : strlen(line);
        if (line[0] == '[')
            skip = strncmp(line, "[merge]", 7) == 0 || strncmp(line, "[phases]", 8) == 0;
        if (!skip) {
            memcpy(buf + o, line, n);
            o += n;
        }
    }
    free(text);
    while (o && buf[o - 1] == '\n') /* the blank line that stood before a dropped section */
        o--;
    if (o)
        buf[o++] = '\n';
    o += (size_t)snprintf(buf + o, cap - o, "\n[merge]\n; klab merge: the rows of these runs; each row names its GPU\n"
                                           "runs = %d\n", nruns);
    for (int r = 0; r < nruns; r++)
        o += (size_t)snprintf(buf + o, cap - o, "source.%d = %s\nsource.%d.id = %s\nsource.%d.gpu = %s %s\n", r,
                              runs[r].dir, r, runs[r].m.id, r, runs[r].m.gpu, runs[r].m.uuid);
    snprintf(path, sizeof path, "%s/meta.ini", out);
    int rc = write_whole(path, buf, o, err, errlen);
    free(buf);
    return rc;
}

/* ---- the merge ---- */

int merge_runs(const char *out, const char *const *dirs, int nruns, FILE *log, char *err, size_t errlen)
{
    if (nruns < 1 || nruns > MAX_RUNS) {
        snprintf(err, errlen, "merge takes 1 to %d run folders", MAX_RUNS);
        return -1;
    }
    run_info *runs = calloc((size_t)nruns, sizeof *runs);
    name_list *lists = calloc(3, sizeof *lists); /* row CSVs, counters files, samples folders */
    int rc = runs && lists ? 0 : -1;
    if (rc)
        snprintf(err, errlen, "out of memory");
    for (int r = 0; r < nruns && rc == 0; r++) {
        runs[r].dir = dirs[r];
        char meta[4400];
        snprintf(meta, sizeof meta, "%s/meta.ini", dirs[r]);
        char why[1200];
        if (access(meta, F_OK) != 0) {
            snprintf(err, errlen, "%s is not a klab run folder: no meta.ini", dirs[r]);
            rc = MERGE_REFUSED;
        } else if (run_meta_read(meta, &runs[r].m, why, sizeof why) != 0) {
            snprintf(err, errlen, "%s", why);
            rc = -1;
        } else if (!runs[r].m.commit[0] || !runs[r].m.csv_schema[0]) {
            snprintf(err, errlen, "%s is not a klab run folder: meta.ini has no commit or csv_schema", dirs[r]);
            rc = MERGE_REFUSED;
        } else if (atoi(runs[r].m.csv_schema) != ROW_SCHEMA) {
            snprintf(err, errlen, "%s has CSV schema %s; this klab merges schema %d", dirs[r], runs[r].m.csv_schema,
                     ROW_SCHEMA);
            rc = MERGE_REFUSED;
        } else if (r > 0 && differs(&runs[0], &runs[r], err, errlen)) {
            rc = MERGE_REFUSED;
        } else {
            rc = scan_run(dirs[r], &lists[0], &lists[1], &lists[2], err, errlen);
        }
    }
    /* everything is read and checked before anything is written: a refusal leaves OUT as it was */
    int nsets = rc == 0 ? lists[0].n + lists[1].n : 0;
    rec_set *sets = calloc((size_t)(nsets ? nsets : 1), sizeof *sets);
    if (!sets && rc == 0) {
        snprintf(err, errlen, "out of memory");
        rc = -1;
    }
    for (int f = 0; f < nsets && rc == 0; f++) {
        int counters = f >= lists[0].n;
        const char *name = counters ? lists[1].name[f - lists[0].n] : lists[0].name[f];
        for (int r = 0; r < nruns && rc == 0; r++) {
            char path[4400];
            snprintf(path, sizeof path, "%s/%s", dirs[r], name);
            if (access(path, F_OK) != 0)
                continue; /* a shard without this plugin's units */
            rc = counters ? read_counters(&sets[f], path, dirs[r], err, errlen)
                          : read_rows(&sets[f], path, dirs[r], err, errlen);
        }
    }
    for (int i = 0; i < (rc == 0 ? lists[2].n : 0) && rc == 0; i++)
        rc = merge_samples(out, runs, nruns, lists[2].name[i], 0, err, errlen);
    if (rc == 0 && make_dirs(out) != 0) {
        snprintf(err, errlen, "cannot create %s: %s", out, strerror(errno));
        rc = -1;
    }
    int rows = 0;
    for (int f = 0; f < nsets && rc == 0; f++) {
        int counters = f >= lists[0].n;
        const char *name = counters ? lists[1].name[f - lists[0].n] : lists[0].name[f];
        char path[4400];
        snprintf(path, sizeof path, "%s/%s", out, name);
        if (counters) {
            sort_cols[0] = 2, sort_cols[1] = 3, sort_cols[2] = 7; /* case, dtype, gpu_uuid */
            rc = write_set(&sets[f], path, counters_columns, COUNTERS_NCOLUMNS, err, errlen);
        } else {
            const char *names[ROW_NCOLUMNS];
            for (int i = 0; i < ROW_NCOLUMNS; i++)
                names[i] = row_schema[i].name;
            sort_cols[0] = row_column_index("case"), sort_cols[1] = row_column_index("dtype");
            sort_cols[2] = row_column_index("gpu_uuid");
            rc = write_set(&sets[f], path, names, ROW_NCOLUMNS, err, errlen);
            rows += sets[f].n;
        }
        if (rc == 0 && log)
            text_printf(log, "%s: %d %s\n", path, sets[f].n, counters ? "counters lines" : "rows");
    }
    for (int i = 0; i < (rc == 0 ? lists[2].n : 0) && rc == 0; i++)
        rc = merge_samples(out, runs, nruns, lists[2].name[i], 1, err, errlen);
    if (rc == 0)
        rc = write_meta(out, runs, nruns, err, errlen);
    if (rc == 0 && log)
        text_printf(log, "merged %d run%s: %d rows -> %s\n", nruns, nruns == 1 ? "" : "s", rows, out);
    for (int f = 0; f < nsets && sets; f++)
        free_set(&sets[f]);
    free(sets);
    free(lists);
    free(runs);
    return rc;
}

int merge_main(char *const *args, int nargs)
{
    char err[2000];
    int rc = merge_runs(args[0], (const char *const *)args + 1, nargs - 1, stdout, err, sizeof err);
    if (rc == 0)
        return EXIT_OK;
    text_printf(stderr, "klab: merge %s: %s\n", rc == MERGE_REFUSED ? "refused, nothing written" : "failed", err);
    return rc == MERGE_REFUSED ? EXIT_USAGE : EXIT_FAILED_ROWS;
}
