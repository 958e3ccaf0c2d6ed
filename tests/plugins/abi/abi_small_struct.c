/* abi_small_struct.so: struct_size 16, too small to hold even the required hooks of ABI 1.0. */
#include "../stub_hooks.h"

static const klab_profile profiles[] = STUB_PROFILES;

static const klab_plugin descriptor = {
    .abi_major = KLAB_ABI_MAJOR,
    .abi_minor = KLAB_ABI_MINOR,
    .struct_size = 16,
    .name = "abi_small_struct",
    .version = "0",
    .summary = "declares a 16-byte descriptor",
    .profiles = profiles,
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
