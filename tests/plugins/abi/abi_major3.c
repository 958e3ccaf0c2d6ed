/* abi_major3.so: a descriptor that says plugin ABI 3.1, a major this host does not speak. */
#include "../stub_hooks.h"

STUB_ENTRY("abi_major3", "built for a future ABI", stub.abi_major = 3; stub.abi_minor = 1)
