#include "app/lab_cases.h"

#include <string.h>

#include "config/adhoc_case.h"

int lab_cases_add(const cli_opts *o, cfg_experiment *cfg, lab_cases *k, char *err, size_t errlen)
{
    if (o->adhoc_name[0]) {
        int sized_by_shape = 0;
        for (int i = 0; i < cfg->ncases; i++)
            sized_by_shape |= cfg->cases[i].rank > 0;
        if (o->adhoc_shape[0] && !sized_by_shape) {
            /* a shape such a plugin never reads would run its INI's default dims under a shape's name */
            snprintf(err, errlen, "%s: plugin %s sizes its cases by dim.NAME alone (no case of its INI has a "
                                  "shape): give --dim, not --shape", cfg->path, cfg->plugin);
            return -1;
        }
        if (cfg_add_adhoc(cfg, o->adhoc_shape, o->adhoc_dims, err, errlen) < 0)
            return -1;
    }
    size_t n = strlen(k->known);
    n += (size_t)snprintf(k->known + n, n < sizeof k->known ? sizeof k->known - n : 0, "%s%s:", n ? "; " : "",
                          cfg->path);
    for (int i = 0; i < cfg->ncases; i++) {
        for (int c = 0; c < o->filter.ncases && c < 64; c++)
            if (strcmp(o->filter.cases[c], cfg->cases[i].name) == 0)
                k->found |= 1ull << c;
        if (n < sizeof k->known)
            n += (size_t)snprintf(k->known + n, sizeof k->known - n, "%s %s", i ? "," : "", cfg->cases[i].name);
    }
    return 0;
}

int lab_cases_check(const cli_opts *o, const lab_cases *k, char *err, size_t errlen)
{
    for (int c = 0; c < o->filter.ncases && c < 64; c++)
        if (!(k->found & (1ull << c))) {
            size_t n = strlen(k->known);
            snprintf(err, errlen, "--case %s: no such case in %s%s", o->filter.cases[c],
                     n ? k->known : "the INIs read",
                     n >= sizeof k->known - 1 ? " ..." : "");
            return -1;
        }
    return 0;
}
