#include "case_build.h"

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
