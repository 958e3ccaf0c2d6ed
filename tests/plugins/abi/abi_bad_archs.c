/* abi_bad_archs.so, abi_small_profile.so: the 2.0 fields a loader must check before trusting them.
 * abi_bad_archs: a profile whose exact-architecture list holds nothing (a device would never run it);
 * abi_small_profile: a profile_size too small to hold a profile's name and summary. Built twice
 * (tests/plugins.cmake); ABI_SMALL_PROFILE picks the second. */
#include "../stub_hooks.h"

#ifdef ABI_SMALL_PROFILE
STUB_ENTRY(ABI_PLUGIN_NAME, "declares 8-byte profiles", stub.profile_size = 8)
#else
static const int nothing[] = {0};
static const klab_profile profiles[] = {{.name = "only", .summary = "runs nowhere", .archs = nothing}, {.name = NULL}};
STUB_ENTRY(ABI_PLUGIN_NAME, "a profile with an empty archs list", stub.profiles = profiles)
#endif
