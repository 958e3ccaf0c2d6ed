/* An experiment checked against the plugin it names: its profiles, dtypes, param.NAME and dim.NAME
 * keys must be ones the plugin has, and param values ones it accepts; and the number of rows the file
 * asks for.
 */
#include <stdio.h>
#include <string.h>

#include "config/ini_config_internal.h"
#include "host/dtype.h"

/* "a, b, c" of a list, or "none". */
static void join(char *buf, size_t len, const char *const *names, int n)
{
    snprintf(buf, len, "%s", n ? "" : "none");
    for (int k = 0; k < n; k++)
        snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", k ? ", " : "", names[k]);
}

/* Whether name is in the NULL-terminated list names (NULL: an empty one); its length in *count. */
static int listed(const char *const *names, const char *name, int *count)
{
    int found = 0, n = 0;
    for (const char *const *q = names; q && *q; q++, n++)
        found |= strcmp(*q, name) == 0;
    if (count)
        *count = n;
    return found;
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
                int line = cfg_key_where(c, CFG_SET_PROFILES, sec, sizeof sec);
                snprintf(err, errlen, "%s:%d: [%s] key 'profiles': plugin '%s' has no profile '%s' (it has: %s)",
                         e->path, line, sec, e->plugin, c->profiles[p], known);
                return -1;
            }
        }
        for (int k = 0; k < c->ndtypes; k++)
            if (!(dtypes & KLAB_DTYPE_BIT(c->dtypes[k]))) {
                int line = cfg_key_where(c, CFG_SET_DTYPES, sec, sizeof sec);
                if (line)
                    snprintf(err, errlen, "%s:%d: [%s] key 'dtypes': plugin '%s' does not support %s", e->path,
                             line, sec, e->plugin, dtype_name(c->dtypes[k]));
                else
                    snprintf(err, errlen, "%s:%d: [case %s] key 'dtypes' is not given, so %s: plugin '%s' "
                             "does not support it", e->path, c->line, c->name, dtype_name(c->dtypes[k]), e->plugin);
                return -1;
            }
        for (int k = 0; k < c->nparams; k++) {
            if (!listed(params, c->param_key[k], NULL)) {
                snprintf(err, errlen, "%s:%d: key 'param.%s': plugin '%s' takes no such parameter",
                         e->path, c->param_line[k], c->param_key[k], e->plugin);
                return -1;
            }
        }
        for (int k = 0; k < c->ndims_named; k++) {
            int n;
            if (!listed(dims, c->dim_key[k], &n)) {
                char known[512];
                join(known, sizeof known, dims, n);
                if (c->dim_line[k] == 0) /* an ad-hoc case's (adhoc_case.h): no line of the file gave it */
                    snprintf(err, errlen, "%s: --dim %s: plugin '%s' takes no dimension '%s' (it takes: %s)", e->path,
                             c->dim_key[k], e->plugin, c->dim_key[k], known);
                else
                    snprintf(err, errlen, "%s:%d: key 'dim.%s': plugin '%s' takes no dimension '%s' (it takes: %s)",
                             e->path, c->dim_line[k], c->dim_key[k], e->plugin, c->dim_key[k], known);
                return -1;
            }
        }
    }
    return 0;
}

int cfg_check_params(const cfg_experiment *e, const char *(*check_param)(const char *key, const char *value),
                     char *err, size_t errlen)
{
    for (int i = 0; check_param && i < e->ncases; i++) {
        const cfg_case *c = &e->cases[i];
        for (int k = 0; k < c->nparams; k++) {
            const char *why = check_param(c->param_key[k], c->param_val[k]);
            if (why) {
                snprintf(err, errlen, "%s:%d: key 'param.%s': plugin '%s' refuses '%s': %s", e->path,
                         c->param_line[k], c->param_key[k], e->plugin, c->param_val[k], why);
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
