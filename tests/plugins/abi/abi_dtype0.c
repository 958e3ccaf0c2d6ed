/* abi_dtype0.so: a dtype mask of 0, so no case could ever run. */
#include "../stub_hooks.h"

static const klab_profile profiles[] = STUB_PROFILES;

static const klab_plugin descriptor = {
    .abi_major = KLAB_ABI_MAJOR,
    .abi_minor = KLAB_ABI_MINOR,
    .struct_size = sizeof(klab_plugin),
    .name = "abi_dtype0",
    .version = "0",
    .summary = "supports no dtype",
    .profiles = profiles,
    .dtypes = 0,
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
