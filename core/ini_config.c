#include "ini_config.h"

#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "ini_source.h"

enum {
    CFG_SET_SHAPE = 1u << 0,
    CFG_SET_DTYPES = 1u << 1,
    CFG_SET_PROFILES = 1u << 2,
    CFG_SET_WARMUP = 1u << 3,
    CFG_SET_MIN_REPS = 1u << 4,
    CFG_SET_MAX_REPS = 1u << 5,
    CFG_SET_PRECISION = 1u << 6,
    CFG_SET_BUDGET = 1u << 7,
    CFG_SET_STEPS = 1u << 8,
    CFG_SET_CONFIG = 1u << 9,
};

/* Longest line accepted; inih's own buffer (INI_MAX_LINE, 200 in Debian's build) must hold it and
   its line ending, and a longer line must be an error on that line rather than a silently cut value. */
#define CFG_MAX_LINE 196

enum section_kind { SEC_NONE, SEC_EXPERIMENT, SEC_DEFAULTS, SEC_CASE, SEC_UNKNOWN };

typedef struct parse_state {
    cfg_experiment *e;
    ini_source src;
    int line;
    enum section_kind kind;
    cfg_case *cur; /* the section keys go to: defaults or a case */
    char section[CFG_MAX_LINE + 1];
    unsigned seen_experiment_keys;
    char err[1024];
    int failed;
} parse_state;

static void fail(parse_state *ps, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void fail(parse_state *ps, const char *fmt, ...)
{
    if (ps->failed)
        return; /* the first error is the one to fix first */
    ps->failed = 1;
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(ps->err, sizeof ps->err, "%s:%d: %s", ps->e->path, ps->line, msg);
}

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    char *end = s + strlen(s);
    while (end > s && isspace((unsigned char)end[-1]))
        *--end = 0;
    return s;
}

static int valid_name(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (!(isalnum((unsigned char)*s) || *s == '_' || *s == '-' || *s == '.' || *s == '^'))
            return 0;
    return 1;
}

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

/* A value longer than its buffer is refused, never cut: a cut name could make two cases one, a cut
   value would run something the file does not say. Returns 1 (reported) when it does not fit. */
static int too_long(parse_state *ps, const char *key, const char *what, const char *v, size_t cap)
{
    size_t n = strlen(v);
    if (n < cap)
        return 0;
    fail(ps, "[%s] key '%s': %s is %zu characters; the limit is %zu", ps->section, key, what, n, cap - 1);
    return 1;
}

static int lower_or_digit(char ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9');
}

int cfg_parse_shape(const char *s, int64_t dims[KLAB_MAX_RANK], char *why, size_t whylen)
{
    int rank = 0;
    const char *p = s;
    double total = 1;
    if (!*p) {
        snprintf(why, whylen, "empty shape");
        return -1;
    }
    while (*p) {
        if (rank == KLAB_MAX_RANK) {
            snprintf(why, whylen, "'%s' has more than %d dimensions", s, KLAB_MAX_RANK);
            return -1;
        }
        if (!isdigit((unsigned char)*p)) {
            snprintf(why, whylen, "'%s' is not a shape like 4096x8192 or 2^28", s);
            return -1;
        }
        errno = 0;
        char *end;
        long long v = strtoll(p, &end, 10);
        if (*end == '^') {
            /* the exponent must be digits: strtoll alone would read "2^" as 2^0 and skip a sign */
            long long e = isdigit((unsigned char)end[1]) ? strtoll(end + 1, &end, 10) : -1;
            if (v != 2 || e < 0 || e > 40) {
                snprintf(why, whylen, "'%s': only powers of two up to 2^40 are written with ^", s);
                return -1;
            }
            v = 1LL << e;
        }
        if (errno || v <= 0) {
            snprintf(why, whylen, "'%s': dimensions must be positive whole numbers", s);
            return -1;
        }
        dims[rank++] = v;
        total *= (double)v;
        p = end;
        if (*p == 'x' || *p == 'X') {
            p++;
            if (!*p) {
                snprintf(why, whylen, "'%s' ends with 'x'", s);
                return -1;
            }
        } else if (*p) {
            snprintf(why, whylen, "'%s' is not a shape like 4096x8192 or 2^28", s);
            return -1;
        }
    }
    if (total > (double)(1LL << 40)) {
        snprintf(why, whylen, "'%s' has more than 2^40 elements", s);
        return -1;
    }
    for (int i = rank; i < KLAB_MAX_RANK; i++)
        dims[i] = 1;
    return rank;
}

