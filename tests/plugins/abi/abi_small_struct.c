/* abi_small_struct.so: struct_size 16, too small to hold even the required part of ABI 2.0. */
#include "../stub_hooks.h"

STUB_ENTRY("abi_small_struct", "declares a 16-byte descriptor", stub.struct_size = 16)
