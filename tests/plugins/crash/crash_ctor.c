/* crash_ctor.so: its library constructor calls abort(), so dlopen itself never returns in the worker
 * that loads it (killed by SIGABRT). The entry behind it would be valid. */
#include <stdlib.h>

#include "../stub_hooks.h"

__attribute__((constructor)) static void crash_ctor_init(void)
{
    abort();
}

STUB_ENTRY("crash_ctor", "aborts while it is loaded", (void)0)