static int parse_int(parse_state *ps, const char *key, const char *v, int lo, int hi, int *out)
{
    char *end;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (!*v || *trim(end) || errno) {
        fail(ps, "[%s] key '%s': '%s' is not a whole number", ps->section, key, v);
        return -1;
    }
    if (x < lo || x > hi) {
        fail(ps, "[%s] key '%s': %ld is outside %d..%d", ps->section, key, x, lo, hi);
        return -1;
    }
    *out = (int)x;
    return 0;
}

static int parse_double(parse_state *ps, const char *key, const char *v, double lo, double hi,
                        double *out)
{
    char *end;
    errno = 0;
    double x = strtod(v, &end);
    if (!*v || *trim(end) || errno || !isfinite(x)) {
        fail(ps, "[%s] key '%s': '%s' is not a number", ps->section, key, v);
        return -1;
    }
    if (x <= lo || x > hi) {
        fail(ps, "[%s] key '%s': %g is outside (%g, %g]", ps->section, key, x, lo, hi);
        return -1;
    }
    *out = x;
    return 0;
}

/* Splits a comma list in place; returns the count, or -1 (reported) if empty or too long. */
static int split_list(parse_state *ps, const char *key, char *v, char **items, int max)
{
    int n = 0;
    if (!*v) {
        fail(ps, "[%s] key '%s': empty list", ps->section, key);
        return -1;
    }
    /* split at every comma: strtok would merge "a,,b" into "a,b". A trailing comma stays allowed, so
       "a,\n    b" gets the continuation-line error on the line that needs it. */
    for (char *tok = v, *next; tok; tok = next) {
        next = strchr(tok, ',');
        if (next)
            *next++ = 0;
        tok = trim(tok);
        if (!*tok && !next && n > 0)
            break;
        if (!*tok) {
            fail(ps, "[%s] key '%s': empty item in the list", ps->section, key);
            return -1;
        }
        if (n == max) {
            fail(ps, "[%s] key '%s': more than %d items", ps->section, key, max);
            return -1;
        }
        items[n++] = tok;
    }
    return n;
}

/* dim.NAME = N: a dimension of the case by name (dim.m = 4096), for plugins that take their sizes
   that way rather than as one shape. */
static void dim_key(parse_state *ps, cfg_case *c, const char *key, const char *v)
{
    const char *name = key + 4;
    int ok = *name >= 'a' && *name <= 'z';
    for (const char *q = name; ok && *q; q++)
        ok = lower_or_digit(*q) || *q == '_';
    if (!ok) {
        fail(ps, "[%s] key '%s': a dimension is dim.NAME, NAME of a-z, 0-9 and _ starting with a letter",
             ps->section, key);
        return;
    }
    if (too_long(ps, key, "the dimension's name", name, sizeof c->dim_key[0]))
        return;
    for (int i = 0; i < c->ndims_named; i++)
        if (strcmp(c->dim_key[i], name) == 0) {
            fail(ps, "[%s] key '%s' given twice", ps->section, key);
            return;
        }
    if (c->ndims_named == CFG_MAX_DIMS) {
        fail(ps, "[%s] key '%s': more than %d dimensions", ps->section, key, CFG_MAX_DIMS);
        return;
    }
    char *end;
    errno = 0;
    long long x = strtoll(v, &end, 10);
    if (!isdigit((unsigned char)*v) || *end) {
        fail(ps, "[%s] key '%s': '%s' is not a whole number", ps->section, key, v);
        return;
    }
    if (errno || x < 1 || x > (1LL << 40)) {
        fail(ps, "[%s] key '%s': %s is outside 1..2^40", ps->section, key, v);
        return;
    }
    snprintf(c->dim_key[c->ndims_named], sizeof c->dim_key[0], "%s", name);
    c->dim_val[c->ndims_named] = x;
    c->dim_line[c->ndims_named] = ps->line;
    c->ndims_named++;
}

