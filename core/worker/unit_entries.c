#include "worker/unit_entries.h"

#include "worker/selection.h"

#include <stdio.h>
#include <string.h>

int unit_space_size(const klab_profile *pr, const klab_case *kcase)
{
    int n = 0;
    if (pr->config)
        while (n < UNIT_MAX_CONFIGS && pr->config(kcase, n))
            n++;
    return n;
}

/* The index of configuration `name` in the profile's space, or -1 with *n its size. */
static int config_index(const klab_profile *pr, const klab_case *kcase, const char *name, int *n)
{
    *n = 0;
    for (const char *d; *n < UNIT_MAX_CONFIGS && (d = pr->config(kcase, *n)); (*n)++)
        if (strcmp(d, name) == 0)
            return *n;
    return -1;
}

static void add(unit_entry *en, const klab_profile *pr, const klab_case *kcase, int prof, int config, int trial)
{
    en->prof = prof;
    en->config = config;
    en->trial = trial;
    snprintf(en->label, sizeof en->label, "%s", pr->name);
    if (trial) {
        const char *d = pr->config(kcase, config);
        snprintf(en->label + strlen(en->label), sizeof en->label - strlen(en->label), " %s", d ? d : "?");
    }
}

int unit_entries_make(const loaded_plugin *lp, const cfg_case *c, const run_filter *f, const klab_case *kcase,
                      int tune, unit_entry *e, int max, int *left_out)
{
    int sel[LOADER_MAX_PROFILES], nsel = 0;
    for (int p = 0; p < lp->nprofiles && nsel < LOADER_MAX_PROFILES && nsel < max; p++)
        if (job_keeps_profile(c, f, lp->profiles[p].name))
            sel[nsel++] = p;
    /* the configurations each profile adds: the room left after every profile's own entry, in order */
    int room = max - nsel, take[LOADER_MAX_PROFILES];
    *left_out = 0;
    for (int k = 0; k < nsel; k++) {
        int n = tune ? unit_space_size(&lp->profiles[sel[k]], kcase) : 0;
        take[k] = n < room ? n : room;
        room -= take[k];
        *left_out += n - take[k];
    }
    int ne = 0;
    for (int k = 0; k < nsel; k++) {
        const klab_profile *pr = &lp->profiles[sel[k]];
        int trial = tune && pr->config != NULL;
        add(&e[ne++], pr, kcase, sel[k], -1, trial);
        for (int i = 0; i < take[k]; i++)
            add(&e[ne++], pr, kcase, sel[k], i, 1);
    }
    return ne;
}

config_source unit_entry_config(const klab_profile *pr, const klab_case *kcase, const char *case_config,
                                const char *cached, int *index, int *n)
{
    *index = -1;
    *n = 0;
    if (!pr->config)
        return CONFIG_OWN; /* no tuning space: the plugin's choice, whatever the case names */
    if (case_config && case_config[0]) {
        int i = config_index(pr, kcase, case_config, n);
        if (i < 0)
            return CONFIG_NOT_IN_SPACE;
        *index = i;
        return CONFIG_CASE;
    }
    if (!cached)
        return CONFIG_OWN;
    int i = config_index(pr, kcase, cached, n);
    if (i < 0)
        return CONFIG_STALE;
    *index = i;
    return CONFIG_CACHE;
}
