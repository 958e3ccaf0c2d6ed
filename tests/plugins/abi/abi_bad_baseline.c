/* abi_bad_baseline.so: its baseline, "fused", is not one of its profiles. */
#include "../stub_hooks.h"

static const klab_profile two[] = {
    {.name = "baseline", .summary = "the slow one"}, {.name = "fast", .summary = "the fast one"}, {.name = NULL}};
STUB_ENTRY("abi_bad_baseline", "names a baseline it does not have", stub.profiles = two; stub.baseline = "fused")