/* config = bm=128,bn=256,stages=4: one tuning configuration, passed on as written. */
static void config_value(parse_state *ps, cfg_case *c, const char *key, const char *v)
{
    if (too_long(ps, key, "the configuration", v, sizeof c->config))
        return;
    int ok = *v != 0;
    for (const char *q = v; ok && *q; q++)
        ok = lower_or_digit(*q) || strchr("_=,.", *q);
    if (!ok) {
        fail(ps, "[%s] key '%s': '%s' is not a configuration like bm=128,bn=256 (a-z 0-9 _ = , . only)",
             ps->section, key, v);
        return;
    }
    snprintf(c->config, sizeof c->config, "%s", v);
}

static void case_key(parse_state *ps, cfg_case *c, const char *key, const char *value)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s", value);
    char *v = trim(buf);
    char *items[CFG_MAX_LIST];
    unsigned bit = 0;

    if (strncmp(key, "param.", 6) == 0) {
        const char *pk = key + 6;
        if (!valid_name(pk)) {
            fail(ps, "[%s] key '%s': a parameter needs a name after 'param.'", ps->section, key);
            return;
        }
        if (too_long(ps, key, "the parameter's name", pk, sizeof c->param_key[0]) ||
            too_long(ps, key, "the value", v, sizeof c->param_val[0]))
            return;
        for (int i = 0; i < c->nparams; i++)
            if (strcmp(c->param_key[i], pk) == 0) {
                fail(ps, "[%s] key '%s' given twice", ps->section, key);
                return;
            }
        if (c->nparams == CFG_MAX_PARAMS) {
            fail(ps, "[%s] key '%s': more than %d parameters", ps->section, key, CFG_MAX_PARAMS);
            return;
        }
        snprintf(c->param_key[c->nparams], CFG_NAME, "%s", pk);
        snprintf(c->param_val[c->nparams], sizeof c->param_val[0], "%s", v);
        c->param_line[c->nparams] = ps->line;
        c->nparams++;
        return;
    }
    if (strncmp(key, "dim.", 4) == 0) {
        dim_key(ps, c, key, v);
        return;
    }

    if (strcmp(key, "shape") == 0) {
        bit = CFG_SET_SHAPE;
    } else if (strcmp(key, "dtypes") == 0) {
        bit = CFG_SET_DTYPES;
    } else if (strcmp(key, "profiles") == 0) {
        bit = CFG_SET_PROFILES;
    } else if (strcmp(key, "warmup") == 0) {
        bit = CFG_SET_WARMUP;
    } else if (strcmp(key, "min_reps") == 0) {
        bit = CFG_SET_MIN_REPS;
    } else if (strcmp(key, "max_reps") == 0) {
        bit = CFG_SET_MAX_REPS;
    } else if (strcmp(key, "precision") == 0) {
        bit = CFG_SET_PRECISION;
    } else if (strcmp(key, "noise") == 0) {
        fail(ps, "'noise' was replaced by 'precision' (the 95 %% interval's half-width over the median)");
        return;
    } else if (strcmp(key, "budget_ms") == 0) {
        bit = CFG_SET_BUDGET;
    } else if (strcmp(key, "steps") == 0) {
        bit = CFG_SET_STEPS;
    } else if (strcmp(key, "config") == 0) {
        bit = CFG_SET_CONFIG;
    } else {
        fail(ps, "[%s] unknown key '%s' (known: shape, dtypes, profiles, warmup, min_reps, max_reps, "
                 "precision, budget_ms, steps, config, param.NAME, dim.NAME)",
             ps->section, key);
        return;
    }
    if (c->set & bit) {
        fail(ps, "[%s] key '%s' given twice (an indented line continues the key above it)",
             ps->section, key);
        return;
    }
    c->set |= bit;
    c->key_line[key_index(bit)] = ps->line;

    switch (bit) {
    case CFG_SET_SHAPE: {
        if (c == &ps->e->defaults) {
            fail(ps, "[%s] key 'shape' belongs in a [case NAME] section", ps->section);
            return;
        }
        if (too_long(ps, key, "the shape", v, sizeof c->shape))
            return;
        char why[256];
        int rank = cfg_parse_shape(v, c->dims, why, sizeof why);
        if (rank < 0) {
            fail(ps, "[%s] key 'shape': %s", ps->section, why);
            return;
        }
        c->rank = rank;
        snprintf(c->shape, sizeof c->shape, "%s", v);
        break;
    }
    case CFG_SET_DTYPES: {
        int n = split_list(ps, key, v, items, CFG_MAX_LIST);
        if (n < 0)
            return;
        c->ndtypes = 0;
        for (int i = 0; i < n; i++) {
            int d = dtype_parse(items[i]);
            if (d < 0) {
                fail(ps, "[%s] key 'dtypes': unknown dtype '%s' (known: fp32, fp16, bf16)", ps->section,
                     items[i]);
                return;
            }
            for (int j = 0; j < c->ndtypes; j++)
                if (c->dtypes[j] == (klab_dtype)d) {
                    fail(ps, "[%s] key 'dtypes': '%s' listed twice", ps->section, items[i]);
                    return;
                }
            c->dtypes[c->ndtypes++] = (klab_dtype)d;
        }
        break;
    }
    case CFG_SET_PROFILES: {
        int n = split_list(ps, key, v, items, CFG_MAX_LIST);
        if (n < 0)
            return;
        for (int i = 0; i < n; i++) {
            if (!valid_name(items[i])) {
                fail(ps, "[%s] key 'profiles': '%s' is not a profile name", ps->section, items[i]);
                return;
            }
            if (too_long(ps, key, "a profile name", items[i], sizeof c->profiles[0]))
                return;
            for (int j = 0; j < i; j++)
                if (strcmp(c->profiles[j], items[i]) == 0) {
                    fail(ps, "[%s] key 'profiles': '%s' listed twice", ps->section, items[i]);
                    return;
                }
            snprintf(c->profiles[i], CFG_NAME, "%s", items[i]);
        }
        c->nprofiles = n;
        break;
    }
    case CFG_SET_WARMUP: parse_int(ps, key, v, 0, 100000, &c->warmup); break;
    case CFG_SET_MIN_REPS: parse_int(ps, key, v, 1, 1000000, &c->stop.min_reps); break;
    case CFG_SET_MAX_REPS: parse_int(ps, key, v, 1, 1000000, &c->stop.max_reps); break;
    case CFG_SET_PRECISION: /* (0, 1): a half-width of the whole median says nothing */
        if (parse_double(ps, key, v, 0, 1, &c->stop.precision) == 0 && c->stop.precision >= 1)
            fail(ps, "[%s] key '%s': %g is outside (0, 1)", ps->section, key, c->stop.precision);
        break;
    case CFG_SET_BUDGET: parse_double(ps, key, v, 0, 3600e3, &c->stop.budget_ms); break;
    case CFG_SET_STEPS: parse_int(ps, key, v, 1, 1000000, &c->steps); break;
    case CFG_SET_CONFIG: config_value(ps, c, key, v); break;
    default: break;
    }
}

