#include "config/tune_cache.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/case_build.h"
#include "config/ini_walk.h"

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
    unsigned fields; /* bit i: FIELDS[i] given; F_MEDIAN */
    char why[256];
    char walking[64]; /* the section the walk is in */
} load_state;

#define ENTRY_FIELD(f) offsetof(tune_entry, f), sizeof(((tune_entry *)0)->f)

/* An entry's text fields, in the order the file writes them: the one list that reading, checking,
   comparing and writing go by. median_ms, the one number, is written between the required fields
   and the optional ones. */
static const struct text_field {
    const char *name;
    size_t off, size;
    int in_key;   /* part of the tune_key: entries with the same ones are one entry */
    int optional; /* written only when not empty; an entry may lack it */
} FIELDS[] = {
    {"gpu", ENTRY_FIELD(key.gpu), 1, 0},
    {"plugin", ENTRY_FIELD(key.plugin), 1, 0},
    {"version", ENTRY_FIELD(key.version), 1, 0},
    {"case", ENTRY_FIELD(key.kcase), 1, 0},
    {"signature", ENTRY_FIELD(key.signature), 1, 0},
    {"dtype", ENTRY_FIELD(key.dtype), 1, 0},
    {"profile", ENTRY_FIELD(key.profile), 1, 0},
    {"config", ENTRY_FIELD(config), 0, 0},
    {"run_id", ENTRY_FIELD(run_id), 0, 1},
};
#define NFIELDS (sizeof FIELDS / sizeof FIELDS[0])
#define F_MEDIAN (1u << NFIELDS) /* the bits below it: FIELDS[i] read */

static const char *field_in(const tune_entry *e, size_t i)
{
    return (const char *)e + FIELDS[i].off;
}

static unsigned required_fields(void)
{
    unsigned m = 0;
    for (size_t i = 0; i < NFIELDS; i++)
        if (!FIELDS[i].optional)
            m |= 1u << i;
    return m;
}

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
    if ((s->fields & required_fields()) != required_fields()) {
        snprintf(s->why, sizeof s->why, "entry lacks one of ");
        for (size_t i = 0, k = 0; i < NFIELDS; i++)
            if (!FIELDS[i].optional)
                snprintf(s->why + strlen(s->why), sizeof s->why - strlen(s->why), "%s%s", k++ ? ", " : "",
                         FIELDS[i].name);
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

static int on_key(load_state *s, const char *section, const char *name, const char *value)
{
    /* Entries are numbered ([entry 3]): a change of section name starts the next one. */
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
    for (size_t i = 0; i < NFIELDS; i++) {
        if (strcmp(name, FIELDS[i].name) != 0)
            continue;
        if (s->fields & (1u << i)) {
            snprintf(s->why, sizeof s->why, "key '%s' given twice in one entry", name);
            return 0;
        }
        if (!set((char *)e + FIELDS[i].off, FIELDS[i].size, value)) {
            snprintf(s->why, sizeof s->why, "key '%s': value longer than %zu characters", name, FIELDS[i].size - 1);
            return 0;
        }
        s->fields |= 1u << i;
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

static int walk_section(void *user, int line, const char *name, char *why, size_t whylen)
{
    (void)line, (void)why, (void)whylen;
    load_state *s = user;
    snprintf(s->walking, sizeof s->walking, "%s", name);
    return 0;
}

static int walk_key(void *user, int line, const char *key, const char *value, int continued, char *why,
                    size_t whylen)
{
    (void)line;
    load_state *s = user;
    if (continued) {
        snprintf(why, whylen, "key '%s': a value does not continue on an indented line here", key);
        return -1;
    }
    if (!on_key(s, s->walking, key, value)) {
        snprintf(why, whylen, "%s", s->why);
        return -1;
    }
    return 0;
}

int tune_cache_load(const char *path, tune_cache *c, char *err, size_t errlen)
{
    memset(c, 0, sizeof *c);
    if (!set(c->path, sizeof c->path, path)) {
        snprintf(err, errlen, "tuning cache path too long");
        return -1;
    }
    if (access(path, F_OK) != 0 && errno == ENOENT)
        return 0; /* no cache yet: every profile runs its own choice */
    load_state s;
    memset(&s, 0, sizeof s);
    s.c = c;
    static const ini_walk_ops ops = {walk_section, walk_key};
    /* the one INI reader: a regular file, bounded, BOM and bytes checked, errors as path:line */
    if (ini_walk(path, &ops, &s, 0, err, errlen) != 0) {
        tune_cache_free(c);
        return -1;
    }
    if (!close_entry(&s)) { /* the last entry was incomplete: no line to name but the end */
        snprintf(err, errlen, "%s: at the end: %s", path, s.why);
        tune_cache_free(c);
        return -1;
    }
    return 0;
}

static int same_key(const tune_key *a, const tune_key *b)
{
    const size_t base = offsetof(tune_entry, key); /* an in_key field's offset less this: in tune_key */
    for (size_t i = 0; i < NFIELDS; i++)
        if (FIELDS[i].in_key &&
            strcmp((const char *)a + FIELDS[i].off - base, (const char *)b + FIELDS[i].off - base) != 0)
            return 0;
    return 1;
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
    for (size_t i = 0; i < NFIELDS; i++)
        if (!storable(field_in(e, i))) {
            snprintf(err, errlen, "tuning cache: %s '%s' cannot be stored (a control character, [, ], or a blank before ; or #)",
                     FIELDS[i].name, field_in(e, i));
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
        fprintf(f, "\n[entry %d]\n", i + 1);
        for (size_t k = 0; k < NFIELDS; k++)
            if (!FIELDS[k].optional)
                fprintf(f, "%s = %s\n", FIELDS[k].name, field_in(e, k));
        if (e->median_ms > 0)
            fprintf(f, "median_ms = %.6g\n", e->median_ms);
        for (size_t k = 0; k < NFIELDS; k++)
            if (FIELDS[k].optional && field_in(e, k)[0])
                fprintf(f, "%s = %s\n", FIELDS[k].name, field_in(e, k));
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
