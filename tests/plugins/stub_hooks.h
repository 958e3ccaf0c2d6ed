/* What the test-only plugins of tests/plugins/abi and tests/plugins/crash share: four required hooks
 * that do nothing, and one profile. Each of those plugins breaks exactly one rule of klab/plugin.h
 * (or none, the good ones), so the refusal the loader or the supervisor gives names that one rule.
 * Header-only and static: a plugin exports nothing but what it marks KLAB_EXPORT. */
#ifndef KLAB_TEST_STUB_HOOKS_H
#define KLAB_TEST_STUB_HOOKS_H

#include <stddef.h>

#include "klab/plugin.h"

static inline klab_status stub_setup(klab_ctx *ctx, const klab_host *host, const klab_case *kcase, void **state)
{
    (void)ctx;
    (void)host;
    (void)kcase;
    *state = NULL;
    return KLAB_OK;
}

static inline klab_status stub_run(void *state, int profile, klab_stream stream)
{
    (void)state;
    (void)profile;
    (void)stream;
    return KLAB_OK;
}

static inline klab_status stub_verify(void *state, const klab_case *kcase, const klab_verify_io *io)
{
    (void)state;
    (void)kcase;
    for (int i = 0; i < io->n_out; i++)
        for (size_t k = 0; k < io->out_count[i]; k++)
            io->out[i][k] = 0;
    return KLAB_OK;
}

static inline void stub_teardown(void *state)
{
    (void)state;
}

/* One profile, "only": enough for a descriptor the loader accepts. */
#define STUB_PROFILES {{"only", "does nothing"}, {NULL, NULL}}

/* A descriptor that keeps every rule: version "0", fp32, the one profile, the stub hooks. */
static inline klab_plugin stub_descriptor(const char *name, const char *summary)
{
    static const klab_profile profiles[] = STUB_PROFILES;
    klab_plugin d = {KLAB_ABI_MAJOR, KLAB_ABI_MINOR, sizeof(klab_plugin), name, "0", summary, profiles, NULL,
                     KLAB_DTYPE_BIT(KLAB_FP32), 0, NULL, stub_setup, stub_run, stub_verify, stub_teardown, NULL, NULL};
    return d;
}

/* A plugin's entry that returns stub_descriptor(NAME, SUMMARY) after the statements given, which break
   the one rule the plugin is about by changing `stub`:
       STUB_ENTRY("abi_major2", "built for a future ABI", stub.abi_major = 2; stub.abi_minor = 3) */
#define STUB_ENTRY(NAME, SUMMARY, ...)                                                                \
    static klab_plugin stub;                                                                          \
    KLAB_EXPORT const klab_plugin *klab_plugin_entry(uint32_t host_abi_major, uint32_t host_abi_minor) \
    {                                                                                                 \
        (void)host_abi_major;                                                                         \
        (void)host_abi_minor;                                                                         \
        stub = stub_descriptor(NAME, SUMMARY);                                                        \
        __VA_ARGS__;                                                                                  \
        return &stub;                                                                                 \
    }

#endif