static void begin_section(parse_state *ps, const char *name)
{
    snprintf(ps->section, sizeof ps->section, "%s", name);
    ps->cur = NULL;
    if (strcmp(name, "experiment") == 0) {
        ps->kind = SEC_EXPERIMENT;
    } else if (strcmp(name, "defaults") == 0) {
        ps->kind = SEC_DEFAULTS;
        ps->cur = &ps->e->defaults;
    } else if (strncmp(name, "case ", 5) == 0 || strcmp(name, "case") == 0) {
        ps->kind = SEC_CASE;
        char nm[CFG_MAX_LINE + 1];
        snprintf(nm, sizeof nm, "%s", name + (name[4] ? 5 : 4));
        char *cname = trim(nm);
        if (!valid_name(cname)) {
            fail(ps, "[%s]: a case section is [case NAME], NAME of letters, digits and _ - . ^", name);
            ps->kind = SEC_UNKNOWN;
            return;
        }
        if (strlen(cname) >= CFG_NAME) {
            fail(ps, "[%s]: case name is %zu characters; the limit is %d", name, strlen(cname), CFG_NAME - 1);
            ps->kind = SEC_UNKNOWN;
            return;
        }
        for (int i = 0; i < ps->e->ncases; i++)
            if (strcmp(ps->e->cases[i].name, cname) == 0) {
                fail(ps, "[%s]: case '%s' defined twice (first at line %d)", name, cname,
                     ps->e->cases[i].line);
                ps->kind = SEC_UNKNOWN;
                return;
            }
        if (ps->e->ncases == CFG_MAX_CASES) {
            fail(ps, "[%s]: more than %d cases in one file", name, CFG_MAX_CASES);
            ps->kind = SEC_UNKNOWN;
            return;
        }
        cfg_case *c = &ps->e->cases[ps->e->ncases++];
        memset(c, 0, sizeof *c);
        snprintf(c->name, sizeof c->name, "%s", cname);
        c->line = ps->line;
        ps->cur = c;
    } else {
        ps->kind = SEC_UNKNOWN;
        fail(ps, "unknown section [%s] (known: [experiment], [defaults], [case NAME])", name);
    }
}

