/* The case model: what each key of [defaults] and [case NAME] means, and what a case takes from
 * [defaults]. Values are read by ini_values.c; the file and its sections by ini_config.c.
 */
#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/ini_config_internal.h"
#include "host/dtype.h"

/* The place of a key's CFG_SET_ bit: its index in cfg_case.key_line. */
static int key_index(unsigned bit)
{
    int i = 0;
    while (bit > 1) {
        bit >>= 1;
        i++;
    }
    return i;
}

/* The keys a case has by their own names, with their CFG_SET_ bits. */
static const struct {
    const char *name;
    unsigned bit;
} case_keys[] = {
    {"shape", CFG_SET_SHAPE},         {"dtypes", CFG_SET_DTYPES},       {"profiles", CFG_SET_PROFILES},
    {"warmup", CFG_SET_WARMUP},       {"min_reps", CFG_SET_MIN_REPS},   {"max_reps", CFG_SET_MAX_REPS},
    {"precision", CFG_SET_PRECISION}, {"budget_ms", CFG_SET_BUDGET},    {"steps", CFG_SET_STEPS},
    {"config", CFG_SET_CONFIG},
};

/* A known key's bit, 0 for any other name. */
static unsigned key_bit(const char *key)
{
    for (size_t i = 0; i < sizeof case_keys / sizeof case_keys[0]; i++)
        if (strcmp(case_keys[i].name, key) == 0)
            return case_keys[i].bit;
    return 0;
}

const char *cfg_case_key_name(int i)
{
    return i >= 0 && (size_t)i < sizeof case_keys / sizeof case_keys[0] ? case_keys[i].name : NULL;
}

/* param.NAME and dim.NAME: the keys a case gives by name, each kept with its value and line in
   parallel arrays of cfg_case. One description of each list, so finding, storing and inheriting a
   named key are written once for both. */
typedef struct named_list {
    size_t n, key, val, line; /* offsets in cfg_case */
    size_t key_size, val_size;
    int max;
    const char *plural; /* in "more than N <plural>" */
} named_list;

#define CASE_FIELD_SIZE(f) sizeof(((cfg_case *)0)->f)

static const named_list PARAMS = {
    offsetof(cfg_case, nparams), offsetof(cfg_case, param_key), offsetof(cfg_case, param_val),
    offsetof(cfg_case, param_line), CASE_FIELD_SIZE(param_key[0]), CASE_FIELD_SIZE(param_val[0]),
    CFG_MAX_PARAMS, "parameters",
};
static const named_list DIMS = {
    offsetof(cfg_case, ndims_named), offsetof(cfg_case, dim_key), offsetof(cfg_case, dim_val),
    offsetof(cfg_case, dim_line), CASE_FIELD_SIZE(dim_key[0]), CASE_FIELD_SIZE(dim_val[0]),
    CFG_MAX_DIMS, "dimensions",
};

static int named_count(const named_list *l, const cfg_case *c)
{
    return *(const int *)((const char *)c + l->n);
}

static const char *named_key(const named_list *l, const cfg_case *c, int i)
{
    return (const char *)c + l->key + (size_t)i * l->key_size;
}

static int named_has(const named_list *l, const cfg_case *c, const char *name)
{
    for (int i = 0; i < named_count(l, c); i++)
        if (strcmp(named_key(l, c, i), name) == 0)
            return 1;
    return 0;
}

/* Whether `key` (its NAME part `name`) may still be added to c: not given before and room left.
   Returns 0, or -1 (reported). */
static int named_room(parse_state *ps, const named_list *l, const cfg_case *c, const char *key,
                      const char *name)
{
    if (named_has(l, c, name)) {
        cfg_fail(ps, "[%s] key '%s' given twice", ps->section, key);
        return -1;
    }
    if (named_count(l, c) == l->max) {
        cfg_fail(ps, "[%s] key '%s': more than %d %s", ps->section, key, l->max, l->plural);
        return -1;
    }
    return 0;
}

