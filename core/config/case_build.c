#include "config/case_build.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static int listed(const char *const *names, const char *name)
{
    for (const char *const *p = names; p && *p; p++)
        if (strcmp(*p, name) == 0)
            return 1;
    return 0;
}

void case_build(built_case *b, const cfg_case *c, klab_dtype dtype, const klab_plugin *desc)
{
    memset(b, 0, sizeof *b);
    klab_case *k = &b->kcase;
    k->struct_size = sizeof *k;
    k->name = c->name;
    k->rank = c->rank;
    memcpy(k->dims, c->dims, sizeof k->dims);
    k->dtype = dtype;
    for (int i = 0; i < c->nparams && i < CFG_MAX_PARAMS; i++)
        if (listed(desc->params, c->param_key[i])) {
            b->params[k->nparams].key = c->param_key[i];
            b->params[k->nparams].value = c->param_val[i];
            k->nparams++;
        }
    k->params = b->params;
    for (int i = 0; i < c->ndims_named && i < CFG_MAX_DIMS; i++)
        if (listed(desc->dims, c->dim_key[i])) {
            b->named[k->nnamed].name = c->dim_key[i];
            b->named[k->nnamed].value = c->dim_val[i];
            k->nnamed++;
        }
    k->named = b->named;
    k->steps = 1; /* a plugin without steps runs once a verified sequence, whatever the INI says */
    if (desc->flags & KLAB_PLUGIN_STEPS)
        k->steps = c->steps > 0 ? c->steps : desc->default_steps > 0 ? desc->default_steps : 1;
}

/* Appends one part, ';' before all but the first; returns the new length (past cap: not written). */
static size_t put_part(char *buf, size_t cap, size_t n, const char *part)
{
    if (!part[0])
        return n;
    int w = snprintf(buf + (n < cap ? n : cap - 1), n < cap ? cap - n : 1, "%s%s", n ? ";" : "", part);
    return n + (size_t)(w > 0 ? w : 0);
}

void case_signature(const cfg_case *c, char *buf, size_t len)
{
    if (!len)
        return;
    /* the whole signature, however long: 16 params and 16 dims fit many times over */
    char all[8192], part[256];
    size_t n = 0;
    all[0] = 0;
    part[0] = 0;
    for (int i = 0; i < c->rank && i < KLAB_MAX_RANK; i++)
        snprintf(part + strlen(part), sizeof part - strlen(part), "%s%" PRId64, i ? "x" : "", c->dims[i]);
    n = put_part(all, sizeof all, n, part);
    for (int i = 0; i < c->nparams && i < CFG_MAX_PARAMS; i++) {
        snprintf(part, sizeof part, "%s=%s", c->param_key[i], c->param_val[i]);
        n = put_part(all, sizeof all, n, part);
    }
    for (int i = 0; i < c->ndims_named && i < CFG_MAX_DIMS; i++) {
        snprintf(part, sizeof part, "dim.%s=%" PRId64, c->dim_key[i], c->dim_val[i]);
        n = put_part(all, sizeof all, n, part);
    }
    if (c->steps > 0) {
        snprintf(part, sizeof part, "steps=%d", c->steps);
        n = put_part(all, sizeof all, n, part);
    }
    if (n < len && n < sizeof all) {
        memcpy(buf, all, n + 1);
        return;
    }
    /* FNV-1a of the whole: cutting it alone could make two cases one key */
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n && i < sizeof all - 1; i++)
        h = (h ^ (unsigned char)all[i]) * 1099511628211ull;
    if (len < 18) {
        snprintf(buf, len, "%.*s", (int)(len - 1), all);
        return;
    }
    size_t keep = len - 18;
    snprintf(buf, len, "%.*s~%016" PRIx64, (int)keep, all, h);
}
