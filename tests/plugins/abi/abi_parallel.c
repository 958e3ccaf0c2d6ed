/* abi_v20.so and abi_v21_parallel.so: the 2.1 service parallel_for from both sides of the version line.
 *
 * abi_v20.so (ABI_AS_V20) is a plugin as a 2.0 SDK built it: its descriptor says minor 0 and it knows
 * nothing of parallel_for; this 2.1 host loads it and its hooks work with the longer host table.
 * abi_v21_parallel.so computes its reference through klab_parallel_for(): in a 2.0 host (a table whose
 * struct_size ends before parallel_for) it loops over the chunks itself, in a 2.1 host it hands them
 * to host->parallel_for. Either way every output element is computed by the same loop, so the bytes
 * are the same (tests/test_loader.c compares them). */
#include <stdlib.h>

#include "../stub_hooks.h"

typedef struct par_state {
    const klab_host *host;
    klab_ctx *ctx;
} par_state;

static klab_status par_setup(klab_ctx *ctx, const klab_host *host, const klab_case *kcase, void **state)
{
    (void)kcase;
    par_state *st = malloc(sizeof *st);
    if (!st)
        return KLAB_ERROR;
    st->host = host;
    st->ctx = ctx;
    *state = st;
    return KLAB_OK;
}

static void par_teardown(void *state)
{
    free(state);
}

typedef struct job {
    const double *x;
    double *y;
} job;

/* y[i] folds x over i's block of 64 up to i: an order-sensitive inner loop, kept whole for each output
   element */
static void chunk(void *arg, size_t begin, size_t end)
{
    const job *j = arg;
    for (size_t i = begin; i < end; i++) {
        double s = 0;
        for (size_t k = i - i % 64; k <= i; k++)
            s = s * 0.75 + j->x[k];
        j->y[i] = s;
    }
}

static klab_status par_verify(void *state, const klab_case *kcase, const klab_verify_io *io)
{
    (void)kcase;
    par_state *st = state;
    job j = {io->in[0], io->out[0]};
#ifdef ABI_AS_V20
    (void)st;
    chunk(&j, 0, io->out_count[0]);
#else
    klab_parallel_for(st->host, st->ctx, io->out_count[0], 100, chunk, &j);
#endif
    return KLAB_OK;
}

static const klab_profile profiles[] = {{.name = "only", .summary = "y = x folded over blocks of 64"}, {.name = NULL}};

static const klab_plugin descriptor = {
#ifdef ABI_AS_V20
    /* what KLAB_DESCRIPTOR_HEADER wrote in a 2.0 SDK: klab_plugin and klab_profile have not grown since */
    .abi_major = 2, .abi_minor = 0, .struct_size = sizeof(klab_plugin), .profile_size = sizeof(klab_profile),
#else
    KLAB_DESCRIPTOR_HEADER,
#endif
    .name = ABI_PLUGIN_NAME,
    .version = "1.0",
    .summary = "parallel_for from a 2.0 and a 2.1 plugin",
    .profiles = profiles,
    .dtypes = KLAB_DTYPE_BIT(KLAB_FP32),
    .setup = par_setup,
    .run = stub_run,
    .verify = par_verify,
    .teardown = par_teardown,
};

KLAB_PLUGIN_ENTRY(descriptor)