/* Reports the bad byte at `at` with where it stands: the key whose value holds it, if any. */
static void fail_bad_byte(parse_state *ps, const char *line, long at)
{
    char what[32], where[CFG_MAX_LINE + 8] = "";
    const char *why = ini_source_byte_name((unsigned char)line[at], what, sizeof what);
    if (ps->kind != SEC_NONE)
        snprintf(where, sizeof where, "[%s] ", ps->section);
    long i = 0;
    while (i < at && (line[i] == ' ' || line[i] == '\t'))
        i++;
    long sep = i;
    while (sep < at && line[sep] != '=' && line[sep] != ':')
        sep++;
    if (i < at && line[i] == '[') {
        fail(ps, "%s in a section header%s", what, why);
    } else if (i < at && (line[i] == ';' || line[i] == '#')) {
        fail(ps, "%s in a comment%s", what, why);
    } else if (sep < at) {
        char key[CFG_MAX_LINE + 1];
        snprintf(key, sizeof key, "%.*s", (int)(sep - i), line + i);
        fail(ps, "%skey '%s': %s in the value%s", where, trim(key), what, why);
    } else {
        fail(ps, "%s%s before the '=' of a key%s", where, what, why);
    }
}

/* inih hands lines through this reader, so the parser always knows the line it is on (Debian's
   inih is built without INI_HANDLER_LINENO), sees every section header, empty ones included (inih
   only reports keys), and checks every byte of a line before inih reads it as a C string: an
   over-long line is an error on that line rather than a silently cut value. */
