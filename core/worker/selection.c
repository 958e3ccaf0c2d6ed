#include "worker/selection.h"

#include <string.h>

#include "worker/shard.h"

static int name_in(const char *name, char (*list)[64], int n)
{
    for (int i = 0; i < n; i++)
        if (strcmp(list[i], name) == 0)
            return 1;
    return 0;
}

int job_keeps_case(const cfg_case *c, const run_filter *f)
{
    return f->ncases == 0 || name_in(c->name, (char(*)[64])f->cases, f->ncases);
}

int job_keeps_profile(const cfg_case *c, const run_filter *f, const char *profile)
{
    if (c->nprofiles && !name_in(profile, (char(*)[64])c->profiles, c->nprofiles))
        return 0;
    return f->nprofiles == 0 || name_in(profile, (char(*)[64])f->profiles, f->nprofiles);
}

int job_units(const cfg_experiment *cfg, const run_filter *f, int u, int *case_index, klab_dtype *dtype)
{
    int n = 0, selected = 0;
    for (int i = 0; i < cfg->ncases; i++) {
        const cfg_case *c = &cfg->cases[i];
        if (!job_keeps_case(c, f))
            continue;
        for (int k = 0; k < c->ndtypes; k++) {
            if (f->dtypes && !(f->dtypes & KLAB_DTYPE_BIT(c->dtypes[k])))
                continue;
            if (f->shard_n && shard_of(cfg->plugin, selected++, f->shard_n) != f->shard_k)
                continue;
            if (n == u) {
                *case_index = i;
                *dtype = c->dtypes[k];
            }
            n++;
        }
    }
    return n;
}
