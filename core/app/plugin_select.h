/* The plugins a command works on: the folders searched, and --plugin's selection. */
#ifndef KLAB_PLUGIN_SELECT_H
#define KLAB_PLUGIN_SELECT_H

#include "app/cli.h"
#include "host/discovery.h"

/* The plugin folders of --plugin-path, KLAB_PLUGIN_PATH and the defaults, scanned. */
void lab_discover(const cli_opts *o, discovery *d);

/* --plugin's names (each must exist; -1 after saying which does not), else every plugin found. */
int lab_select_plugins(const cli_opts *o, const discovery *d, const found_plugin **sel, int *n);

#endif
