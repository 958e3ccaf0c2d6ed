/* abi_dtype0.so: a dtype mask of 0, so no case could ever run. */
#include "../stub_hooks.h"

STUB_ENTRY("abi_dtype0", "supports no dtype", stub.dtypes = 0)