static char *reader(char *str, int num, void *stream)
{
    parse_state *ps = stream;
    if (ps->failed)
        return NULL; /* the first error is the one reported: read no further */
    char line[CFG_MAX_LINE + 1];
    long n = ini_source_line(&ps->src, line, sizeof line);
    if (n < 0)
        return NULL;
    ps->line++;
    if (n > CFG_MAX_LINE || n >= num) {
        fail(ps, "line longer than %d characters", CFG_MAX_LINE);
        return NULL;
    }
    long bad = ini_source_bad_byte(line, n);
    if (bad >= 0) {
        fail_bad_byte(ps, line, bad);
        return NULL;
    }
    memcpy(str, line, (size_t)n + 1);
    char tmp[CFG_MAX_LINE + 1];
    memcpy(tmp, line, (size_t)n + 1);
    char *t = trim(tmp);
    if (*t == '[') {
        char *close = strchr(t, ']');
        if (!close) {
            fail(ps, "section header without ']'");
            ps->kind = SEC_UNKNOWN;
        } else {
            *close = 0;
            begin_section(ps, trim(t + 1));
        }
    }
    return str;
}

static int handler(void *user, const char *section, const char *name, const char *value)
{
    parse_state *ps = user;
    (void)section; /* the reader tracks sections itself, with their lines */
    if (ps->failed)
        return 1;
    switch (ps->kind) {
    case SEC_NONE:
        fail(ps, "key '%s' before any section (start with [experiment])", name);
        break;
    case SEC_UNKNOWN:
        break; /* already reported */
    case SEC_EXPERIMENT: {
        unsigned bit = 0;
        if (strcmp(name, "plugin") == 0) {
            bit = 1;
            if (!valid_name(value))
                fail(ps, "[experiment] key 'plugin': '%s' is not a plugin name", value);
            else
                too_long(ps, name, "the plugin name", value, sizeof ps->e->plugin);
            snprintf(ps->e->plugin, sizeof ps->e->plugin, "%s", value);
            ps->e->plugin_line = ps->line;
        } else if (strcmp(name, "question") == 0) {
            bit = 2;
            too_long(ps, name, "the question", value, sizeof ps->e->question);
            snprintf(ps->e->question, sizeof ps->e->question, "%s", value);
        } else {
            fail(ps, "[experiment] unknown key '%s' (known: plugin, question)", name);
        }
        if (bit && (ps->seen_experiment_keys & bit))
            fail(ps, "[experiment] key '%s' given twice", name);
        ps->seen_experiment_keys |= bit;
        break;
    }
    case SEC_DEFAULTS:
    case SEC_CASE:
        case_key(ps, ps->cur, name, value);
        break;
    }
    return 1; /* errors are ours to report, with the key: never let inih add a bare line number */
}

/* A case takes from [defaults] each key it does not give itself. Returns 0, or -1 (parameters) or
   -2 (dimensions) when its own and the inherited ones together are more than a case holds: never
   dropped silently. */
static int inherit(cfg_case *c, const cfg_case *d)
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
    for (int i = 0; i < d->nparams; i++) {
        int have = 0;
        for (int j = 0; j < c->nparams; j++)
            have |= strcmp(c->param_key[j], d->param_key[i]) == 0;
        if (!have) {
            if (c->nparams == CFG_MAX_PARAMS)
                return -1;
            snprintf(c->param_key[c->nparams], CFG_NAME, "%s", d->param_key[i]);
            snprintf(c->param_val[c->nparams], sizeof c->param_val[0], "%s", d->param_val[i]);
            c->param_line[c->nparams] = d->param_line[i];
            c->nparams++;
        }
    }
    if (!(c->set & CFG_SET_STEPS))
        c->steps = d->steps;
    if (!(c->set & CFG_SET_CONFIG))
        memcpy(c->config, d->config, sizeof c->config);
    for (int b = 0; b < CFG_MAX_KEYS; b++)
        if (!(c->set & (1u << b)))
            c->key_line[b] = d->key_line[b]; /* errors about an inherited key name [defaults]' line */
    for (int i = 0; i < d->ndims_named; i++) {
        int have = 0;
        for (int j = 0; j < c->ndims_named; j++)
            have |= strcmp(c->dim_key[j], d->dim_key[i]) == 0;
        if (!have) {
            if (c->ndims_named == CFG_MAX_DIMS)
                return -2;
            memcpy(c->dim_key[c->ndims_named], d->dim_key[i], sizeof c->dim_key[0]);
            c->dim_val[c->ndims_named] = d->dim_val[i];
            c->dim_line[c->ndims_named] = d->dim_line[i];
            c->ndims_named++;
        }
    }
    return 0;
}

