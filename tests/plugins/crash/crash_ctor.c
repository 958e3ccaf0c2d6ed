/* crash_ctor.so: its library constructor calls abort(), so dlopen itself never returns in the worker
 * that loads it (killed by SIGABRT). The entry behind it would be valid. */
#include <stdlib.h>

#include "../stub_hooks.h"

__attribute__((constructor)) static void crash_ctor_init(void)
{
    abort();
}

static const klab_profile profiles[] = STUB_PROFILES;

static const klab_plugin descriptor = {
    .abi_major = KLAB_ABI_MAJOR,
    .abi_minor = KLAB_ABI_MINOR,
    .struct_size = sizeof(klab_plugin),
    .name = "crash_ctor",
    .version = "0",
    .summary = "aborts while it is loaded",
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