/* Appends name with the val_size bytes at val, written at `line`. Returns 0, or -1 when full. */
static int named_put(const named_list *l, cfg_case *c, const char *name, const void *val, int line)
{
    int *n = (int *)((char *)c + l->n);
    if (*n == l->max)
        return -1;
    snprintf((char *)c + l->key + (size_t)*n * l->key_size, l->key_size, "%s", name);
    memcpy((char *)c + l->val + (size_t)*n * l->val_size, val, l->val_size);
    ((int *)((char *)c + l->line))[*n] = line;
    (*n)++;
    return 0;
}

/* Adds to c each of d's keys that c does not give itself, with [defaults]' line. Returns 0, or -1
   when they do not all fit. */
static int named_inherit(const named_list *l, cfg_case *c, const cfg_case *d)
{
    for (int i = 0; i < named_count(l, d); i++) {
        const char *name = named_key(l, d, i);
        const int *line = (const int *)((const char *)d + l->line);
        if (!named_has(l, c, name) &&
            named_put(l, c, name, (const char *)d + l->val + (size_t)i * l->val_size, line[i]) != 0)
            return -1;
    }
    return 0;
}

/* param.NAME = text: a plugin-specific value, passed on as written. */
static void param_key(parse_state *ps, cfg_case *c, const char *key, const char *v)
{
    const char *name = key + 6;
    if (!cfg_valid_name(name)) {
        cfg_fail(ps, "[%s] key '%s': a parameter needs a name after 'param.'", ps->section, key);
        return;
    }
    if (cfg_too_long(ps, key, "the parameter's name", name, sizeof c->param_key[0]) ||
        cfg_too_long(ps, key, "the value", v, sizeof c->param_val[0]))
        return;
    if (named_room(ps, &PARAMS, c, key, name) != 0)
        return;
    char val[sizeof c->param_val[0]] = "";
    snprintf(val, sizeof val, "%s", v);
    named_put(&PARAMS, c, name, val, ps->line);
}

/* dim.NAME = N: a dimension of the case by name (dim.m = 4096), for plugins that take their sizes
   that way rather than as one shape. */
static void dim_key(parse_state *ps, cfg_case *c, const char *key, const char *v)
{
    const char *name = key + 4;
    int ok = *name >= 'a' && *name <= 'z';
    for (const char *q = name; ok && *q; q++)
        ok = cfg_lower_or_digit(*q) || *q == '_';
    if (!ok) {
        cfg_fail(ps, "[%s] key '%s': a dimension is dim.NAME, NAME of a-z, 0-9 and _ starting with a letter",
             ps->section, key);
        return;
    }
    if (cfg_too_long(ps, key, "the dimension's name", name, sizeof c->dim_key[0]))
        return;
    if (named_room(ps, &DIMS, c, key, name) != 0)
        return;
    char *end;
    errno = 0;
    long long x = strtoll(v, &end, 10);
    if (!isdigit((unsigned char)*v) || *end) {
        cfg_fail(ps, "[%s] key '%s': '%s' is not a whole number", ps->section, key, v);
        return;
    }
    if (errno || x < 1 || x > (1LL << 40)) {
        cfg_fail(ps, "[%s] key '%s': %s is outside 1..2^40", ps->section, key, v);
        return;
    }
    int64_t val = x;
    named_put(&DIMS, c, name, &val, ps->line);
}

/* config = bm=128,bn=256,stages=4: one tuning configuration, passed on as written. */
static void config_value(parse_state *ps, cfg_case *c, const char *key, const char *v)
{
    if (cfg_too_long(ps, key, "the configuration", v, sizeof c->config))
        return;
    int ok = *v != 0;
    for (const char *q = v; ok && *q; q++)
        ok = cfg_lower_or_digit(*q) || strchr("_=,.", *q);
    if (!ok) {
        cfg_fail(ps, "[%s] key '%s': '%s' is not a configuration like bm=128,bn=256 (a-z 0-9 _ = , . only)",
             ps->section, key, v);
        return;
    }
    snprintf(c->config, sizeof c->config, "%s", v);
}

