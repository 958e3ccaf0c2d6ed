#include "config/adhoc_case.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A key's message as the command line's: "FILE:0: [case adhoc-x] key 'dim.m': why" names no file or
   line the user wrote, so only its reason is kept, after the option that gave the value. */
static void option_error(const char *opt, const char *msg, char *err, size_t errlen)
{
    const char *why = strstr(msg, "': ");
    snprintf(err, errlen, "%s: %s", opt, why ? why + 3 : msg);
}

/* Sets the case's keys from the command line's values. 0, or -1 with err. */
static int set_keys(cfg_experiment *e, cfg_case *c, const char *shape, const char *dims, char *err, size_t errlen)
{
    char msg[1200];
    if (!shape[0] && !dims[0]) {
        snprintf(err, errlen, "an ad-hoc case needs --shape AxB or --dim NAME=N[,NAME=N]");
        return -1;
    }
    if (shape[0] && cfg_case_set(e, c, "shape", shape, 0, msg, sizeof msg) != 0) {
        option_error("--shape", msg, err, errlen);
        return -1;
    }
    char buf[512];
    if (snprintf(buf, sizeof buf, "%s", dims) >= (int)sizeof buf) {
        snprintf(err, errlen, "--dim: longer than %zu characters", sizeof buf - 1);
        return -1;
    }
    char *save = NULL;
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(t, '='), key[64];
        if (!eq || eq == t) {
            snprintf(err, errlen, "--dim: '%s' is not NAME=N (e.g. --dim m=4096,n=8192,k=4096)", t);
            return -1;
        }
        *eq = 0;
        snprintf(key, sizeof key, "dim.%.40s", t);
        for (int i = 0; i < c->ndims_named; i++)
            if (strcmp(c->dim_key[i], t) == 0) {
                snprintf(err, errlen, "--dim: '%s' is given twice", t);
                return -1;
            }
        if (cfg_case_set(e, c, key, eq + 1, 0, msg, sizeof msg) != 0) {
            option_error("--dim", msg, err, errlen);
            return -1;
        }
    }
    return 0;
}

int cfg_adhoc_name(const char *shape, const char *dims, char *name, size_t len, char *err, size_t errlen)
{
    /* the values checked on a case of their own, so a bad --dim is refused before any INI is read */
    cfg_experiment *e = calloc(1, sizeof *e);
    if (!e) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    cfg_case_defaults(&e->defaults);
    cfg_case *c = &e->cases[0];
    snprintf(c->name, sizeof c->name, CFG_ADHOC_PREFIX "case");
    int rc = set_keys(e, c, shape, dims, err, errlen);
    if (rc == 0) {
        char full[CFG_NAME * 8];
        snprintf(full, sizeof full, CFG_ADHOC_PREFIX "%s", shape);
        for (int i = 0; i < c->ndims_named; i++)
            snprintf(full + strlen(full), sizeof full - strlen(full), "%s%s%lld", shape[0] || i ? "-" : "",
                     c->dim_key[i], (long long)c->dim_val[i]);
        if (strlen(full) >= CFG_NAME || strlen(full) >= len) {
            snprintf(err, errlen, "the ad-hoc case's name '%s' is longer than %d characters", full, CFG_NAME - 1);
            rc = -1;
        } else {
            snprintf(name, len, "%s", full);
        }
    }
    free(e);
    return rc;
}

int cfg_add_adhoc(cfg_experiment *e, const char *shape, const char *dims, char *err, size_t errlen)
{
    char name[CFG_NAME];
    if (cfg_adhoc_name(shape, dims, name, sizeof name, err, errlen) != 0)
        return -1;
    for (int i = 0; i < e->ncases; i++)
        if (strcmp(e->cases[i].name, name) == 0) {
            snprintf(err, errlen, "%s: case '%s' is there already (line %d)", e->path, name, e->cases[i].line);
            return -1;
        }
    if (e->ncases == CFG_MAX_CASES) {
        snprintf(err, errlen, "%s: has %d cases, the most a file holds: no room for '%s'", e->path, CFG_MAX_CASES,
                 name);
        return -1;
    }
    cfg_case *c = &e->cases[e->ncases];
    memset(c, 0, sizeof *c);
    snprintf(c->name, sizeof c->name, "%s", name);
    if (set_keys(e, c, shape, dims, err, errlen) != 0 || cfg_case_finish(e, c, err, errlen) != 0)
        return -1;
    return e->ncases++;
}
