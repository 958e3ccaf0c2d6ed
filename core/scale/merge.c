#include "scale/merge.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "evidence/counters.h"
#include "evidence/csv_sink.h"
#include "evidence/row.h"
#include "evidence/run_meta.h"
#include "scale/merge_rows.h"
#include "util/dir_list.h"
#include "util/file_read.h"
#include "util/text.h"

#define MAX_RUNS 4096
/* OUT's mark: the files a merge wrote there, so a later merge may replace them (and only them) */
#define MERGE_MARK ".klab-merge"
#define META_MAX (1u << 20)        /* meta.ini is read as INI files are: at most 1 MiB */
#define SAMPLES_MAX ((size_t)1 << 30)

_Static_assert(MERGE_ROWS_REFUSED == MERGE_REFUSED, "merge_rows.h's refusal is merge.h's");

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

/* ---- names: a growing list, sorted and unique once complete ---- */

typedef struct names {
    char **v;
    int n, cap;
} names;

static int names_add(names *l, const char *name)
{
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 32;
        char **p = realloc(l->v, (size_t)cap * sizeof *p);
        if (!p)
            return -1;
        l->v = p;
        l->cap = cap;
    }
    if (!(l->v[l->n] = strdup(name)))
        return -1;
    l->n++;
    return 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted, each name once. */
static void names_done(names *l)
{
    if (l->n < 2)
        return;
    qsort(l->v, (size_t)l->n, sizeof *l->v, cmp_str);
    int k = 1;
    for (int i = 1; i < l->n; i++) {
        if (strcmp(l->v[i], l->v[k - 1]) == 0)
            free(l->v[i]);
        else
            l->v[k++] = l->v[i];
    }
    l->n = k;
}

