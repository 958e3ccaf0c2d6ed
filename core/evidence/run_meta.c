#include "evidence/run_meta.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/ini_walk.h"
#include "evidence/csv_sink.h"
#include "evidence/row.h"
#include "timing/stopping.h"
#include "util/checksum.h"
#include "version.h"

void run_meta_ini_hash(const char *path, char *buf, size_t len)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        snprintf(buf, len, "unreadable");
        return;
    }
    uint64_t h = CHECKSUM_INIT;
    char chunk[8192];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, fp)) > 0)
        h = checksum_update(h, chunk, n);
    int bad = ferror(fp);
    fclose(fp);
    if (bad)
        snprintf(buf, len, "unreadable");
    else
        snprintf(buf, len, "%016llx", (unsigned long long)h);
}

void run_meta_run_id(const char *given, const struct tm *utc, char *buf, size_t len)
{
    if (given[0]) {
        snprintf(buf, len, "%s", given);
        return;
    }
    char stamp[32];
    strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", utc);
    snprintf(buf, len, "%s-%.7s", stamp, KLAB_GIT_COMMIT);
}

/* A caller's entry name: SECTION.KEY, both of [A-Za-z0-9_-], the section none of klab's own. */
static int extra_key_ok(const char *k, char *err, size_t errlen)
{
    static const char *const own[] = {"run", "inis", "ini_paths", "device", "method", "merge", "phases"};
    const char *dot = strchr(k, '.');
    size_t span = strspn(k, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.");
    if (!dot || dot == k || !dot[1] || strchr(dot + 1, '.') || k[span]) {
        snprintf(err, errlen, "meta.ini entry '%s' is not SECTION.KEY (letters, digits, '_', '-')", k);
        return -1;
    }
    for (size_t i = 0; i < sizeof own / sizeof *own; i++)
        if (strlen(own[i]) == (size_t)(dot - k) && strncmp(k, own[i], (size_t)(dot - k)) == 0) {
            snprintf(err, errlen, "meta.ini entry '%s': [%s] is klab's own section", k, own[i]);
            return -1;
        }
    return 0;
}

static int extras_ok(const run_meta_info *m, char *err, size_t errlen)
{
    for (int i = 0; i < m->nextra; i++) {
        if (extra_key_ok(m->extra_keys[i], err, errlen) != 0)
            return -1;
        if (strpbrk(m->extra_values[i], "\r\n")) {
            snprintf(err, errlen, "meta.ini entry '%s': the value holds a line break", m->extra_keys[i]);
            return -1;
        }
    }
    return 0;
}

static int same_section(const char *a, const char *b)
{
    size_t n = (size_t)(strchr(a, '.') - a);
    return strncmp(a, b, n) == 0 && b[n] == '.';
}

static void write_extras(FILE *fp, const run_meta_info *m)
{
    for (int i = 0; i < m->nextra; i++) {
        int seen = 0;
        for (int j = 0; j < i && !seen; j++)
            seen = same_section(m->extra_keys[j], m->extra_keys[i]);
        if (seen)
            continue;
        const char *k = m->extra_keys[i];
        fprintf(fp, "\n[%.*s]\n", (int)(strchr(k, '.') - k), k);
        for (int j = i; j < m->nextra; j++)
            if (same_section(m->extra_keys[i], m->extra_keys[j]))
                fprintf(fp, "%s = %s\n", strchr(m->extra_keys[j], '.') + 1, m->extra_values[j]);
    }
}

int run_meta_write_info(const char *path, const run_meta_info *m, char *err, size_t errlen)
{
    if (extras_ok(m, err, errlen) != 0)
        return -1;
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.partial", path);
    FILE *fp = fopen(tmp, "w");
    if (!fp) {
        snprintf(err, errlen, "cannot write %s: %s", tmp, strerror(errno));
        return -1;
    }
    fprintf(fp, "; written by klab %s; the CSV columns are described in README.md\n", KLAB_VERSION);
    fprintf(fp, "[run]\nid = %s\nstarted = %s\ncommand = %s\nklab_version = %s\ncommit = %s\ncsv_schema = %d\n"
                "seed = %llu\n",
            m->run_id, m->started, m->command, KLAB_VERSION, KLAB_GIT_COMMIT, m->csv_schema,
            (unsigned long long)m->seed);
    if (m->shard_n)
        fprintf(fp, "shard = %d/%d\n", m->shard_k, m->shard_n);
    if (m->ncfgs > 0) {
        fprintf(fp, "\n[inis]\n");
        for (int i = 0; i < m->ncfgs; i++) {
            char h[32];
            run_meta_ini_hash(m->cfgs[i].path, h, sizeof h);
            fprintf(fp, "%s = %s\n", m->cfgs[i].plugin, h);
        }
        fprintf(fp, "\n[ini_paths]\n");
        for (int i = 0; i < m->ncfgs; i++)
            fprintf(fp, "%s = %s\n", m->cfgs[i].plugin, m->cfgs[i].path);
    }
    const device_desc *dev = m->dev;
    if (dev) {
        const device_info *d = &dev->info;
        fprintf(fp, "\n[device]\nordinal = %d\nname = %s\nuuid = %s\ncompute_capability = %d.%d\nsms = %d\n"
                    "sm_clock_peak_mhz = %.0f\nmem_clock_peak_mhz = %.0f\nbus_width_bits = %d\nl2_mib = %.1f\n"
                    "memory_gib = %.1f\ndatasheet_gbps = %.0f\ntensor_peak_tflops = %.1f\n"
                    "driver = %d.%d\nruntime = %d.%d\n",
                d->ordinal, d->name, d->uuid, d->cc / 10, d->cc % 10, d->sms, d->clock_khz / 1e3, d->mem_clock_khz / 1e3,
                d->bus_width_bits, d->l2_bytes / 1048576.0, d->total_mem_bytes / 1073741824.0, dev->mem_gbps,
                dev->tensor_tflops, d->driver_version / 1000, d->driver_version % 1000 / 10,
                d->runtime_version / 1000, d->runtime_version % 1000 / 10);
        fprintf(fp, "\n[method]\n");
        if (m->hot)
            fprintf(fp, "l2 = hot: each sample right after an untimed run of the same subject, no flush\n");
        else
            fprintf(fp, "l2 = cold: before each sample a kernel reads %.0f MiB (at least 4x the L2), leaving only clean lines\n",
                    dev->flush_bytes / 1048576.0);
        if (m->verify_only)
            fprintf(fp, "verify_only = yes: nothing was timed\n");
        fprintf(fp, "launch = %s\ntimer = CUDA events around each sample, profiles interleaved in rounds\n"
                    "launch_floor_us = %.2f\nthrottle = %.2f\nisolated = %s\n",
                m->batched ? "batched: N runs per sample (one graph, or queued), N copies rotated, time / N"
                           : "stream",
                dev->launch_floor_ms * 1e3, m->throttle, m->isolated ? "yes" : "no");
        if (m->quick)
            fprintf(fp, "quick = yes: a smoke pass, every check made, sampling cut to warmup %d, min_reps %d, "
                        "max_reps %d, budget %g ms a case; every row flagged quick\n",
                    STOP_QUICK_WARMUP, STOP_QUICK_MIN_REPS, STOP_QUICK_MAX_REPS, STOP_QUICK_BUDGET_MS);
        if (m->budget_ms > 0)
            fprintf(fp, "budget_ms = %g: every case's sampling budget (--budget-ms), not its INI's\n", m->budget_ms);
    }
    write_extras(fp, m);
    if (file_commit(fp, tmp, path) != 0) {
        snprintf(err, errlen, "cannot complete %s: %s", path, strerror(errno));
        unlink(tmp);
        return -1;
    }
    return 0;
}

int run_meta_put_phases(const char *path, const run_phases *p, char *err, size_t errlen)
{
    size_t len = 0, o = 0;
    char *text = file_read_all(path, &len);
    if (!text) {
        snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
        return -1;
    }
    /* every line but an earlier [phases] section's, which this one replaces; kept in place (text
       only shrinks), then the blank lines that stood before the old section dropped */
    int skip = 0;
    for (char *line = text, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        size_t n = next ? (size_t)(++next - line) : strlen(line);
        if (line[0] == '[')
            skip = strncmp(line, "[phases]", 8) == 0;
        if (!skip) {
            memmove(text + o, line, n);
            o += n;
        }
    }
    while (o && (text[o - 1] == '\n' || text[o - 1] == ' '))
        o--;
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.partial", path);
    FILE *fp = fopen(tmp, "w");
    if (!fp) {
        snprintf(err, errlen, "cannot write %s: %s", tmp, strerror(errno));
        free(text);
        return -1;
    }
    fwrite(text, 1, o, fp);
    if (o)
        fputc('\n', fp);
    free(text);
    phases_write(fp, p);
    if (file_commit(fp, tmp, path) != 0) {
        snprintf(err, errlen, "cannot complete %s: %s", path, strerror(errno));
        unlink(tmp);
        return -1;
    }
    return 0;
}

/* ---- reading ---- */

typedef struct meta_walk {
    run_meta *m;
    char section[32];
} meta_walk;

static int meta_section(void *user, int line, const char *name, char *why, size_t whylen)
{
    (void)line, (void)why, (void)whylen;
    meta_walk *w = user;
    snprintf(w->section, sizeof w->section, "%s", name);
    return 0;
}

static void put(char *dst, size_t len, const char *v)
{
    snprintf(dst, len, "%s", v);
}

static int meta_key(void *user, int line, const char *key, const char *v, int continued, char *why, size_t whylen)
{
    (void)line, (void)continued, (void)why, (void)whylen;
    meta_walk *w = user;
    run_meta *m = w->m;
    if (strcmp(w->section, "run") == 0) {
        if (strcmp(key, "id") == 0)
            put(m->id, sizeof m->id, v);
        else if (strcmp(key, "started") == 0)
            put(m->started, sizeof m->started, v);
        else if (strcmp(key, "commit") == 0)
            put(m->commit, sizeof m->commit, v);
        else if (strcmp(key, "command") == 0)
            put(m->command, sizeof m->command, v);
        else if (strcmp(key, "csv_schema") == 0)
            put(m->csv_schema, sizeof m->csv_schema, v);
    } else if (strcmp(w->section, "device") == 0) {
        if (strcmp(key, "name") == 0)
            put(m->gpu, sizeof m->gpu, v);
        else if (strcmp(key, "uuid") == 0)
            put(m->uuid, sizeof m->uuid, v);
    } else if (strcmp(w->section, "method") == 0) {
        if (strcmp(key, "quick") == 0)
            m->quick = strncmp(v, "yes", 3) == 0;
    } else if (strcmp(w->section, "inis") == 0 && m->ninis < RUN_META_MAX_INIS) {
        put(m->ini_plugin[m->ninis], sizeof m->ini_plugin[0], key);
        put(m->ini_hash[m->ninis], sizeof m->ini_hash[0], v);
        m->ninis++;
    }
    return 0;
}

int run_meta_read(const char *path, run_meta *m, char *err, size_t errlen)
{
    memset(m, 0, sizeof *m);
    meta_walk w = {.m = m};
    static const ini_walk_ops ops = {meta_section, meta_key};
    return ini_walk(path, &ops, &w, INI_WALK_CUT_LONG, err, errlen);
}
