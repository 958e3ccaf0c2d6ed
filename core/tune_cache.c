#include "tune_cache.h"

#include <errno.h>
#include <ini.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "case_build.h"

void tune_key_make(tune_key *k, const char *gpu, const char *plugin, const char *version, const cfg_case *c,
                   const char *dtype, const char *profile)
{
    memset(k, 0, sizeof *k);
    snprintf(k->gpu, sizeof k->gpu, "%s", gpu);
    snprintf(k->plugin, sizeof k->plugin, "%s", plugin);
    snprintf(k->version, sizeof k->version, "%s", version ? version : "");
    snprintf(k->kcase, sizeof k->kcase, "%s", c->name);
    case_signature(c, k->signature, sizeof k->signature);
    snprintf(k->dtype, sizeof k->dtype, "%s", dtype);
    snprintf(k->profile, sizeof k->profile, "%s", profile);
}

typedef struct load_state {
    tune_cache *c;
    tune_entry cur;
    int have; /* an [entry N] is open */
    char section[64];
    int fields;
    char why[256];
} load_state;

enum {
    F_GPU = 1 << 0, F_PLUGIN = 1 << 1, F_VERSION = 1 << 2, F_CASE = 1 << 3, F_SIGNATURE = 1 << 4,
    F_DTYPE = 1 << 5, F_PROFILE = 1 << 6, F_CONFIG = 1 << 7, F_MEDIAN = 1 << 8, F_RUN_ID = 1 << 9
};
#define F_REQUIRED (F_GPU | F_PLUGIN | F_VERSION | F_CASE | F_SIGNATURE | F_DTYPE | F_PROFILE | F_CONFIG)

static int append(tune_cache *c, const tune_entry *e)
{
    if (c->n == c->cap) {
        int cap = c->cap ? 2 * c->cap : 16;
        tune_entry *g = realloc(c->e, (size_t)cap * sizeof *g);
        if (!g)
            return -1;
        c->e = g;
        c->cap = cap;
    }
    c->e[c->n++] = *e;
    return 0;
}

static int close_entry(load_state *s)
{
    if (!s->have)
        return 1;
    s->have = 0;
    if ((s->fields & F_REQUIRED) != F_REQUIRED) {
        snprintf(s->why, sizeof s->why, "entry lacks one of gpu, plugin, version, case, signature, dtype, "
                                         "profile, config");
        return 0;
    }
    if (append(s->c, &s->cur) != 0) {
        snprintf(s->why, sizeof s->why, "out of memory");
        return 0;
    }
    return 1;
}

/* Copies v into dst of size n; 0 when it does not fit (never cut silently). */
static int set(char *dst, size_t n, const char *v)
{
    if (strlen(v) >= n)
        return 0;
    memcpy(dst, v, strlen(v) + 1);
    return 1;
}

static int on_key(void *user, const char *section, const char *name, const char *value)
{
    load_state *s = user;
    /* Debian's inih does not call the handler on a new section, so entries are numbered ([entry 3]) and
       a change of section name starts the next one. */
    if (!s->have || strcmp(section, s->section) != 0) {
        if (!close_entry(s))
            return 0;
        if (strncmp(section, "entry", 5) != 0 || !set(s->section, sizeof s->section, section)) {
            snprintf(s->why, sizeof s->why, "key '%s' outside an [entry N] section", name);
            return 0;
        }
        memset(&s->cur, 0, sizeof s->cur);
        s->have = 1;
        s->fields = 0;
    }
    tune_entry *e = &s->cur;
    struct {
        const char *key;
        int flag;
        char *dst;
        size_t n;
    } text[] = {
        {"gpu", F_GPU, e->key.gpu, sizeof e->key.gpu},
        {"plugin", F_PLUGIN, e->key.plugin, sizeof e->key.plugin},
        {"version", F_VERSION, e->key.version, sizeof e->key.version},
        {"case", F_CASE, e->key.kcase, sizeof e->key.kcase},
        {"signature", F_SIGNATURE, e->key.signature, sizeof e->key.signature},
        {"dtype", F_DTYPE, e->key.dtype, sizeof e->key.dtype},
        {"profile", F_PROFILE, e->key.profile, sizeof e->key.profile},
        {"config", F_CONFIG, e->config, sizeof e->config},
        {"run_id", F_RUN_ID, e->run_id, sizeof e->run_id},
    };
    for (size_t i = 0; i < sizeof text / sizeof text[0]; i++) {
        if (strcmp(name, text[i].key) != 0)
            continue;
        if (s->fields & text[i].flag) {
            snprintf(s->why, sizeof s->why, "key '%s' given twice in one entry", name);
            return 0;
        }
        if (!set(text[i].dst, text[i].n, value)) {
            snprintf(s->why, sizeof s->why, "key '%s': value longer than %zu characters", name, text[i].n - 1);
            return 0;
        }
        s->fields |= text[i].flag;
        return 1;
    }
    if (strcmp(name, "median_ms") == 0) {
        char *end;
        errno = 0;
        e->median_ms = strtod(value, &end);
        if (end == value || *end || errno || !(e->median_ms > 0)) {
            snprintf(s->why, sizeof s->why, "key 'median_ms': '%s' is not a positive number", value);
            return 0;
        }
        s->fields |= F_MEDIAN;
        return 1;
    }
    snprintf(s->why, sizeof s->why, "unknown key '%s'", name);
    return 0;
}

