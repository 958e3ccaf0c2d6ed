/* abi_dtype_unknown.so, abi_dtype_future.so: dtype bits this host has no name for (dtypes only gain
 * values). Beside fp32 they are ignored; alone they leave nothing to run, a refusal. Built twice
 * (tests/plugins.cmake): ABI_FUTURE_ONLY drops fp32. */
#include "../stub_hooks.h"

#ifdef ABI_FUTURE_ONLY
#define DTYPES (1u << 20)
#else
#define DTYPES (KLAB_DTYPE_BIT(KLAB_FP32) | (1u << 20) | (1u << 31))
#endif

STUB_ENTRY(ABI_PLUGIN_NAME, "supports dtypes of a later ABI", stub.dtypes = DTYPES)
