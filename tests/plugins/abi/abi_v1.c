/* abi_v1.so: a plugin built for plugin ABI 1.0, the way klab 1.x plugins were: the 1.0 descriptor
 * layout (no profile_size; run(state, profile, stream)), and an entry that answers only a host of
 * major 1, as KLAB_PLUGIN_ENTRY did. A 2.0 host must refuse it by name ("built for plugin ABI 1.0"),
 * not as a plugin that declines every host. The 1.0 structs are spelled out here: klab/plugin.h no
 * longer has them. */
#include "klab/plugin.h"

typedef struct v1_profile {
    const char *name, *summary;
} v1_profile;

typedef struct v1_plugin {
    uint32_t abi_major, abi_minor, struct_size;
    const char *name, *version, *summary;
    const v1_profile *profiles;
    const char *baseline;
    uint32_t dtypes;
    int min_cc;
    const char *const *params;
    klab_status (*setup)(klab_ctx *, const void *, const void *, void **);
    klab_status (*run)(void *, int, klab_stream);
    klab_status (*verify)(void *, const void *, const void *);
    void (*teardown)(void *);
    void (*work)(const void *, void *);
    double (*tolerance)(const void *);
} v1_plugin;

static klab_status v1_setup(klab_ctx *ctx, const void *host, const void *kcase, void **state)
{
    (void)ctx;
    (void)host;
    (void)kcase;
    *state = 0;
    return KLAB_OK;
}

static klab_status v1_run(void *state, int profile, klab_stream stream)
{
    (void)state;
    (void)profile;
    (void)stream;
    return KLAB_OK;
}

static klab_status v1_verify(void *state, const void *kcase, const void *io)
{
    (void)state;
    (void)kcase;
    (void)io;
    return KLAB_OK;
}

static void v1_teardown(void *state)
{
    (void)state;
}

static const v1_profile profiles[] = {{"only", "does nothing"}, {0, 0}};

static const v1_plugin descriptor = {1, 0, sizeof(v1_plugin), "abi_v1", "1.0.0", "a plugin of ABI 1.0",
                                     profiles, 0, 1u, 0, 0, v1_setup, v1_run, v1_verify, v1_teardown, 0, 0};

KLAB_EXPORT const v1_plugin *klab_plugin_entry(uint32_t host_abi_major, uint32_t host_abi_minor);

KLAB_EXPORT const v1_plugin *klab_plugin_entry(uint32_t host_abi_major, uint32_t host_abi_minor)
{
    (void)host_abi_minor;
    return host_abi_major == 1 ? &descriptor : 0;
}
