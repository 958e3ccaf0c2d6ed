/* abi_null_entry.so: its entry declines every host by returning NULL, as plugin.h allows. */
#include "../stub_hooks.h"

KLAB_EXPORT const klab_plugin *klab_plugin_entry(uint32_t host_abi_major, uint32_t host_abi_minor);

KLAB_EXPORT const klab_plugin *klab_plugin_entry(uint32_t host_abi_major, uint32_t host_abi_minor)
{
    (void)host_abi_major;
    (void)host_abi_minor;
    return NULL;
}
