#include "app/lab_resume.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app/lab_selection.h"
#include "evidence/counters.h"
#include "evidence/csv_read.h"
#include "evidence/progress_file.h"
#include "evidence/run_meta.h"
#include "host/dtype.h"
#include "process/samples_file.h"
#include "util/text.h"
#include "version.h"
#include "worker/selection.h"

static int refuse(const cli_opts *o, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* One line to stderr, "klab: cannot resume RUN: why", and the exit status of a bad command line. */
static int refuse(const cli_opts *o, const char *fmt, ...)
{
    char why[2400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    text_printf(stderr, "klab: cannot resume %s: %s\n", o->resume, why);
    return EXIT_USAGE;
}

static int is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static void meta_path(const cli_opts *o, char *buf, size_t len)
{
    snprintf(buf, len, "%s/meta.ini", o->resume);
}

int lab_resume_prepare(cli_opts *o)
{
    char dir[4096], meta[4200], err[1200];
    /* a run folder, else a run id under --out, as klab compare takes runs */
    if (is_dir(o->resume))
        snprintf(dir, sizeof dir, "%s", o->resume);
    else if (snprintf(dir, sizeof dir, "%s/%s", o->out_dir, o->resume), !is_dir(dir))
        return refuse(o, "no such run folder (nor %s)", dir);
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/')
        dir[--n] = 0;
    snprintf(o->resume, sizeof o->resume, "%s", dir);
    meta_path(o, meta, sizeof meta);
    run_meta m;
    if (access(meta, F_OK) != 0)
        return refuse(o, "it has no meta.ini: not a run folder, or its run stopped before it began (run it anew, "
                         "without --resume)");
    if (run_meta_read(meta, &m, err, sizeof err) != 0)
        return refuse(o, "%s", err);
    if (strcmp(m.commit, KLAB_GIT_COMMIT) != 0)
        return refuse(o, "the commit differs: the run was made by %s, this klab is %s (resume it with a klab built "
                         "from %s, or run it anew)",
                      m.commit[0] ? m.commit : "(none)", KLAB_GIT_COMMIT, m.commit[0] ? m.commit : "its commit");
    if (atoi(m.csv_schema) != ROW_SCHEMA)
        return refuse(o, "the CSV schema differs: the run's is %s, this klab writes %d", m.csv_schema[0] ? m.csv_schema : "(none)",
                      ROW_SCHEMA);
    const char *base = strrchr(dir, '/');
    base = base ? base + 1 : dir;
    if (strcmp(base, m.id) != 0)
        return refuse(o, "its meta.ini names run '%s', but the folder is '%s' (klab runs in <out>/<run id>)", m.id, base);
    if (o->run_id[0] && strcmp(o->run_id, m.id) != 0)
        return refuse(o, "--run-id %s: the run is %s", o->run_id, m.id);
    static lab_selection stored; /* o's --plugin-path entries point into it for the rest of the run */
    int has = lab_selection_read(meta, &stored, err, sizeof err);
    if (has < 0)
        return refuse(o, "%s", err);
    if (has == 0)
        return refuse(o, "its meta.ini has no [selection] (a run of a klab before --resume): run it anew");
    char seed[32];
    if (lab_meta_value(meta, "run", "seed", seed, sizeof seed, err, sizeof err) != 0)
        return refuse(o, "%s", err);
    unsigned long long s = strtoull(seed, NULL, 10);
    if (!s)
        return refuse(o, "its meta.ini has no [run] seed");
    if (o->seed && o->seed != s)
        return refuse(o, "--seed: the run was made with %llu, this command line gives %llu", s,
                      (unsigned long long)o->seed);
    if (lab_selection_apply(o, &stored, err, sizeof err) != 0)
        return refuse(o, "%s", err);
    o->seed = s;
    snprintf(o->run_id, sizeof o->run_id, "%s", m.id);
    /* lab_run works in <out>/<run id>: the folder's parent is --out ("/x": "/"; "x": ".") */
    int parent = base == dir ? 0 : (int)(base - 1 - dir);
    snprintf(o->out_dir, sizeof o->out_dir, "%.*s", parent ? parent : 1, parent || base == dir + 1 ? dir : ".");
    text_printf(stdout, "klab: resuming run %s (started %s) in %s\n", m.id, m.started, dir);
    return EXIT_OK;
}

int lab_resume_check_inis(const cli_opts *o, const cfg_experiment *cfgs, int n)
{
    char meta[4200], err[1200];
    meta_path(o, meta, sizeof meta);
    run_meta m;
    if (run_meta_read(meta, &m, err, sizeof err) != 0)
        return refuse(o, "%s", err);
    for (int i = 0; i < n; i++) {
        char now[32];
        run_meta_ini_hash(cfgs[i].path, now, sizeof now);
        int at = -1;
        for (int k = 0; k < m.ninis && at < 0; k++)
            if (strcmp(m.ini_plugin[k], cfgs[i].plugin) == 0)
                at = k;
        if (at < 0)
            return refuse(o, "%s (%s) is not one of the run's experiments ([inis] of its meta.ini)", cfgs[i].plugin,
                          cfgs[i].path);
        if (strcmp(m.ini_hash[at], now) != 0)
            return refuse(o, "%s's INI differs: the run hashed it as %s, %s hashes %s now", cfgs[i].plugin,
                          m.ini_hash[at], cfgs[i].path, now);
    }
    for (int k = 0; k < m.ninis; k++) {
        int found = 0;
        for (int i = 0; i < n && !found; i++)
            found = strcmp(m.ini_plugin[k], cfgs[i].plugin) == 0;
        if (!found)
            return refuse(o, "the run's experiment %s has no INI now (or its plugin was not found)", m.ini_plugin[k]);
    }
    return EXIT_OK;
}

int lab_resume_check_device(const cli_opts *o, const device_desc *dev, char *started, size_t len)
{
    char meta[4200], err[1200];
    meta_path(o, meta, sizeof meta);
    run_meta m;
    if (run_meta_read(meta, &m, err, sizeof err) != 0)
        return refuse(o, "%s", err);
    if (strcmp(m.uuid, dev->info.uuid) != 0)
        return refuse(o, "the GPU differs: the run's is %s (%s), device %d is %s (%s)", m.uuid, m.gpu,
                      dev->info.ordinal, dev->info.uuid, dev->info.name);
    snprintf(started, len, "%s", m.started);
    return EXIT_OK;
}

/* ---- per plugin ---- */

/* The rows of a CSV file into s->rows (for the table, the summary and the exit status); how many, or -1. */
static int keep_rows(const char *path, job_state *s, char *err, size_t errlen)
{
    klab_row *rows = NULL;
    int n = csv_read_rows(path, &rows, err, errlen);
    for (int i = 0; i < n; i++)
        row_push(&s->rows, &s->nrows, &s->cap, &rows[i]);
    free(rows);
    return n;
}

/* <plugin>.samples/ holds a file for a kept row only: one of a row cut away, or never completed, goes
   (its unit runs again and writes it anew). */
static void keep_samples(const char *csv, const char *plugin, const job_state *s)
{
    char dir[4400], path[4800], kept[4800];
    if (samples_file_path(csv, plugin, "c", "d", "p", dir, sizeof dir) != 0)
        return;
    *strrchr(dir, '/') = 0;
    DIR *d = opendir(dir);
    if (!d)
        return;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        int keep = 0;
        for (int i = 0; i < s->nrows && !keep; i++)
            keep = samples_file_path(csv, plugin, s->rows[i].kcase, s->rows[i].dtype, s->rows[i].profile, kept,
                                     sizeof kept) == 0 &&
                   strcmp(kept, path) == 0;
        if (!keep)
            unlink(path);
    }
    closedir(d);
}

static int open_anew(const char *csv, csv_sink *sink, job_state *s, char *err, size_t errlen)
{
    if (csv_sink_open(sink, csv, err, errlen) != 0)
        return -1;
    char why[1200];
    if (progress_open(&s->progress, csv, 0, why, sizeof why) != 0)
        text_printf(stderr, "klab: %s (a resume of this run would run this plugin's units again)\n", why);
    return 0;
}

int lab_plugin_sink(const cli_opts *o, const char *csv, const cfg_experiment *cfg, csv_sink *sink, job_state *s,
                    int *start_unit, char *err, size_t errlen)
{
    memset(sink, 0, sizeof *sink);
    *start_unit = 0;
    if (!o->resume[0])
        return open_anew(csv, sink, s, err, errlen);
    const char *plugin = cfg->plugin;
    int total = job_units(cfg, &o->filter, -1, NULL, NULL);
    char partial[4200], progress[4200];
    if (access(csv, F_OK) == 0) {
        int n = keep_rows(csv, s, err, errlen);
        if (n < 0)
            return -1;
        if (n == 0 && total > 0) {
            /* a plugin refused before its first unit commits a header alone: it is asked again, so that
               the resumed run refuses it (and exits) as the whole run did */
            text_printf(stdout, "klab: %s: its CSV has no rows (refused): it runs again\n", plugin);
            return open_anew(csv, sink, s, err, errlen);
        }
        s->done = 1;
        if (progress_path(csv, progress, sizeof progress) == 0)
            unlink(progress); /* left by a stop between the CSV's rename and its removal */
        text_printf(stdout, "klab: %s: its CSV is complete: %d rows kept\n", plugin, n);
        return 0;
    }
    snprintf(partial, sizeof partial, "%s.partial", csv);
    if (access(partial, F_OK) != 0 || progress_path(csv, progress, sizeof progress) != 0) {
        keep_samples(csv, plugin, s);
        return open_anew(csv, sink, s, err, errlen);
    }
    progress_mark m;
    long long keep_log;
    if (progress_last(progress, partial, &m, &keep_log, err, errlen) < 0)
        return -1;
    if (m.unit >= total) {
        snprintf(err, errlen, "%s says unit %d is done; this selection has %d units", progress, m.unit, total);
        return -1;
    }
    if (m.unit >= 0) {
        int ci;
        klab_dtype dt;
        job_units(cfg, &o->filter, m.unit, &ci, &dt);
        if (strcmp(cfg->cases[ci].name, m.kcase) || strcmp(dtype_name(dt), m.dtype)) {
            snprintf(err, errlen, "%s: unit %d was %s %s, in this selection it is %s %s", progress, m.unit, m.kcase,
                     m.dtype, cfg->cases[ci].name, dtype_name(dt));
            return -1;
        }
    }
    if (m.bytes == 0) { /* not even its header was whole */
        keep_samples(csv, plugin, s);
        return open_anew(csv, sink, s, err, errlen);
    }
    if (csv_sink_resume(sink, csv, m.bytes, m.rows, err, errlen) != 0)
        return -1;
    fflush(sink->fp);
    int n = keep_rows(sink->partial, s, err, errlen);
    if (n < 0) {
        fclose(sink->fp);
        sink->fp = NULL;
        return -1;
    }
    sink->rows = n;
    keep_samples(csv, plugin, s);
    char why[1200];
    if (progress_open(&s->progress, csv, keep_log, why, sizeof why) != 0)
        text_printf(stderr, "klab: %s (a later resume would run this plugin's units again)\n", why);
    *start_unit = m.unit + 1;
    s->done = *start_unit >= total;
    text_printf(stdout, "klab: %s: %d of %d units kept from %s (%d rows)%s\n", plugin, *start_unit, total, partial, n,
                s->done ? "" : "; the rest run now");
    return 0;
}

int lab_resume_profiled(const cli_opts *o, const char *run_dir, const char *plugin)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/%s%s", run_dir, plugin, COUNTERS_SUFFIX);
    return o->resume[0] && access(path, F_OK) == 0;
}