void cfg_case_key(parse_state *ps, cfg_case *c, const char *key, const char *value)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s", value);
    char *v = cfg_trim(buf);
    char *items[CFG_MAX_LIST];
    unsigned bit = 0;

    if (strncmp(key, "param.", 6) == 0) {
        param_key(ps, c, key, v);
        return;
    }
    if (strncmp(key, "dim.", 4) == 0) {
        dim_key(ps, c, key, v);
        return;
    }

    if (strcmp(key, "noise") == 0) {
        cfg_fail(ps, "'noise' was replaced by 'precision' (the 95 %% interval's half-width over the median)");
        return;
    }
    bit = key_bit(key);
    if (!bit) {
        cfg_fail(ps, "[%s] unknown key '%s' (known: shape, dtypes, profiles, warmup, min_reps, max_reps, "
                 "precision, budget_ms, steps, config, param.NAME, dim.NAME)",
             ps->section, key);
        return;
    }
    if (c->set & bit) {
        cfg_fail(ps, "[%s] key '%s' given twice (an indented line continues the key above it)",
             ps->section, key);
        return;
    }
    c->set |= bit;
    c->key_line[key_index(bit)] = ps->line;

    switch (bit) {
    case CFG_SET_SHAPE: {
        if (c == &ps->e->defaults) {
            cfg_fail(ps, "[%s] key 'shape' belongs in a [case NAME] section", ps->section);
            return;
        }
        if (cfg_too_long(ps, key, "the shape", v, sizeof c->shape))
            return;
        char why[256];
        int rank = cfg_parse_shape(v, c->dims, why, sizeof why);
        if (rank < 0) {
            cfg_fail(ps, "[%s] key 'shape': %s", ps->section, why);
            return;
        }
        c->rank = rank;
        snprintf(c->shape, sizeof c->shape, "%s", v);
        break;
    }
    case CFG_SET_DTYPES: {
        int n = cfg_split_list(ps, key, v, items, CFG_MAX_LIST);
        if (n < 0)
            return;
        c->ndtypes = 0;
        for (int i = 0; i < n; i++) {
            int d = dtype_parse(items[i]);
            if (d < 0) {
                cfg_fail(ps, "[%s] key 'dtypes': unknown dtype '%s' (known: " DTYPE_KNOWN ")", ps->section,
                     items[i]);
                return;
            }
            for (int j = 0; j < c->ndtypes; j++)
                if (c->dtypes[j] == (klab_dtype)d) {
                    cfg_fail(ps, "[%s] key 'dtypes': '%s' listed twice", ps->section, items[i]);
                    return;
                }
            c->dtypes[c->ndtypes++] = (klab_dtype)d;
        }
        break;
    }
    case CFG_SET_PROFILES: {
        int n = cfg_split_list(ps, key, v, items, CFG_MAX_LIST);
        if (n < 0)
            return;
        for (int i = 0; i < n; i++) {
            if (!cfg_valid_name(items[i])) {
                cfg_fail(ps, "[%s] key 'profiles': '%s' is not a profile name", ps->section, items[i]);
                return;
            }
            if (cfg_too_long(ps, key, "a profile name", items[i], sizeof c->profiles[0]))
                return;
            for (int j = 0; j < i; j++)
                if (strcmp(c->profiles[j], items[i]) == 0) {
                    cfg_fail(ps, "[%s] key 'profiles': '%s' listed twice", ps->section, items[i]);
                    return;
                }
            snprintf(c->profiles[i], CFG_NAME, "%s", items[i]);
        }
        c->nprofiles = n;
        break;
    }
    case CFG_SET_WARMUP: cfg_parse_int(ps, key, v, 0, 100000, &c->warmup); break;
    case CFG_SET_MIN_REPS: cfg_parse_int(ps, key, v, 1, 1000000, &c->stop.min_reps); break;
    case CFG_SET_MAX_REPS: cfg_parse_int(ps, key, v, 1, 1000000, &c->stop.max_reps); break;
    case CFG_SET_PRECISION: /* (0, 1): a half-width of the whole median says nothing */
        if (cfg_parse_double(ps, key, v, 0, 1, &c->stop.precision) == 0 && c->stop.precision >= 1)
            cfg_fail(ps, "[%s] key '%s': %g is outside (0, 1)", ps->section, key, c->stop.precision);
        break;
    case CFG_SET_BUDGET: cfg_parse_double(ps, key, v, 0, 3600e3, &c->stop.budget_ms); break;
    case CFG_SET_STEPS: cfg_parse_int(ps, key, v, 1, 1000000, &c->steps); break;
    case CFG_SET_CONFIG: config_value(ps, c, key, v); break;
    default: break;
    }
}

