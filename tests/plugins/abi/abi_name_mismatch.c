/* abi_name_mismatch.so: the file's stem says abi_name_mismatch, the descriptor says someone_else. */
#include "../stub_hooks.h"

static const klab_profile profiles[] = STUB_PROFILES;

static const klab_plugin descriptor = {
    .abi_major = KLAB_ABI_MAJOR,
    .abi_minor = KLAB_ABI_MINOR,
    .struct_size = sizeof(klab_plugin),
    .name = "someone_else",
    .version = "0",
    .summary = "was renamed on disk",
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
