/* abi_name_mismatch.so: the file's stem says abi_name_mismatch, the descriptor says someone_else. */
#include "../stub_hooks.h"

STUB_ENTRY("someone_else", "was renamed on disk", (void)0)
