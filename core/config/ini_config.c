/* Reading an experiment's INI file: inih's line reader and handler, the sections with their lines,
 * the [experiment] keys, and cfg_load, which ends with the checks that need the whole file. The
 * case keys are ini_case.c's, their values ini_values.c's.
 */
#include "config/ini_config.h"

#include <ini.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "config/ini_config_internal.h"

void cfg_fail(parse_state *ps, const char *fmt, ...)
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
        char *cname = cfg_trim(nm);
        if (!cfg_valid_name(cname)) {
            cfg_fail(ps, "[%s]: a case section is [case NAME], NAME of letters, digits and _ - . ^", name);
            ps->kind = SEC_UNKNOWN;
            return;
        }
        if (strlen(cname) >= CFG_NAME) {
            cfg_fail(ps, "[%s]: case name is %zu characters; the limit is %d", name, strlen(cname), CFG_NAME - 1);
            ps->kind = SEC_UNKNOWN;
            return;
        }
        for (int i = 0; i < ps->e->ncases; i++)
            if (strcmp(ps->e->cases[i].name, cname) == 0) {
                cfg_fail(ps, "[%s]: case '%s' defined twice (first at line %d)", name, cname,
                     ps->e->cases[i].line);
                ps->kind = SEC_UNKNOWN;
                return;
            }
        if (ps->e->ncases == CFG_MAX_CASES) {
            cfg_fail(ps, "[%s]: more than %d cases in one file", name, CFG_MAX_CASES);
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
        cfg_fail(ps, "unknown section [%s] (known: [experiment], [defaults], [case NAME])", name);
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
        cfg_fail(ps, "%s in a section header%s", what, why);
    } else if (i < at && (line[i] == ';' || line[i] == '#')) {
        cfg_fail(ps, "%s in a comment%s", what, why);
    } else if (sep < at) {
        char key[CFG_MAX_LINE + 1];
        snprintf(key, sizeof key, "%.*s", (int)(sep - i), line + i);
        cfg_fail(ps, "%skey '%s': %s in the value%s", where, cfg_trim(key), what, why);
    } else {
        cfg_fail(ps, "%s%s before the '=' of a key%s", where, what, why);
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
        cfg_fail(ps, "line longer than %d characters", CFG_MAX_LINE);
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
    char *t = cfg_trim(tmp);
    if (*t == '[') {
        char *close = strchr(t, ']');
        if (!close) {
            cfg_fail(ps, "section header without ']'");
            ps->kind = SEC_UNKNOWN;
        } else {
            *close = 0;
            begin_section(ps, cfg_trim(t + 1));
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
        cfg_fail(ps, "key '%s' before any section (start with [experiment])", name);
        break;
    case SEC_UNKNOWN:
        break; /* already reported */
    case SEC_EXPERIMENT: {
        unsigned bit = 0;
        if (strcmp(name, "plugin") == 0) {
            bit = 1;
            if (!cfg_valid_name(value))
                cfg_fail(ps, "[experiment] key 'plugin': '%s' is not a plugin name", value);
            else
                cfg_too_long(ps, name, "the plugin name", value, sizeof ps->e->plugin);
            snprintf(ps->e->plugin, sizeof ps->e->plugin, "%s", value);
            ps->e->plugin_line = ps->line;
        } else if (strcmp(name, "question") == 0) {
            bit = 2;
            cfg_too_long(ps, name, "the question", value, sizeof ps->e->question);
            snprintf(ps->e->question, sizeof ps->e->question, "%s", value);
        } else {
            cfg_fail(ps, "[experiment] unknown key '%s' (known: plugin, question)", name);
        }
        if (bit && (ps->seen_experiment_keys & bit))
            cfg_fail(ps, "[experiment] key '%s' given twice", name);
        ps->seen_experiment_keys |= bit;
        break;
    }
    case SEC_DEFAULTS:
    case SEC_CASE:
        cfg_case_key(ps, ps->cur, name, value);
        break;
    }
    return 1; /* errors are ours to report, with the key: never let inih add a bare line number */
}

/* What a case is once the whole file is read: [defaults]' keys it does not give, its shape (the
   name's, or none when dim.NAME keys size it), and its min_reps and max_reps in order. */
int cfg_case_finish(const cfg_experiment *e, cfg_case *c, char *err, size_t errlen)
{
    const char *path = e->path;
    int over = cfg_inherit(c, &e->defaults);
    if (over) {
        snprintf(err, errlen, "%s:%d: [case %s]: more than %d %s with those inherited from [defaults]", path,
                 c->line, c->name, over == -1 ? CFG_MAX_PARAMS : CFG_MAX_DIMS,
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
            snprintf(err, errlen, "%s:%d: [case %s] has no key 'shape' and its name is not a shape", path,
                     c->line, c->name);
            return -1;
        } else {
            snprintf(c->shape, sizeof c->shape, "%s", c->name);
        }
    }
    if (c->stop.max_reps < c->stop.min_reps) {
        /* the later of the two lines is the one that made them disagree */
        char smax[CFG_NAME + 8], smin[CFG_NAME + 8];
        int lmax = cfg_key_where(c, CFG_SET_MAX_REPS, smax, sizeof smax);
        int lmin = cfg_key_where(c, CFG_SET_MIN_REPS, smin, sizeof smin);
        if (lmax >= lmin)
            snprintf(err, errlen, "%s:%d: [%s] key 'max_reps': %d is less than min_reps %d", path, lmax, smax,
                     c->stop.max_reps, c->stop.min_reps);
        else
            snprintf(err, errlen, "%s:%d: [%s] key 'min_reps': %d is more than max_reps %d", path, lmin, smin,
                     c->stop.min_reps, c->stop.max_reps);
        return -1;
    }
    return 0;
}

int cfg_add_case(cfg_experiment *e, const char *name, char *err, size_t errlen)
{
    int64_t dims[KLAB_MAX_RANK];
    char why[256];
    for (int i = 0; i < e->ncases; i++)
        if (strcmp(e->cases[i].name, name) == 0) {
            snprintf(err, errlen, "%s: case '%s' is there already (line %d)", e->path, name, e->cases[i].line);
            return -1;
        }
    if (!cfg_valid_name(name) || strlen(name) >= CFG_NAME || cfg_parse_shape(name, dims, why, sizeof why) < 0) {
        snprintf(err, errlen, "%s: no case '%s', and '%s' is not a shape", e->path, name, name);
        return -1;
    }
    if (e->ncases == CFG_MAX_CASES) {
        snprintf(err, errlen, "%s: more than %d cases with '%s'", e->path, CFG_MAX_CASES, name);
        return -1;
    }
    cfg_case *c = &e->cases[e->ncases];
    memset(c, 0, sizeof *c);
    snprintf(c->name, sizeof c->name, "%s", name);
    if (cfg_case_finish(e, c, err, errlen) != 0)
        return -1;
    return e->ncases++;
}

void cfg_case_defaults(cfg_case *d)
{
    /* see docs/timing.md for why these */
    memset(d, 0, sizeof *d);
    snprintf(d->name, sizeof d->name, "defaults");
    d->ndtypes = 1;
    d->dtypes[0] = KLAB_FP32;
    d->warmup = 10;
    d->stop.min_reps = 20;
    d->stop.max_reps = 5000;
    d->stop.precision = 0.005;
    d->stop.budget_ms = 1500;
}

int cfg_load(const char *path, cfg_experiment *e, char *err, size_t errlen)
{
    memset(e, 0, sizeof *e);
    snprintf(e->path, sizeof e->path, "%s", path);
    cfg_case_defaults(&e->defaults);

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
    for (int i = 0; i < e->ncases; i++)
        if (cfg_case_finish(e, &e->cases[i], err, errlen) != 0)
            return -1;
    return 0;
}
