/* sdk21_hooks.so: the 2.1 hooks together. run_host and verify_host get the context and host, so the
 * state keeps neither (run and verify are NULL); check_param refuses a param.alpha that is not a
 * number; the profiles and their indices come from one list. y = alpha x, alpha from the case. */
#include <stdlib.h>

#include "klab/plugin.h"

#define H21_PROFILES(X)                                                  \
    X(H21_PLAIN, .name = "plain", .summary = "y = alpha x")              \
    X(H21_TWICE, .name = "twice", .summary = "y = alpha x, said twice")
enum { KLAB_PROFILE_IDS(H21_PROFILES) H21_PROFILE_COUNT };

/* alpha as a number, or 0 with *ok 0 when the text is not one. */
static double alpha_of(const char *text, int *ok)
{
    char *end;
    double v = strtod(text, &end);
    *ok = end != text && *end == 0;
    return *ok ? v : 0;
}

static const char *h21_check_param(const char *key, const char *value)
{
    int ok = 1;
    (void)key; /* alpha is its only parameter */
    alpha_of(value, &ok);
    return ok ? NULL : "a number";
}

static klab_status h21_setup(klab_ctx *ctx, const klab_host *host, const klab_case *kcase, void **state)
{
    double *alpha = malloc(sizeof *alpha);
    if (!alpha)
        return host->error(ctx, "out of memory");
    const char *a = klab_case_param(kcase, "alpha");
    int ok = 1;
    *alpha = a ? alpha_of(a, &ok) : 1;
    *state = alpha;
    return KLAB_OK;
}

/* Fails with the profile's name through the host it was given: what a run that needs the host does. */
static klab_status h21_run(void *state, klab_ctx *ctx, const klab_host *host, const klab_launch *launch)
{
    (void)state;
    if (launch->profile == H21_TWICE)
        return host->error(ctx, "run_host reached with profile %d of %d", launch->profile, H21_PROFILE_COUNT);
    return KLAB_OK;
}

static klab_status h21_verify(void *state, klab_ctx *ctx, const klab_host *host, const klab_case *kcase,
                              const klab_verify_io *io)
{
    (void)kcase;
    double alpha = *(const double *)state;
    if (io->n_out != 1)
        return host->error(ctx, "expected one output, got %d", io->n_out);
    for (size_t k = 0; k < io->out_count[0]; k++)
        io->out[0][k] = alpha * io->in[0][k];
    return KLAB_OK;
}

static void h21_teardown(void *state)
{
    free(state);
}

static const klab_profile profiles[] = {KLAB_PROFILE_TABLE(H21_PROFILES)};
static const char *const params[] = {"alpha", NULL};

static const klab_plugin descriptor = {
    KLAB_DESCRIPTOR_HEADER,
    .name = "sdk21_hooks",
    .version = "2.1",
    .summary = "run_host, verify_host, check_param and a profile list",
    .profiles = profiles,
    .baseline = "plain",
    .dtypes = KLAB_DTYPE_BIT(KLAB_FP32),
    .params = params,
    .setup = h21_setup,
    .teardown = h21_teardown,
    .run_host = h21_run,
    .verify_host = h21_verify,
    .check_param = h21_check_param,
};

KLAB_PLUGIN_ENTRY(descriptor)
