#include "evidence/run_set.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "evidence/counters.h"
#include "evidence/csv_read.h"
#include "evidence/run_meta.h"
#include "evidence/run_set_internal.h"
#include "host/parallel.h"
#include "util/checksum.h"
#include "util/dir_list.h"
#include "util/strpool.h"

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

/* One counters file into r (run_join.c); what it passed over is a note. */
static void add_counters(run_set *s, run_dir *r, const char *file)
{
    char why[1400];
    run_join_counters(r, file, why, sizeof why);
    if (why[0])
        note(s, "%s%s", why, "");
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
   named by its parent folder too ("2026-11-22-h200-abi2-timer2/torch"), and where that is taken as
   well (six runs/torch of six archives), by its date and commit ("runs/torch 2026-11-22T10:00Z
   a1b2c3d"), and last by its place in the set ("runs/torch #3"). */
static int id_taken(const run_set *s, const char *id)
{
    for (int i = 0; i < s->n; i++)
        if (strcmp(s->runs[i].id, id) == 0)
            return 1;
    return 0;
}

static void unique_id(run_set *s, run_dir *r)
{
    if (!id_taken(s, r->id))
        return;
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
    if (id_taken(s, r->id) && (r->started[0] || r->commit[0])) {
        snprintf(id, sizeof id, "%.24s %.20s %.7s", r->id, r->started, r->commit);
        snprintf(r->id, sizeof r->id, "%s", id);
    }
    for (int k = 2; id_taken(s, r->id); k++) {
        snprintf(id, sizeof id, "%.50s #%d", r->id, k);
        snprintf(r->id, sizeof r->id, "%s", id);
    }
}

static void free_run(run_dir *r)
{
    free(r->rows);
    free(r->counters);
    free(r->kernels);
    free(r->sib);
    free(r->profile_first);
    strpool_free(r->text);
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
    if (run_join_siblings(r) != 0)
        note(s, "%s: out of memory%s: claims find no row beside another", r->path, "");
    run_join_profiles(r); /* without it, run_set_profile_first scans the rows */
    if (!s->defer_ids)
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

/* The runs in the folders under dir, at any depth to `depth` levels: a folder with CSVs is a run (its
   subfolders are its own: report/, *.samples/), one without is looked into. How many runs, or -1 out
   of memory. */
static int add_tree(run_set *s, const char *dir, int depth)
{
    char **subs;
    int n = dir_list(dir, NULL, &subs), got = 0;
    for (int i = 0; i < n && got >= 0; i++) {
        char sub[4400];
        struct stat st;
        snprintf(sub, sizeof sub, "%s/%s", dir, subs[i]);
        if (stat(sub, &st) != 0 || !S_ISDIR(st.st_mode))
            continue;
        int k = add_folder(s, sub);
        if (k == 0 && depth > 1)
            k = add_tree(s, sub, depth - 1);
        got = k < 0 ? -1 : got + k;
    }
    dir_list_free(subs, n > 0 ? n : 0);
    return got;
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
    got = add_tree(s, path, RUN_SET_DEPTH);
    if (got <= 0) {
        snprintf(err, errlen, got < 0 ? "out of memory" : "%s: no klab CSV here or in its folders", path);
        return -1;
    }
    return 0;
}

typedef struct add_job {
    const char *path;
    run_set set;
    int rc;
    char err[1200];
} add_job;

/* Runs [begin, end) of the jobs: each a path read into a set of its own, joined in order below. */
static void add_some(void *arg, size_t begin, size_t end)
{
    add_job *jobs = arg;
    for (size_t i = begin; i < end; i++) {
        jobs[i].set.defer_ids = 1;
        jobs[i].rc = run_set_add(&jobs[i].set, jobs[i].path, jobs[i].err, sizeof jobs[i].err);
    }
}

int run_set_add_all(run_set *s, const char *const *paths, int n, char *err, size_t errlen)
{
    add_job *jobs = calloc((size_t)(n > 0 ? n : 1), sizeof *jobs);
    if (!jobs) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (int i = 0; i < n; i++)
        jobs[i].path = paths[i];
    /* reading and checking a run's CSVs is most of a report's time: the runs are read at once, on the
       host's pool (stopped after, so this process forks no worker with its threads running) */
    parallel_for((size_t)n, 1, add_some, jobs);
    parallel_shutdown();
    int rc = 0;
    for (int i = 0; i < n; i++) {
        add_job *j = &jobs[i];
        if (rc == 0 && j->rc != 0) {
            snprintf(err, errlen, "%s", j->err);
            rc = -1;
        }
        for (int k = 0; rc == 0 && k < j->set.nnotes; k++)
            note(s, "%s%s", j->set.notes[k], "");
        for (int k = 0; k < j->set.n; k++) {
            run_dir *r = rc == 0 ? new_run(s, j->set.runs[k].path) : NULL;
            if (!r) {
                free_run(&j->set.runs[k]);
                if (rc == 0)
                    snprintf(err, errlen, "out of memory");
                rc = -1;
                continue;
            }
            *r = j->set.runs[k]; /* moved: its arrays are s's now */
            unique_id(s, r);     /* in the paths' order, as run_set_add one path after another names them */
            s->n++;
        }
        free(j->set.runs);
    }
    free(jobs);
    return rc;
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