/* Where key `bit` of case c was written: its line, and its section ("case NAME" or "defaults") in
   sec; 0 when the file gives it nowhere (the built-in default). */
static int key_where(const cfg_case *c, unsigned bit, char *sec, size_t len)
{
    if (c->set & bit)
        snprintf(sec, len, "case %s", c->name);
    else
        snprintf(sec, len, "defaults");
    return c->key_line[key_index(bit)];
}

int cfg_load(const char *path, cfg_experiment *e, char *err, size_t errlen)
{
    memset(e, 0, sizeof *e);
    snprintf(e->path, sizeof e->path, "%s", path);
    /* Defaults a file need not repeat; see docs/timing.md for why these. */
    cfg_case *d = &e->defaults;
    snprintf(d->name, sizeof d->name, "defaults");
    d->ndtypes = 1;
    d->dtypes[0] = KLAB_FP32;
    d->warmup = 10;
    d->stop.min_reps = 20;
    d->stop.max_reps = 5000;
    d->stop.precision = 0.005;
    d->stop.budget_ms = 1500;

    parse_state ps = {.e = e, .kind = SEC_NONE};
    if (ini_source_open(&ps.src, path, err, errlen) != 0)
        return -1;
    int rc = ini_parse_stream(reader, &ps, handler, &ps);
    ini_source_close(&ps.src);
    if (ps.failed) {
        snprintf(err, errlen, "%s", ps.err);
        return -1;
    }
    if (rc > 0) {
        snprintf(err, errlen, "%s:%d: syntax error: expected [section], key = value or a ; comment",
                 path, rc);
        return -1;
    }
    if (rc < 0) {
        snprintf(err, errlen, "%s: cannot read (inih error %d)", path, rc);
        return -1;
    }
    if (!e->plugin[0]) {
        snprintf(err, errlen, "%s: no plugin named: add [experiment] with plugin = NAME", path);
        return -1;
    }
    if (e->ncases == 0) {
        snprintf(err, errlen, "%s: no cases: add at least one [case NAME] section", path);
        return -1;
    }
    for (int i = 0; i < e->ncases; i++) {
        cfg_case *c = &e->cases[i];
        int over = inherit(c, d);
        if (over) {
            snprintf(err, errlen, "%s:%d: [case %s]: more than %d %s with those inherited from [defaults]",
                     path, c->line, c->name, over == -1 ? CFG_MAX_PARAMS : CFG_MAX_DIMS,
                     over == -1 ? "parameters" : "dimensions");
            return -1;
        }
        if (!(c->set & CFG_SET_SHAPE)) {
            char why[256];
            c->rank = cfg_parse_shape(c->name, c->dims, why, sizeof why);
            if (c->rank < 0 && c->ndims_named > 0) {
                /* sized by dim.NAME alone: no shape, rank 0 */
                c->rank = 0;
                for (int k = 0; k < KLAB_MAX_RANK; k++)
                    c->dims[k] = 1;
            } else if (c->rank < 0) {
                snprintf(err, errlen, "%s:%d: [case %s] has no key 'shape' and its name is not a shape",
                         path, c->line, c->name);
                return -1;
            } else {
                snprintf(c->shape, sizeof c->shape, "%s", c->name);
            }
        }
        if (c->stop.max_reps < c->stop.min_reps) {
            /* the later of the two lines is the one that made them disagree */
            char smax[CFG_NAME + 8], smin[CFG_NAME + 8];
            int lmax = key_where(c, CFG_SET_MAX_REPS, smax, sizeof smax);
            int lmin = key_where(c, CFG_SET_MIN_REPS, smin, sizeof smin);
            if (lmax >= lmin)
                snprintf(err, errlen, "%s:%d: [%s] key 'max_reps': %d is less than min_reps %d", path, lmax,
                         smax, c->stop.max_reps, c->stop.min_reps);
            else
                snprintf(err, errlen, "%s:%d: [%s] key 'min_reps': %d is more than max_reps %d", path, lmin,
                         smin, c->stop.min_reps, c->stop.max_reps);
            return -1;
        }
    }
    return 0;
}

