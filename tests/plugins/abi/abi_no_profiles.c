/* abi_no_profiles.so: a profile list that holds only its terminator. */
#include "../stub_hooks.h"

static const klab_profile none[] = {{.name = NULL}};
STUB_ENTRY("abi_no_profiles", "has nothing to time", stub.profiles = none)
