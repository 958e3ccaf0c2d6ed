/* abi_short_struct.so: a plugin from an older minor, seen from the host: its struct_size ends right
 * after the required hooks. The fields past it hold non-NULL hooks in memory, which the host MUST NOT
 * read (plugin.h, "Versioning"): the loader has to show them as absent. */
#include "../stub_hooks.h"

static void never_work(const klab_case *kcase, klab_work *work)
{
    (void)kcase;
    work->bytes = -1;
    work->flops = -1;
}

static double never_tolerance(const klab_case *kcase)
{
    (void)kcase;
    return -1;
}

static const klab_profile profiles[] = STUB_PROFILES;

static const klab_plugin descriptor = {
    .abi_major = KLAB_ABI_MAJOR,
    .abi_minor = 0,
    .struct_size = offsetof(klab_plugin, teardown) + sizeof(((klab_plugin *)0)->teardown),
    .profile_size = sizeof(klab_profile),
    .name = "abi_short_struct",
    .version = "0",
    .summary = "declares only the required part of the descriptor",
    .profiles = profiles,
    .dtypes = KLAB_DTYPE_BIT(KLAB_FP16),
    .setup = stub_setup,
    .run = stub_run,
    .verify = stub_verify,
    .teardown = stub_teardown,
    .work = never_work,           /* beyond struct_size: must read as NULL */
    .tolerance = never_tolerance, /* likewise */
};

KLAB_EXPORT const klab_plugin *klab_plugin_entry(uint32_t host_abi_major, uint32_t host_abi_minor);

KLAB_EXPORT const klab_plugin *klab_plugin_entry(uint32_t host_abi_major, uint32_t host_abi_minor)
{
    (void)host_abi_major;
    (void)host_abi_minor;
    return &descriptor;
}
