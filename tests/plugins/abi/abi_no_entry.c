/* abi_no_entry.so: a valid descriptor behind the wrong symbol. It exports klab_entry, not
 * klab_plugin_entry, so the loader finds no entry (a C++ plugin without extern "C" looks the same). */
#include "../stub_hooks.h"

static klab_plugin descriptor;

KLAB_EXPORT const klab_plugin *klab_entry(uint32_t host_abi_major, uint32_t host_abi_minor);

KLAB_EXPORT const klab_plugin *klab_entry(uint32_t host_abi_major, uint32_t host_abi_minor)
{
    (void)host_abi_major;
    (void)host_abi_minor;
    descriptor = stub_descriptor("abi_no_entry", "exports the wrong symbol");
    return &descriptor;
}
