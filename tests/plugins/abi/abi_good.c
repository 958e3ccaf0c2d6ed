/* abi_good.so: a minimal plugin that keeps every rule; the loader test reads its descriptor back. */
#include "../stub_hooks.h"

static void good_work(const klab_case *kcase, klab_work *work)
{
    (void)kcase;
    work->bytes = 8;
    work->flops = 1;
}

static double good_tolerance(const klab_case *kcase)
{
    (void)kcase;
    return 0.25;
}

static const klab_profile profiles[] = {{"slow", "the first"}, {"fast", "the second"}, {NULL, NULL}};
static const char *const params[] = {"alpha", NULL};

static const klab_plugin descriptor = {
    .abi_major = KLAB_ABI_MAJOR,
    .abi_minor = KLAB_ABI_MINOR,
    .struct_size = sizeof(klab_plugin),
    .name = "abi_good",
    .version = "1.2.3",
    .summary = "keeps every rule",
    .profiles = profiles,
    .baseline = "fast",
    .dtypes = KLAB_DTYPE_BIT(KLAB_FP32) | KLAB_DTYPE_BIT(KLAB_BF16),
    .min_cc = 80,
    .params = params,
    .setup = stub_setup,
    .run = stub_run,
    .verify = stub_verify,
    .teardown = stub_teardown,
    .work = good_work,
    .tolerance = good_tolerance,
};


KLAB_PLUGIN_ENTRY(descriptor)
