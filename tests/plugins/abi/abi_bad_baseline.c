/* abi_bad_baseline.so: its baseline, "fused", is not one of its profiles. */
#include "../stub_hooks.h"

static const klab_profile profiles[] = {{"baseline", "the slow one"}, {"fast", "the fast one"}, {NULL, NULL}};

static const klab_plugin descriptor = {
    .abi_major = KLAB_ABI_MAJOR,
    .abi_minor = KLAB_ABI_MINOR,
    .struct_size = sizeof(klab_plugin),
    .name = "abi_bad_baseline",
    .version = "0",
    .summary = "names a baseline it does not have",
    .profiles = profiles,
    .baseline = "fused",
    .dtypes = KLAB_DTYPE_BIT(KLAB_FP32),
    .setup = stub_setup,
    .run = stub_run,
    .verify = stub_verify,
    .teardown = stub_teardown,
};

KLAB_EXPORT const klab_plugin *klab_plugin_entry(uint32_t host_abi_major, uint32_t host_abi_minor);

KLAB_EXPORT const klab_plugin *klab_plugin_entry(uint32_t host_abi_major, uint32_t host_abi_minor)
{
    (void)host_abi_major;
    (void)host_abi_minor;
    return &descriptor;
}
