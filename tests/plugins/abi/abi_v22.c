/* abi_v22_desc.so and abi_v22_profile.so: plugins of a future minor, 2.2, in this 2.1 host. A 2.2
 * descriptor has a field 2.1 does not know appended; a 2.2 profile has one too, so the descriptor's
 * profile_size is larger than this host's klab_profile. The host must load both, read its own fields
 * and stride over the profiles by profile_size. Built twice (tests/plugins.cmake): ABI_V22_DESC
 * grows the descriptor, else the profiles grow.
 *
 * The other direction, a plugin that uses a service newer than its host: setup calls the 2.2 host's
 * future_service only when KLAB_HAS_FIELD says the host has it, and tells the test through *state what
 * it found (tests/test_loader.c hands it a 2.1 and a 2.2 host table). */
#include "../stub_hooks.h"

/* What 2.2 appends, here. */
typedef struct klab_host_22 {
    klab_host base;
    uint64_t (*future_service)(klab_ctx *ctx);
} klab_host_22;

typedef struct klab_profile_22 {
    klab_profile base;
    const char *future_field;
} klab_profile_22;

typedef struct klab_plugin_22 {
    klab_plugin base;
    double (*future_hook)(const klab_case *kcase);
} klab_plugin_22;

/* *state: the device's cc from the 2.0 service, plus the 2.2 service's answer when there is one. */
static klab_status v22_setup(klab_ctx *ctx, const klab_host *host, const klab_case *kcase, void **state)
{
    (void)kcase;
    uint64_t v = (uint64_t)host->device_cc(ctx);
    if (KLAB_HAS_FIELD(klab_host_22, host->struct_size, future_service))
        v += ((const klab_host_22 *)host)->future_service(ctx);
    *state = (void *)(uintptr_t)v;
    return KLAB_OK;
}

static double future_hook(const klab_case *kcase)
{
    (void)kcase;
    return 42;
}

#ifdef ABI_V22_DESC
static const klab_profile profiles[] = {{.name = "first", .summary = "a 2.1 profile"},
                                        {.name = "second", .summary = "another", .flags = KLAB_PROFILE_OWNS_GRAPH},
                                        {.name = NULL}};
#define PROFILES profiles
#define PROFILE_SIZE sizeof(klab_profile)
#define DESC_SIZE sizeof(klab_plugin_22)
#else
static const klab_profile_22 profiles[] = {
    {{.name = "first", .summary = "a 2.2 profile"}, "beyond"},
    {{.name = "second", .summary = "another", .flags = KLAB_PROFILE_OWNS_GRAPH | 0x80u}, "beyond"},
    {{.name = NULL}, NULL}};
#define PROFILES (const klab_profile *)profiles
#define PROFILE_SIZE sizeof(klab_profile_22)
#define DESC_SIZE sizeof(klab_plugin)
#endif

static const klab_plugin_22 descriptor = {
    {.abi_major = KLAB_ABI_MAJOR,
     .abi_minor = 2,
     .struct_size = DESC_SIZE,
     .profile_size = PROFILE_SIZE,
     .name = ABI_PLUGIN_NAME,
     .version = "2.2.0",
     .summary = "built against a 2.2 SDK",
     .profiles = PROFILES,
     .baseline = "second",
     .dtypes = KLAB_DTYPE_BIT(KLAB_FP8_E4M3) | KLAB_DTYPE_BIT(KLAB_INT32),
     .setup = v22_setup,
     .run = stub_run,
     .verify = stub_verify,
     .teardown = stub_teardown,
     .tolerance = NULL},
    future_hook,
};

KLAB_PLUGIN_ENTRY(descriptor.base)
