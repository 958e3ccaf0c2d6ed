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

#endif
