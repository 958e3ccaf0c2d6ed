/* crash_good.so: the well-behaved neighbour of the crashing plugins, listed and validated in full
 * while they fail beside it. */
#include "../stub_hooks.h"

static void good_work(const klab_case *kcase, klab_work *work)
{
    double n = 1;
    for (int i = 0; i < kcase->rank; i++)
        n *= (double)kcase->dims[i];
    work->bytes = 8 * n;
    work->flops = n;
}

static const klab_profile profiles[] = {
    {.name = "plain", .summary = "the obvious loop"},
    {.name = "clever", .summary = "the loop after some thought"},
    {.name = NULL},
};
static const char *const params[] = {"k", NULL};

static const klab_plugin descriptor = {
    KLAB_DESCRIPTOR_HEADER,
    .name = "crash_good",
    .version = "2.0.1",
    .summary = "behaves, whatever its neighbours do",
    .profiles = profiles,
    .baseline = "plain",
    .dtypes = KLAB_DTYPE_BIT(KLAB_FP32) | KLAB_DTYPE_BIT(KLAB_FP16),
    .params = params,
    .setup = stub_setup,
    .run = stub_run,
    .verify = stub_verify,
    .teardown = stub_teardown,
    .work = good_work,
};


KLAB_PLUGIN_ENTRY(descriptor)
