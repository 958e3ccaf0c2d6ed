/* abi_no_setup.so, abi_no_run.so, abi_no_verify.so, abi_no_teardown.so: one required hook left NULL.
 * Built four times (tests/plugins.cmake) with ABI_PLUGIN_NAME and one ABI_MISSING_<hook> defined. */
#include "../stub_hooks.h"

STUB_ENTRY(ABI_PLUGIN_NAME, "leaves a required hook NULL",
#ifdef ABI_MISSING_setup
           stub.setup = NULL
#elif defined(ABI_MISSING_run)
           stub.run = NULL
#elif defined(ABI_MISSING_verify)
           stub.verify = NULL
#else
           stub.teardown = NULL
#endif
)
