/* Opening a plugin file and checking its descriptor against the ABI. Every refusal names the file
 * and says why; the caller reports it and goes on with the other plugins.
 *
 * What the host keeps is a normalized copy: the descriptor and each profile as this host's structs,
 * with every field the plugin did not declare WHOLLY (struct_size, profile_size) reading as zero, so
 * the rest of the host never looks at a size again. */
#ifndef KLAB_LOADER_H
#define KLAB_LOADER_H

#include <stddef.h>

#include "klab/plugin.h"

/* Profiles a plugin may declare: a case's rows are kept in fixed arrays of this many. */
#define LOADER_MAX_PROFILES 16
/* Entries an arch list may have before its terminating 0. */
#define LOADER_MAX_ARCHS 32

typedef struct loaded_plugin {
    void *handle;
    char path[4096];
    /* The descriptor as this host knows it: the plugin's fields that lie wholly inside its
       struct_size, the rest zero; desc.profiles points at `profiles` below, and desc.dtypes holds
       only the dtypes this host knows. */
    klab_plugin desc;
    /* The profiles read with the plugin's profile_size as stride, each as this host's klab_profile
       (fields beyond profile_size zero), ended by a zeroed entry. */
    klab_profile profiles[LOADER_MAX_PROFILES + 1];
    int nprofiles;
    int baseline; /* index of the baseline profile, -1 if none */
} loaded_plugin;

/* Loads `path` with RTLD_NOW | RTLD_LOCAL and validates it. `expected` is the name the file's stem
   promises (NULL: no check). Returns 0, or -1 with "path: why" in err. */
int loader_open(const char *path, const char *expected, loaded_plugin *out, char *err, size_t errlen);

void loader_close(loaded_plugin *p);

/* The plugin's run: 2.1's run_host with ctx and host where it has one, else run. */
klab_status loader_run(const loaded_plugin *p, void *state, klab_ctx *ctx, const klab_host *host,
                       const klab_launch *launch);

/* The plugin's verify: 2.1's verify_host with ctx and host where it has one, else verify. */
klab_status loader_verify(const loaded_plugin *p, void *state, klab_ctx *ctx, const klab_host *host,
                          const klab_case *kcase, const klab_verify_io *io);

int loader_profile_index(const loaded_plugin *p, const char *name);

/* The exact compute capabilities profile `i` has machine code for (its own list, else the plugin's),
   ended by 0; NULL when it runs on any device >= min_cc. */
const int *loader_profile_archs(const loaded_plugin *p, int i);

/* 1 when `cc` is in the 0-ended list (a NULL list admits every cc). */
int loader_arch_admits(const int *archs, int cc);

/* "sm_80, sm_90": the list as words, for skip reasons. */
void loader_archs_text(const int *archs, char *buf, size_t len);

#endif