int tune_cache_load(const char *path, tune_cache *c, char *err, size_t errlen)
{
    memset(c, 0, sizeof *c);
    if (!set(c->path, sizeof c->path, path)) {
        snprintf(err, errlen, "tuning cache path too long");
        return -1;
    }
    FILE *f = fopen(path, "r");
    if (!f) {
        if (errno == ENOENT)
            return 0;
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    load_state s;
    memset(&s, 0, sizeof s);
    s.c = c;
    int line = ini_parse_file(f, on_key, &s);
    fclose(f);
    if (line == 0 && !close_entry(&s))
        line = -3; /* the last entry was incomplete: no line to name but the end */
    if (line != 0) {
        if (line > 0)
            snprintf(err, errlen, "%s:%d: %s", path, line, s.why[0] ? s.why : "malformed line");
        else if (line == -3)
            snprintf(err, errlen, "%s: at the end: %s", path, s.why);
        else
            snprintf(err, errlen, "%s: cannot be read (%d)", path, line);
        tune_cache_free(c);
        return -1;
    }
    return 0;
}

static int same_key(const tune_key *a, const tune_key *b)
{
    return !strcmp(a->gpu, b->gpu) && !strcmp(a->plugin, b->plugin) && !strcmp(a->version, b->version) &&
           !strcmp(a->kcase, b->kcase) && !strcmp(a->signature, b->signature) && !strcmp(a->dtype, b->dtype) &&
           !strcmp(a->profile, b->profile);
}

const tune_entry *tune_cache_find(const tune_cache *c, const tune_key *k)
{
    for (int i = 0; i < c->n; i++)
        if (same_key(&c->e[i].key, k))
            return &c->e[i];
    return NULL;
}

/* What inih would read back unchanged: no control characters, no section brackets, no blank before
   ';' or '#' (an inline comment to inih), no surrounding blanks (inih strips them). */
static int storable(const char *v)
{
    size_t n = strlen(v);
    if (n && (v[0] == ' ' || v[n - 1] == ' ' || v[0] == ';' || v[0] == '#'))
        return 0;
    for (const unsigned char *p = (const unsigned char *)v; *p; p++) {
        if (*p < 0x20 || *p == 0x7f || *p == '[' || *p == ']')
            return 0;
        if ((*p == ';' || *p == '#') && p > (const unsigned char *)v && p[-1] == ' ')
            return 0;
    }
    return 1;
}

int tune_cache_put(tune_cache *c, const tune_entry *e, char *err, size_t errlen)
{
    const char *fields[] = {e->key.gpu,     e->key.plugin, e->key.version, e->key.kcase, e->key.signature,
                            e->key.dtype,   e->key.profile, e->config,     e->run_id};
    const char *names[] = {"gpu", "plugin", "version", "case", "signature", "dtype", "profile", "config", "run_id"};
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        if (!storable(fields[i])) {
            snprintf(err, errlen, "tuning cache: %s '%s' cannot be stored (a control character, [, ], or a blank before ; or #)",
                     names[i], fields[i]);
            return -1;
        }
    for (int i = 0; i < c->n; i++)
        if (same_key(&c->e[i].key, &e->key)) {
            c->e[i] = *e;
            return 0;
        }
    if (append(c, e) != 0) {
        snprintf(err, errlen, "tuning cache: out of memory");
        return -1;
    }
    return 0;
}

int tune_cache_remove(tune_cache *c, const tune_key *k)
{
    for (int i = 0; i < c->n; i++)
        if (same_key(&c->e[i].key, k)) {
            memmove(&c->e[i], &c->e[i + 1], (size_t)(c->n - i - 1) * sizeof c->e[0]);
            c->n--;
            return 1;
        }
    return 0;
}

int tune_cache_save(const tune_cache *c, char *err, size_t errlen)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.partial", c->path);
    FILE *f = fopen(tmp, "w");
    if (!f) {
        snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
        return -1;
    }
    fprintf(f, "; klab tuning cache: the best configuration per (GPU, plugin, version, case, dtype, profile),\n"
               "; written by `klab --tune`. Delete an entry (or the file) to tune again.\n");
    for (int i = 0; i < c->n; i++) {
        const tune_entry *e = &c->e[i];
        fprintf(f, "\n[entry %d]\ngpu = %s\nplugin = %s\nversion = %s\ncase = %s\nsignature = %s\ndtype = %s\n"
                   "profile = %s\nconfig = %s\n",
                i + 1, e->key.gpu, e->key.plugin, e->key.version, e->key.kcase, e->key.signature, e->key.dtype,
                e->key.profile, e->config);
        if (e->median_ms > 0)
            fprintf(f, "median_ms = %.6g\n", e->median_ms);
        if (e->run_id[0])
            fprintf(f, "run_id = %s\n", e->run_id);
    }
    int bad = ferror(f);
    bad |= fflush(f) != 0 || fsync(fileno(f)) != 0;
    bad |= fclose(f) != 0;
    if (bad || rename(tmp, c->path) != 0) {
        snprintf(err, errlen, "%s: could not be written: %s", c->path, strerror(errno));
        unlink(tmp);
        return -1;
    }
    return 0;
}

void tune_cache_free(tune_cache *c)
{
    free(c->e);
    c->e = NULL;
    c->n = c->cap = 0;
}
