/* sdk20_plugin.so: a plugin built against the ABI 2.0 header exactly as that SDK shipped it (the copy
 * in klab/ beside this file, which the quoted include finds before the SDK's own), so every later
 * change to plugin.h is tried against what a 2.0 plugin really compiled to: test_sdk21 loads it,
 * runs its hooks and validates an INI with it. y = 2 x. */
#include <stdlib.h>

#include "klab/plugin.h"

_Static_assert(KLAB_ABI_MAJOR == 2 && KLAB_ABI_MINOR == 0, "sdk20_plugin must build against the 2.0 header");

typedef struct s20_state {
    klab_ctx *ctx;
    const klab_host *host;
} s20_state;

static klab_status s20_setup(klab_ctx *ctx, const klab_host *host, const klab_case *kcase, void **state)
{
    s20_state *st = malloc(sizeof *st);
    if (!st)
        return host->error(ctx, "out of memory");
    st->ctx = ctx;
    st->host = host;
    *state = st;
    (void)kcase;
    return KLAB_OK;
}

static klab_status s20_run(void *state, const klab_launch *launch)
{
    s20_state *st = state;
    return launch->profile == 0 ? KLAB_OK : st->host->error(st->ctx, "no profile %d", launch->profile);
}

static klab_status s20_verify(void *state, const klab_case *kcase, const klab_verify_io *io)
{
    (void)state;
    (void)kcase;
    for (size_t k = 0; k < io->out_count[0]; k++)
        io->out[0][k] = 2 * io->in[0][k];
    return KLAB_OK;
}

static void s20_teardown(void *state)
{
    free(state);
}

static const klab_profile profiles[] = {{.name = "only", .summary = "y = 2 x"}, {.name = NULL}};
static const char *const params[] = {"alpha", NULL};

static const klab_plugin descriptor = {
    KLAB_DESCRIPTOR_HEADER,
    .name = "sdk20_plugin",
    .version = "2.0",
    .summary = "a plugin of the 2.0 SDK",
    .profiles = profiles,
    .dtypes = KLAB_DTYPE_BIT(KLAB_FP32),
    .params = params,
    .setup = s20_setup,
    .run = s20_run,
    .verify = s20_verify,
    .teardown = s20_teardown,
};

KLAB_PLUGIN_ENTRY(descriptor)
