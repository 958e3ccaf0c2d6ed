/* The INI reader's golden files (support/golden.h): each fixtures/ini/<name>.ini rendered as what
 * klab reads from it, diffed against <name>.ini.expected beside it.
 *
 *   walk:  every section, key and value with its line, as ini_walk (core/config/ini_walk.c) hands them
 *          to the readers of experiment, decision and meta.ini files, or the error that stops it
 *   cfg:   the experiment as cfg_load (core/config/ini_config.c) resolves it: each case with every
 *          key, [defaults] applied, and the line that gave it; or its file:line message
 *
 *   ini_golden DIR [--write]
 */
#include <stdio.h>
#include <string.h>

#include "config/ini_config.h"
#include "config/ini_walk.h"
#include "golden.h"
#include "host/dtype.h"

/* Bytes a reader of the .expected file could not see (a tab, a control character) written as \xNN. */
static void put_text(FILE *out, const char *s)
{
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p < 0x20 || *p == 0x7f || *p == '"' || *p == '\\')
            fprintf(out, "\\x%02x", *p);
        else
            fputc(*p, out);
    }
    fputc('"', out);
}

static int on_section(void *user, int line, const char *name, char *why, size_t whylen)
{
    (void)why;
    (void)whylen;
    fprintf(user, "  %d [", line);
    put_text(user, name);
    fprintf(user, "]\n");
    return 0;
}

static int on_key(void *user, int line, const char *key, const char *value, int continued, char *why,
                  size_t whylen)
{
    (void)why;
    (void)whylen;
    fprintf(user, "  %d ", line);
    put_text(user, key);
    fprintf(user, continued ? " += " : " = ");
    put_text(user, value);
    fprintf(user, "\n");
    return 0;
}

static void render_walk(const char *name, FILE *out)
{
    static const ini_walk_ops ops = {on_section, on_key};
    char err[1024];
    fprintf(out, "walk:\n");
    if (ini_walk(name, &ops, out, 0, err, sizeof err) != 0)
        fprintf(out, "  error: %s\n", err);
}

/* The value of known key `key` in case c, as the case holds it after cfg_load. */
static void put_key_value(FILE *out, const cfg_case *c, const char *key)
{
    if (strcmp(key, "shape") == 0) {
        put_text(out, c->shape);
        fprintf(out, " rank %d [", c->rank);
        for (int d = 0; d < c->rank; d++)
            fprintf(out, "%s%lld", d ? " " : "", (long long)c->dims[d]);
        fprintf(out, "]");
    } else if (strcmp(key, "dtypes") == 0) {
        for (int d = 0; d < c->ndtypes; d++)
            fprintf(out, "%s%s", d ? ", " : "", dtype_name(c->dtypes[d]));
    } else if (strcmp(key, "profiles") == 0) {
        if (c->nprofiles == 0)
            fprintf(out, "(every profile)");
        for (int p = 0; p < c->nprofiles; p++)
            fprintf(out, "%s%s", p ? ", " : "", c->profiles[p]);
    } else if (strcmp(key, "warmup") == 0) {
        fprintf(out, "%d", c->warmup);
    } else if (strcmp(key, "min_reps") == 0) {
        fprintf(out, "%d", c->stop.min_reps);
    } else if (strcmp(key, "max_reps") == 0) {
        fprintf(out, "%d", c->stop.max_reps);
    } else if (strcmp(key, "precision") == 0) {
        fprintf(out, "%.15g", c->stop.precision);
    } else if (strcmp(key, "budget_ms") == 0) {
        fprintf(out, "%.15g", c->stop.budget_ms);
    } else if (strcmp(key, "steps") == 0) {
        fprintf(out, "%d", c->steps);
    } else if (strcmp(key, "config") == 0) {
        put_text(out, c->config);
    } else {
        fprintf(out, "(not rendered: a key this test does not know)");
    }
}

static void put_line(FILE *out, int line)
{
    if (line > 0)
        fprintf(out, "  (line %d)\n", line);
    else
        fprintf(out, "  (built in)\n");
}

static void render_case(FILE *out, const cfg_case *c)
{
    fprintf(out, "  [case ");
    put_text(out, c->name);
    fprintf(out, "] line %d\n", c->line);
    for (int k = 0; cfg_case_key_name(k); k++) {
        const char *key = cfg_case_key_name(k);
        fprintf(out, "    %s = ", key);
        put_key_value(out, c, key);
        put_line(out, cfg_case_key_line(c, key));
    }
    for (int p = 0; p < c->nparams; p++) {
        fprintf(out, "    param.%s = ", c->param_key[p]);
        put_text(out, c->param_val[p]);
        put_line(out, c->param_line[p]);
    }
    for (int d = 0; d < c->ndims_named; d++) {
        fprintf(out, "    dim.%s = %lld", c->dim_key[d], (long long)c->dim_val[d]);
        put_line(out, c->dim_line[d]);
    }
}

static cfg_experiment exp_; /* ~200 KiB: off the stack */

static void render_cfg(const char *name, FILE *out)
{
    char err[1024];
    fprintf(out, "cfg:\n");
    if (cfg_load(name, &exp_, err, sizeof err) != 0) {
        fprintf(out, "  error: %s\n", err);
        return;
    }
    fprintf(out, "  plugin = %s (line %d)\n  question = ", exp_.plugin, exp_.plugin_line);
    put_text(out, exp_.question);
    fprintf(out, "\n  cases = %d\n", exp_.ncases);
    for (int i = 0; i < exp_.ncases; i++)
        render_case(out, &exp_.cases[i]);
}

static int render(const char *name, FILE *out)
{
    render_walk(name, out);
    render_cfg(name, out);
    return 0;
}

int main(int argc, char **argv)
{
    return golden_main(argc, argv, ".ini", render);
}