static void names_free(names *l)
{
    for (int i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
    memset(l, 0, sizeof *l);
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* The run folder's row CSVs, counters files and samples folders; a .partial file refuses the run. */
static int scan_run(const char *dir, names *csvs, names *counters, names *samples, char *err, size_t errlen)
{
    DIR *d = opendir(dir);
    if (!d) {
        snprintf(err, errlen, "%s: cannot open: %s", dir, strerror(errno));
        return MERGE_REFUSED;
    }
    struct dirent *e;
    int rc = 0;
    while (rc == 0 && (e = readdir(d))) {
        const char *n = e->d_name;
        if (ends_with(n, ".partial")) {
            snprintf(err, errlen, "%s/%s: the run was interrupted or its files were not completed; merge only whole runs",
                     dir, n);
            rc = MERGE_REFUSED;
        } else if (n[0] != '.' && (counters_is_file(n) || ends_with(n, ".csv") || ends_with(n, ".samples"))) {
            names *l = counters_is_file(n) ? counters : ends_with(n, ".csv") ? csvs : samples;
            if (names_add(l, n) != 0) {
                snprintf(err, errlen, "out of memory");
                rc = -1;
            }
        }
    }
    closedir(d);
    return rc;
}

/* ---- OUT: a new or empty folder, or one a merge made; never one of the runs ---- */

static int same_file(const struct stat *a, const struct stat *b)
{
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* A mark's line is a file a merge wrote: "name" or "name.samples/file", nothing above OUT. */
static int mark_line_ok(const char *l)
{
    const char *slash = strchr(l, '/');
    return *l && *l != '.' && *l != '/' && !strstr(l, "..") && (!slash || (slash[1] && !strchr(slash + 1, '/')));
}

/* Checks OUT; its previous merge's files, when a merge made it, into *old. 0, or MERGE_REFUSED. */
static int check_out(const char *out, const run_info *runs, int nruns, names *old, char *err, size_t errlen)
{
    struct stat so;
    if (stat(out, &so) != 0) {
        if (errno == ENOENT)
            return 0;
        snprintf(err, errlen, "%s: %s", out, strerror(errno));
        return MERGE_REFUSED;
    }
    if (!S_ISDIR(so.st_mode)) {
        snprintf(err, errlen, "%s exists and is not a folder", out);
        return MERGE_REFUSED;
    }
    for (int r = 0; r < nruns; r++) {
        struct stat sr;
        if (stat(runs[r].dir, &sr) == 0 && same_file(&so, &sr)) {
            snprintf(err, errlen, "%s is one of the runs merged: merge never writes into the runs it reads", out);
            return MERGE_REFUSED;
        }
    }
    /* what OUT holds: nothing, or a merge's mark (then a merge made it) */
    DIR *d = opendir(out);
    int others = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        others += strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && strcmp(e->d_name, MERGE_MARK);
    if (d)
        closedir(d);
    char mark[4400], why[600];
    snprintf(mark, sizeof mark, "%s/%s", out, MERGE_MARK);
    size_t len;
    char *text = file_read_whole(mark, META_MAX, &len, why, sizeof why);
    if (!text && others == 0 && errno == ENOENT)
        return 0; /* empty */
    if (!text) {
        snprintf(err, errlen, "%s is not empty and not a run folder klab merge made (no %s): merge writes only "
                 "into a new or empty folder, or one it made", out, MERGE_MARK);
        return MERGE_REFUSED;
    }
    int rc = 0;
    for (char *line = strtok(text, "\n"); line && rc == 0; line = strtok(NULL, "\n")) {
        if (line[0] == '#')
            continue;
        if (!mark_line_ok(line)) {
            snprintf(err, errlen, "%s: '%.200s' is not a file a merge writes", mark, line);
            rc = MERGE_REFUSED;
        } else if (names_add(old, line) != 0) {
            snprintf(err, errlen, "out of memory");
            rc = -1;
        }
    }
    free(text);
    return rc;
}

/* ---- samples: every file of <run>/<plugin>.samples across the runs, once ---- */

typedef struct sample_file {
    char *rel;  /* "<plugin>.samples/<file>" */
    int run;    /* the run it is copied from */
} sample_file;

typedef struct samples {
    sample_file *v;
    int n, cap;
} samples;

static int cmp_sample(const void *a, const void *b)
{
    const sample_file *x = a, *y = b;
    int c = strcmp(x->rel, y->rel);
    return c ? c : x->run - y->run;
}

/* The samples files of folder `dir` in every run: each a regular file within SAMPLES_MAX, and a name
   found in two runs holding the same bytes. 0, MERGE_REFUSED or -1. */
static int check_samples(const run_info *runs, int nruns, const char *dir, samples *out, char *err, size_t errlen)
{
    int first = out->n, rc = 0;
    for (int r = 0; r < nruns && rc == 0; r++) {
        char path[4400];
        snprintf(path, sizeof path, "%s/%s", runs[r].dir, dir);
        char **files;
        int n = dir_list(path, "", &files);
        for (int i = 0; i < n && rc == 0; i++) {
            if (ends_with(files[i], ".partial"))
                continue;
            char rel[600], file[4700];
            snprintf(rel, sizeof rel, "%s/%s", dir, files[i]);
            snprintf(file, sizeof file, "%s/%s", path, files[i]);
            off_t size;
            int fd = file_open_regular(file, &size, err, errlen);
            if (fd < 0 || (unsigned long long)size > SAMPLES_MAX) {
                if (fd >= 0)
                    snprintf(err, errlen, "%s: %lld bytes, over the limit for a samples file", file, (long long)size);
                rc = MERGE_REFUSED;
            }
            if (fd >= 0)
                close(fd);
            if (rc == 0 && out->n == out->cap) {
                int cap = out->cap ? 2 * out->cap : 64;
                sample_file *p = realloc(out->v, (size_t)cap * sizeof *p);
                if (!p)
                    rc = -1;
                else
                    out->v = p, out->cap = cap;
            }
            if (rc == 0 && !(out->v[out->n].rel = strdup(rel)))
                rc = -1;
            if (rc == 0)
                out->v[out->n++].run = r;
            if (rc == -1)
                snprintf(err, errlen, "out of memory");
        }
        dir_list_free(files, n > 0 ? n : 0);
    }
    if (rc != 0)
        return rc;
    /* sorted by name, then run: a name's first run is its source, the others must hold its bytes */
    sample_file *v = out->v + first;
    int n = out->n - first, k = 0, i = 0;
    if (n > 1)
        qsort(v, (size_t)n, sizeof *v, cmp_sample);
    for (; i < n && rc == 0; i++) {
        if (k == 0 || strcmp(v[i].rel, v[k - 1].rel) != 0) {
            v[k++] = v[i];
            continue;
        }
        char pa[4700], pb[4700], why[600] = "";
        snprintf(pa, sizeof pa, "%s/%s", runs[v[k - 1].run].dir, v[k - 1].rel);
        snprintf(pb, sizeof pb, "%s/%s", runs[v[i].run].dir, v[i].rel);
        size_t la = 0, lb = 0;
        char *x = file_read_whole(pa, SAMPLES_MAX, &la, why, sizeof why);
        char *y = x ? file_read_whole(pb, SAMPLES_MAX, &lb, why, sizeof why) : NULL;
        if (!x || !y || la != lb || memcmp(x, y, la) != 0) {
            if (x && y)
                snprintf(err, errlen, "%s and %s differ", pa, pb);
            else
                snprintf(err, errlen, "%s", why);
            rc = MERGE_REFUSED;
        }
        free(x);
        free(y);
        free(v[i].rel);
    }
    for (; i < n; i++) /* refused midway: the names not looked at */
        free(v[i].rel);
    out->n = first + k;
    return rc;
}

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

static int copy_sample(const char *out, const run_info *runs, const sample_file *f, char *err, size_t errlen)
{
    char src[4700], dst[4700], dir[4700];
    snprintf(src, sizeof src, "%s/%s", runs[f->run].dir, f->rel);
    snprintf(dst, sizeof dst, "%s/%s", out, f->rel);
    snprintf(dir, sizeof dir, "%s", dst);
    *strrchr(dir, '/') = 0;
    if (make_dirs(dir) != 0) {
        snprintf(err, errlen, "cannot create %s: %s", dir, strerror(errno));
        return -1;
    }
    size_t len = 0;
    char *data = file_read_whole(src, SAMPLES_MAX, &len, err, errlen);
    if (!data)
        return -1;
    int rc = write_whole(dst, data, len, err, errlen);
    free(data);
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
    char *text = file_read_whole(path, META_MAX, &len, err, errlen);
    if (!text)
        return -1;
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

/* OUT's mark, written before anything else: the files this merge writes. A previous merge's files are
   removed first, so OUT never mixes two merges' evidence. */
static int write_mark(const char *out, const names *old, const names *lists, const samples *sm, char *err,
                      size_t errlen)
{
    for (int i = 0; i < old->n; i++) {
        char path[4400];
        snprintf(path, sizeof path, "%s/%s", out, old->v[i]);
        if (unlink(path) != 0 && errno != ENOENT) {
            snprintf(err, errlen, "cannot remove %s (a previous merge's): %s", path, strerror(errno));
            return -1;
        }
        char *slash = strrchr(path, '/');
        if (strchr(old->v[i], '/') && slash) { /* its samples folder, once empty */
            *slash = 0;
            rmdir(path);
        }
    }
    size_t cap = 256, o = 0;
    for (int l = 0; l < 2; l++)
        for (int i = 0; i < lists[l].n; i++)
            cap += strlen(lists[l].v[i]) + 1;
    for (int i = 0; i < sm->n; i++)
        cap += strlen(sm->v[i].rel) + 1;
    char *buf = malloc(cap);
    if (!buf) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    o += (size_t)snprintf(buf, cap, "# klab merge made this run folder and wrote these files; a later merge into it "
                                    "replaces them\nmeta.ini\n");
    for (int l = 0; l < 2; l++)
        for (int i = 0; i < lists[l].n; i++)
            o += (size_t)snprintf(buf + o, cap - o, "%s\n", lists[l].v[i]);
    for (int i = 0; i < sm->n; i++)
        o += (size_t)snprintf(buf + o, cap - o, "%s\n", sm->v[i].rel);
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", out, MERGE_MARK);
    int rc = write_whole(path, buf, o, err, errlen);
    free(buf);
    return rc;
}

/* ---- the merge ---- */

/* Reads and checks every run: meta.ini, the files' names. 0, MERGE_REFUSED or -1. */
static int read_runs(run_info *runs, const char *const *dirs, int nruns, names *lists, char *err, size_t errlen)
{
    int rc = 0;
    for (int r = 0; r < nruns && rc == 0; r++) {
        runs[r].dir = dirs[r];
        char meta[4400];
        snprintf(meta, sizeof meta, "%s/meta.ini", dirs[r]);
        char why[1200];
        struct stat st;
        if (stat(meta, &st) != 0) {
            snprintf(err, errlen, "%s is not a klab run folder: no meta.ini", dirs[r]);
            rc = MERGE_REFUSED;
        } else if (run_meta_read(meta, &runs[r].m, why, sizeof why) != 0) {
            snprintf(err, errlen, "%s", why);
            rc = MERGE_REFUSED;
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
    for (int l = 0; l < 3; l++)
        names_done(&lists[l]);
    return rc;
}

int merge_runs(const char *out, const char *const *dirs, int nruns, FILE *log, char *err, size_t errlen)
{
    if (nruns < 1 || nruns > MAX_RUNS) {
        snprintf(err, errlen, "merge takes 1 to %d run folders", MAX_RUNS);
        return MERGE_REFUSED;
    }
    run_info *runs = calloc((size_t)nruns, sizeof *runs);
    names lists[3] = {{0}}, old = {0}; /* row CSVs, counters files, samples folders; OUT's previous files */
    samples sm = {0};
    rec_set *sets = NULL;
    int nsets = 0, rc = runs ? 0 : -1;
    if (rc)
        snprintf(err, errlen, "out of memory");
    if (rc == 0)
        rc = read_runs(runs, dirs, nruns, lists, err, errlen);
    if (rc == 0)
        rc = check_out(out, runs, nruns, &old, err, errlen);
    /* everything is read and checked before anything is written: a refusal leaves OUT as it was */
    if (rc == 0) {
        nsets = lists[0].n + lists[1].n;
        if (!(sets = calloc((size_t)(nsets ? nsets : 1), sizeof *sets))) {
            snprintf(err, errlen, "out of memory");
            rc = -1;
        }
    }
    for (int f = 0; f < nsets && rc == 0; f++) {
        int counters = f >= lists[0].n;
        const char *name = counters ? lists[1].v[f - lists[0].n] : lists[0].v[f];
        rc = merge_read_all(&sets[f], dirs, nruns, name, counters, err, errlen);
    }
    for (int i = 0; rc == 0 && i < lists[2].n; i++)
        rc = check_samples(runs, nruns, lists[2].v[i], &sm, err, errlen);
    if (rc == 0 && make_dirs(out) != 0) {
        snprintf(err, errlen, "cannot create %s: %s", out, strerror(errno));
        rc = -1;
    }
    if (rc == 0)
        rc = write_mark(out, &old, lists, &sm, err, errlen);
    size_t rows = 0;
    for (int f = 0; f < nsets && rc == 0; f++) {
        int counters = f >= lists[0].n;
        const char *name = counters ? lists[1].v[f - lists[0].n] : lists[0].v[f];
        char path[4400];
        snprintf(path, sizeof path, "%s/%s", out, name);
        if (counters) {
            rc = merge_write_set(&sets[f], path, counters_columns, COUNTERS_NCOLUMNS, err, errlen);
        } else {
            const char *cols[ROW_NCOLUMNS];
            for (int i = 0; i < ROW_NCOLUMNS; i++)
                cols[i] = row_schema[i].name;
            rc = merge_write_set(&sets[f], path, cols, ROW_NCOLUMNS, err, errlen);
            rows += sets[f].n;
        }
        if (rc == 0 && log)
            text_printf(log, "%s: %zu %s\n", path, sets[f].n, counters ? "counters lines" : "rows");
        merge_free_set(&sets[f]); /* written: its memory can go before the next file's */
    }
    for (int i = 0; rc == 0 && i < sm.n; i++)
        rc = copy_sample(out, runs, &sm.v[i], err, errlen);
    if (rc == 0)
        rc = write_meta(out, runs, nruns, err, errlen);
    if (rc == 0 && log)
        text_printf(log, "merged %d run%s: %zu rows -> %s\n", nruns, nruns == 1 ? "" : "s", rows, out);
    for (int f = 0; f < nsets && sets; f++)
        merge_free_set(&sets[f]);
    free(sets);
    for (int i = 0; i < sm.n; i++)
        free(sm.v[i].rel);
    free(sm.v);
    for (int l = 0; l < 3; l++)
        names_free(&lists[l]);
    names_free(&old);
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
