/* abi_major2.so: a descriptor that says plugin ABI 2.3, a major this host does not speak. */
#include "../stub_hooks.h"

STUB_ENTRY("abi_major2", "built for a future ABI", stub.abi_major = 2; stub.abi_minor = 3)
