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

static inline klab_status stub_run(void *state, const klab_launch *launch)
{
    (void)state;
    (void)launch;
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
#define STUB_PROFILES {{.name = "only", .summary = "does nothing"}, {.name = NULL}}

/* A descriptor that keeps every rule: version "0", fp32, the one profile, the stub hooks. */
static inline klab_plugin stub_descriptor(const char *name, const char *summary)
{
    static const klab_profile profiles[] = STUB_PROFILES;
    klab_plugin d = {KLAB_DESCRIPTOR_HEADER,
                     .name = name,
                     .version = "0",
                     .summary = summary,
                     .profiles = profiles,
                     .dtypes = KLAB_DTYPE_BIT(KLAB_FP32),
                     .setup = stub_setup,
                     .run = stub_run,
                     .verify = stub_verify,
                     .teardown = stub_teardown};
    return d;
}

/* A plugin's entry that returns stub_descriptor(NAME, SUMMARY) after the statements given, which break
   the one rule the plugin is about by changing `stub`:
       STUB_ENTRY("abi_major3", "built for a future ABI", stub.abi_major = 3; stub.abi_minor = 1) */
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
