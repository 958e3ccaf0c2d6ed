#include "app/lab_selection.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "evidence/csv_sink.h"
#include "host/dtype.h"

static void put(lab_selection *s, const char *key, const char *fmt, const char *value)
{
    if (s->n == SELECTION_MAX || !value[0])
        return;
    snprintf(s->key[s->n], sizeof s->key[0], "%s", key);
    snprintf(s->value[s->n++], sizeof s->value[0], fmt, value);
}

/* A path as an absolute one, against the current folder: the run may be resumed from another. */
static void absolute(const char *path, char *buf, size_t len)
{
    char cwd[4096];
    if (!path[0] || path[0] == '/' || !getcwd(cwd, sizeof cwd))
        snprintf(buf, len, "%s", path);
    else
        snprintf(buf, len, "%s/%s", cwd, path);
}

static void names(char (*list)[64], int n, char *buf, size_t len)
{
    buf[0] = 0;
    for (int i = 0; i < n; i++)
        snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", i ? "," : "", list[i]);
}

void lab_selection_of(const cli_opts *o, lab_selection *s)
{
    char v[4200];
    s->n = 0;
    names((char(*)[64])o->plugins, o->nplugins, v, sizeof v);
    put(s, "plugin", "%s", v);
    absolute(o->config, v, sizeof v);
    put(s, "config", "%s", v);
    /* an ad-hoc case is stored as the --shape and --dim that make it, which also select it */
    names((char(*)[64])o->filter.cases, o->adhoc_name[0] ? 0 : o->filter.ncases, v, sizeof v);
    put(s, "case", "%s", v);
    put(s, "shape", "%s", o->adhoc_shape);
    put(s, "dim", "%s", o->adhoc_dims);
    v[0] = 0;
    for (int d = 0; d < KLAB_DTYPE_COUNT; d++)
        if (o->filter.dtypes & KLAB_DTYPE_BIT(d))
            snprintf(v + strlen(v), sizeof v - strlen(v), "%s%s", v[0] ? "," : "", dtype_name((klab_dtype)d));
    put(s, "dtype", "%s", v);
    names((char(*)[64])o->filter.profiles, o->filter.nprofiles, v, sizeof v);
    put(s, "profile", "%s", v);
    snprintf(v, sizeof v, "%d/%d", o->filter.shard_k, o->filter.shard_n);
    put(s, "shard", "%s", o->filter.shard_n ? v : "");
    put(s, "hot", "%s", o->hot ? "yes" : "");
    put(s, "batched", "%s", o->batched ? "yes" : "");
    put(s, "quick", "%s", o->quick ? "yes" : "");
    snprintf(v, sizeof v, "%g", o->budget_ms);
    put(s, "budget-ms", "%s", o->budget_ms > 0 ? v : "");
    put(s, "verify-only", "%s", o->verify_only ? "yes" : "");
    put(s, "tune", "%s", o->tune ? "yes" : "");
    absolute(o->tune_cache, v, sizeof v);
    put(s, "tune-cache", "%s", v);
    put(s, "torch", "%s", o->with_torch ? o->torch_python : "");
    put(s, "with-profiling", "%s", o->with_profiling ? "yes" : "");
    for (int i = 0; i < o->npaths; i++) {
        absolute(o->plugin_paths[i], v, sizeof v);
        put(s, "plugin-path", "%s", v);
    }
    absolute(o->ini_dir, v, sizeof v);
    put(s, "ini-dir", "%s", v);
    snprintf(v, sizeof v, "%d", o->device);
    put(s, "device", "%s", v);
    snprintf(v, sizeof v, "%g", o->timeout_s);
    put(s, "timeout", "%s", v);
    snprintf(v, sizeof v, "%g", o->throttle);
    put(s, "throttle", "%s", v);
    put(s, "no-isolate", "%s", o->isolate ? "" : "yes");
}

int lab_selection_entries(const cli_opts *o, const char *const **keys, const char *const **values)
{
    static lab_selection sel;
    static char names[SELECTION_MAX][48];
    static const char *kp[SELECTION_MAX], *vp[SELECTION_MAX];
    lab_selection_of(o, &sel);
    *keys = kp;
    *values = vp;
    for (int i = 0; i < sel.n; i++)
        if (strpbrk(sel.value[i], "\r\n"))
            return 0;
    for (int i = 0; i < sel.n; i++) {
        snprintf(names[i], sizeof names[i], "selection.%s", sel.key[i]);
        kp[i] = names[i];
        vp[i] = sel.value[i];
    }
    return sel.n;
}

/* ---- reading meta.ini (its writer's own layout: "[section]" and "key = value" lines) ---- */

typedef int (*meta_fn)(void *user, const char *section, const char *key, const char *value);

static int meta_lines(const char *path, meta_fn fn, void *user, char *err, size_t errlen)
{
    size_t len;
    char *text = file_read_all(path, &len);
    if (!text) {
        snprintf(err, errlen, "cannot read %s", path);
        return -1;
    }
    char section[64] = "";
    for (char *line = text, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = 0;
        size_t n = strlen(line);
        if (n && line[n - 1] == '\r')
            line[--n] = 0;
        char *eq = strstr(line, " = ");
        if (line[0] == '[' && n > 1 && line[n - 1] == ']')
            snprintf(section, sizeof section, "%.*s", (int)n - 2, line + 1);
        else if (eq && line[0] != ';' && line[0] != '#') {
            *eq = 0;
            if (fn(user, section, line, eq + 3))
                break;
        }
    }
    free(text);
    return 0;
}

static int selection_line(void *user, const char *section, const char *key, const char *value)
{
    lab_selection *s = user;
    if (strcmp(section, "selection") == 0)
        put(s, key, "%s", value);
    return 0;
}