int cfg_case_set(cfg_experiment *e, cfg_case *c, const char *key, const char *value, int line, char *err,
                 size_t errlen)
{
    parse_state ps;
    memset(&ps, 0, sizeof ps);
    ps.e = e;
    ps.line = line;
    ps.kind = SEC_CASE;
    ps.cur = c;
    snprintf(ps.section, sizeof ps.section, "case %s", c->name);
    cfg_case_key(&ps, c, key, value);
    if (!ps.failed)
        return 0;
    snprintf(err, errlen, "%s", ps.err);
    return -1;
}

/* A case takes from [defaults] each key it does not give itself. Returns 0, or -1 (parameters) or
   -2 (dimensions) when its own and the inherited ones together are more than a case holds: never
   dropped silently. */
int cfg_inherit(cfg_case *c, const cfg_case *d)
{
    if (!(c->set & CFG_SET_DTYPES)) {
        c->ndtypes = d->ndtypes;
        memcpy(c->dtypes, d->dtypes, sizeof c->dtypes);
    }
    if (!(c->set & CFG_SET_PROFILES)) {
        c->nprofiles = d->nprofiles;
        memcpy(c->profiles, d->profiles, sizeof c->profiles);
    }
    if (!(c->set & CFG_SET_WARMUP)) c->warmup = d->warmup;
    if (!(c->set & CFG_SET_MIN_REPS)) c->stop.min_reps = d->stop.min_reps;
    if (!(c->set & CFG_SET_MAX_REPS)) c->stop.max_reps = d->stop.max_reps;
    if (!(c->set & CFG_SET_PRECISION)) c->stop.precision = d->stop.precision;
    if (!(c->set & CFG_SET_BUDGET)) c->stop.budget_ms = d->stop.budget_ms;
    if (!(c->set & CFG_SET_STEPS))
        c->steps = d->steps;
    if (!(c->set & CFG_SET_CONFIG))
        memcpy(c->config, d->config, sizeof c->config);
    for (int b = 0; b < CFG_MAX_KEYS; b++)
        if (!(c->set & (1u << b)))
            c->key_line[b] = d->key_line[b]; /* errors about an inherited key name [defaults]' line */
    if (named_inherit(&PARAMS, c, d) != 0)
        return -1;
    if (named_inherit(&DIMS, c, d) != 0)
        return -2;
    return 0;
}

int cfg_case_key_line(const cfg_case *c, const char *key)
{
    const named_list *l = strncmp(key, "param.", 6) == 0 ? &PARAMS : strncmp(key, "dim.", 4) == 0 ? &DIMS : NULL;
    if (l) {
        const char *name = strchr(key, '.') + 1;
        for (int i = 0; i < named_count(l, c); i++)
            if (strcmp(named_key(l, c, i), name) == 0)
                return ((const int *)((const char *)c + l->line))[i];
        return 0;
    }
    unsigned bit = key_bit(key);
    return bit ? c->key_line[key_index(bit)] : 0;
}

/* Where key `bit` of case c was written: its line, and its section ("case NAME" or "defaults") in
   sec; 0 when the file gives it nowhere (the built-in default). */
int cfg_key_where(const cfg_case *c, unsigned bit, char *sec, size_t len)
{
    if (c->set & bit)
        snprintf(sec, len, "case %s", c->name);
    else
        snprintf(sec, len, "defaults");
    return c->key_line[key_index(bit)];
}
