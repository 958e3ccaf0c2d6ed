#include "app/plugin_select.h"

#include <stdio.h>

#include "util/text.h"

void lab_discover(const cli_opts *o, discovery *d)
{
    discovery_init(d, o->plugin_paths, o->npaths, o->ini_dir[0] ? o->ini_dir : NULL);
    discovery_scan(d);
}

int lab_select_plugins(const cli_opts *o, const discovery *d, const found_plugin **sel, int *n)
{
    *n = 0;
    if (o->nplugins == 0) {
        for (int i = 0; i < d->nplugins; i++)
            sel[(*n)++] = &d->plugins[i];
        return 0;
    }
    for (int i = 0; i < o->nplugins; i++) {
        const found_plugin *f = discovery_find(d, o->plugins[i]);
        if (!f) {
            text_printf(stderr, "klab: no plugin '%s' found (found:", o->plugins[i]);
            for (int k = 0; k < d->nplugins; k++)
                text_printf(stderr, " %s", d->plugins[k].name);
            fprintf(stderr, "%s); see klab --list\n", d->nplugins ? "" : " none");
            return -1;
        }
        sel[(*n)++] = f;
    }
    return 0;
}
