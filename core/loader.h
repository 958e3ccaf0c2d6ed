/* Opening a plugin file and checking its descriptor against the ABI. Every refusal names the file
 * and says why; the caller reports it and goes on with the other plugins. */
#ifndef KLAB_LOADER_H
#define KLAB_LOADER_H

#include <stddef.h>

#include "klab/plugin.h"

/* Profiles a plugin may declare: a case's rows are kept in fixed arrays of this many. */
#define LOADER_MAX_PROFILES 16

typedef struct loaded_plugin {
    void *handle;
    char path[4096];
    /* The descriptor as this host knows it: the plugin's bytes up to its struct_size, the rest zero,
       so optional hooks a 1.0 plugin never had read as NULL. */
    klab_plugin desc;
    int nprofiles;
    int baseline; /* index of the baseline profile, -1 if none */
} loaded_plugin;

/* Loads `path` with RTLD_NOW | RTLD_LOCAL and validates it. `expected` is the name the file's stem
   promises (NULL: no check). Returns 0, or -1 with "path: why" in err. */
int loader_open(const char *path, const char *expected, loaded_plugin *out, char *err, size_t errlen);

void loader_close(loaded_plugin *p);

int loader_profile_index(const loaded_plugin *p, const char *name);

#endif
