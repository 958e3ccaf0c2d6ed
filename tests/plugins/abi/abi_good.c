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

/* "block=N" for N = 64, 128, 256; the plugin's own choice (index -1) is 128 */
static const char *good_config(const klab_case *kcase, int index)
{
    (void)kcase;
    static const char *const space[] = {"block=64", "block=128", "block=256"};
    return index < 0 ? space[1] : index < 3 ? space[index] : NULL;
}

static const int sm80_sm90[] = {80, 90, 0};
static const klab_profile profiles[] = {
    {.name = "slow", .summary = "the first", .archs = sm80_sm90},
    {.name = "fast", .summary = "the second", .flags = KLAB_PROFILE_FIXED_TENSORS, .config = good_config},
    {.name = NULL}};
static const char *const params[] = {"alpha", NULL};
static const char *const dims[] = {"k", NULL};

static const klab_plugin descriptor = {
    KLAB_DESCRIPTOR_HEADER,
    .name = "abi_good",
    .version = "1.2.3",
    .summary = "keeps every rule",
    .profiles = profiles,
    .baseline = "fast",
    .dtypes = KLAB_DTYPE_BIT(KLAB_FP32) | KLAB_DTYPE_BIT(KLAB_BF16),
    .min_cc = 80,
    .params = params,
    .dims = dims,
    .flags = KLAB_PLUGIN_STEPS,
    .default_steps = 8,
    .setup = stub_setup,
    .run = stub_run,
    .verify = stub_verify,
    .teardown = stub_teardown,
    .work = good_work,
    .tolerance = good_tolerance,
};


KLAB_PLUGIN_ENTRY(descriptor)
