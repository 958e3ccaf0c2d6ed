/* abi_no_setup.so, abi_no_run.so, abi_no_verify.so, abi_no_teardown.so: one required hook left NULL.
 * Built four times (tests/plugins.cmake) with ABI_PLUGIN_NAME and one ABI_MISSING_<hook> defined. */
#include "../stub_hooks.h"

#ifdef ABI_MISSING_setup
#define SETUP NULL
#else
#define SETUP stub_setup
#endif
#ifdef ABI_MISSING_run
#define RUN NULL
#else
#define RUN stub_run
#endif
#ifdef ABI_MISSING_verify
#define VERIFY NULL
#else
#define VERIFY stub_verify
#endif
#ifdef ABI_MISSING_teardown
#define TEARDOWN NULL
#else
#define TEARDOWN stub_teardown
#endif

static const klab_profile profiles[] = STUB_PROFILES;

static const klab_plugin descriptor = {
    .abi_major = KLAB_ABI_MAJOR,
    .abi_minor = KLAB_ABI_MINOR,
    .struct_size = sizeof(klab_plugin),
    .name = ABI_PLUGIN_NAME,
    .version = "0",
    .summary = "leaves a required hook NULL",
    .profiles = profiles,
    .dtypes = KLAB_DTYPE_BIT(KLAB_FP32),
    .setup = SETUP,
    .run = RUN,
    .verify = VERIFY,
    .teardown = TEARDOWN,
};

KLAB_EXPORT const klab_plugin *klab_plugin_entry(uint32_t host_abi_major, uint32_t host_abi_minor);

KLAB_EXPORT const klab_plugin *klab_plugin_entry(uint32_t host_abi_major, uint32_t host_abi_minor)
{
    (void)host_abi_major;
    (void)host_abi_minor;
    return &descriptor;
}
