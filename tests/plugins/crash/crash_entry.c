/* crash_entry.so: its klab_plugin_entry dereferences a null pointer. Only the worker process that
 * loads it dies (killed by SIGSEGV); klab --list reports it REFUSED and lists the others. */
#include <stdint.h>

#include "../stub_hooks.h"

/* volatile: the compiler cannot see the pointer is NULL, so it emits a plain store (a compile-time
   null dereference could become a trap instruction and SIGILL instead). */
static int *volatile nowhere;

KLAB_EXPORT const klab_plugin *klab_plugin_entry(uint32_t host_abi_major, uint32_t host_abi_minor);

KLAB_EXPORT const klab_plugin *klab_plugin_entry(uint32_t host_abi_major, uint32_t host_abi_minor)
{
    *nowhere = (int)(host_abi_major + host_abi_minor);
    return NULL;
}