/* "a, b, c" of a list, or "none". */
static void join(char *buf, size_t len, const char *const *names, int n)
{
    snprintf(buf, len, "%s", n ? "" : "none");
    for (int k = 0; k < n; k++)
        snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", k ? ", " : "", names[k]);
}

int cfg_check_plugin(const cfg_experiment *e, const char *const *profile_names, int nprofiles,
                     uint32_t dtypes, const char *const *params, const char *const *dims, char *err,
                     size_t errlen)
{
    for (int i = 0; i < e->ncases; i++) {
        const cfg_case *c = &e->cases[i];
        char sec[CFG_NAME + 8];
        for (int p = 0; p < c->nprofiles; p++) {
            int found = 0;
            for (int k = 0; k < nprofiles; k++)
                found |= strcmp(c->profiles[p], profile_names[k]) == 0;
            if (!found) {
                char known[512];
                join(known, sizeof known, profile_names, nprofiles);
                int line = key_where(c, CFG_SET_PROFILES, sec, sizeof sec);
                snprintf(err, errlen, "%s:%d: [%s] key 'profiles': plugin '%s' has no profile '%s' (it has: %s)",
                         e->path, line, sec, e->plugin, c->profiles[p], known);
                return -1;
            }
        }
        for (int k = 0; k < c->ndtypes; k++)
            if (!(dtypes & KLAB_DTYPE_BIT(c->dtypes[k]))) {
                int line = key_where(c, CFG_SET_DTYPES, sec, sizeof sec);
                if (line)
                    snprintf(err, errlen, "%s:%d: [%s] key 'dtypes': plugin '%s' does not support %s", e->path,
                             line, sec, e->plugin, dtype_name(c->dtypes[k]));
                else
                    snprintf(err, errlen, "%s:%d: [case %s] key 'dtypes' is not given, so %s: plugin '%s' "
                             "does not support it", e->path, c->line, c->name, dtype_name(c->dtypes[k]), e->plugin);
                return -1;
            }
        for (int k = 0; k < c->nparams; k++) {
            int found = 0;
            for (const char *const *q = params; q && *q; q++)
                found |= strcmp(*q, c->param_key[k]) == 0;
            if (!found) {
                snprintf(err, errlen, "%s:%d: key 'param.%s': plugin '%s' takes no such parameter",
                         e->path, c->param_line[k], c->param_key[k], e->plugin);
                return -1;
            }
        }
        for (int k = 0; k < c->ndims_named; k++) {
            int found = 0, n = 0;
            for (const char *const *q = dims; q && *q; q++, n++)
                found |= strcmp(*q, c->dim_key[k]) == 0;
            if (!found) {
                char known[512];
                join(known, sizeof known, dims, n);
                snprintf(err, errlen, "%s:%d: key 'dim.%s': plugin '%s' takes no dimension '%s' (it takes: %s)",
                         e->path, c->dim_line[k], c->dim_key[k], e->plugin, c->dim_key[k], known);
                return -1;
            }
        }
    }
    return 0;
}

long cfg_row_count(const cfg_experiment *e, int plugin_profiles)
{
    long n = 0;
    for (int i = 0; i < e->ncases; i++) {
        const cfg_case *c = &e->cases[i];
        n += (long)c->ndtypes * (c->nprofiles ? c->nprofiles : plugin_profiles);
    }
    return n;
}