int lab_selection_read(const char *path, lab_selection *s, char *err, size_t errlen)
{
    s->n = 0;
    if (meta_lines(path, selection_line, s, err, errlen) != 0)
        return -1;
    return s->n > 0;
}

typedef struct one_value {
    const char *section, *key;
    char *buf;
    size_t len;
} one_value;

static int value_line(void *user, const char *section, const char *key, const char *value)
{
    one_value *v = user;
    if (strcmp(section, v->section) || strcmp(key, v->key))
        return 0;
    snprintf(v->buf, v->len, "%s", value);
    return 1;
}

int lab_meta_value(const char *path, const char *section, const char *key, char *buf, size_t len, char *err,
                   size_t errlen)
{
    buf[0] = 0;
    one_value v = {section, key, buf, len};
    return meta_lines(path, value_line, &v, err, errlen);
}

/* ---- applying a stored selection ---- */

/* Every value of `key` (a repeated option's, one a line). */
static void value_of(const lab_selection *s, const char *key, char *buf, size_t len)
{
    buf[0] = 0;
    for (int i = 0; i < s->n; i++)
        if (strcmp(s->key[i], key) == 0)
            snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", buf[0] ? "\n" : "", s->value[i]);
}

/* The stored selection as a command line, parsed. */
static int parse_stored(const lab_selection *stored, cli_opts *out, char *err, size_t errlen)
{
    static char *argv[2 * SELECTION_MAX + 2];
    int argc = 0;
    argv[argc++] = "klab";
    for (int i = 0; i < stored->n; i++) {
        static char words[SELECTION_MAX][40];
        snprintf(words[i], sizeof words[i], "--%s", stored->key[i]);
        argv[argc++] = words[i];
        /* a flag is stored as "yes"; an option with a value of its own keeps it */
        static const char *const flags[] = {"hot", "batched", "quick", "verify-only", "tune", "with-profiling",
                                            "no-isolate"};
        int flag = 0;
        for (size_t k = 0; k < sizeof flags / sizeof flags[0]; k++)
            flag |= strcmp(stored->key[i], flags[k]) == 0;
        if (!flag)
            argv[argc++] = (char *)stored->value[i];
    }
    argv[argc] = NULL;
    char why[1024];
    if (cli_parse(argc, argv, out, why, sizeof why) != 0) {
        snprintf(err, errlen, "its [selection] is not a command line this klab takes: %s", why);
        return -1;
    }
    return 0;
}

int lab_selection_apply(cli_opts *o, const lab_selection *stored, char *err, size_t errlen)
{
    static cli_opts s, d;
    if (parse_stored(stored, &s, err, errlen) != 0)
        return -1;
    /* the defaults under the same --out, whose folder holds the default tuning cache */
    char *defaults[] = {"klab", "--out", o->out_dir, NULL};
    char why[1024];
    if (cli_parse(3, defaults, &d, why, sizeof why) != 0) {
        snprintf(err, errlen, "%s", why);
        return -1;
    }
    static lab_selection given, plain, again;
    lab_selection_of(o, &given);
    lab_selection_of(&d, &plain);
    lab_selection_of(&s, &again);
    /* every key any of them has, in the order of the stored one and then the others */
    const lab_selection *all[] = {stored, &given, &plain};
    for (int a = 0; a < 3; a++)
        for (int i = 0; i < all[a]->n; i++) {
            static char g[SELECTION_MAX * 4200], p[SELECTION_MAX * 4200], r[SELECTION_MAX * 4200];
            const char *key = all[a]->key[i];
            value_of(&given, key, g, sizeof g);
            value_of(&plain, key, p, sizeof p);
            value_of(stored, key, r, sizeof r);
            if (strcmp(g, p) != 0 && strcmp(g, r) != 0) {
                snprintf(err, errlen, "--%s: the run was made with '%s', this command line gives '%s'", key,
                         r[0] ? r : "(not given)", g);
                return -1;
            }
            value_of(&again, key, g, sizeof g);
            if (strcmp(g, r) != 0) {
                /* cli_parse read it back otherwise: the stored section is not this klab's */
                snprintf(err, errlen, "its [selection] %s = '%s' reads back as '%s'", key, r, g);
                return -1;
            }
        }
    /* the selection's fields, and only those: the rest (--resume, --out, --run-id) stays the command line's */
    o->nplugins = s.nplugins;
    memcpy(o->plugins, s.plugins, sizeof o->plugins);
    memcpy(o->config, s.config, sizeof o->config);
    o->filter = s.filter;
    memcpy(o->adhoc_shape, s.adhoc_shape, sizeof o->adhoc_shape);
    memcpy(o->adhoc_dims, s.adhoc_dims, sizeof o->adhoc_dims);
    memcpy(o->adhoc_name, s.adhoc_name, sizeof o->adhoc_name);
    o->hot = s.hot;
    o->batched = s.batched;
    o->quick = s.quick;
    o->budget_ms = s.budget_ms;
    o->verify_only = s.verify_only;
    o->tune = s.tune;
    memcpy(o->tune_cache, s.tune_cache, sizeof o->tune_cache);
    o->with_torch = s.with_torch;
    memcpy(o->torch_python, s.torch_python, sizeof o->torch_python);
    o->with_profiling = s.with_profiling;
    o->npaths = s.npaths;
    memcpy(o->plugin_paths, s.plugin_paths, sizeof o->plugin_paths);
    memcpy(o->ini_dir, s.ini_dir, sizeof o->ini_dir);
    o->device = s.device;
    o->timeout_s = s.timeout_s;
    o->throttle = s.throttle;
    o->isolate = s.isolate;
    return 0;
}
