/* abi_half_hook.so: a struct_size that ends four bytes into the optional `work` pointer. The bytes it
 * declares hold half of a real hook's address; the host must treat work as absent (calling half a
 * pointer once made the worker SIGSEGV), and tolerance, wholly beyond, as well. */
#include "../stub_hooks.h"

static void half_work(const klab_case *kcase, klab_work *work)
{
    (void)kcase;
    work->bytes = -1;
}

static double half_tolerance(const klab_case *kcase)
{
    (void)kcase;
    return -1;
}

STUB_ENTRY("abi_half_hook", "declares half of its work hook", stub.work = half_work;
           stub.tolerance = half_tolerance; stub.struct_size = offsetof(klab_plugin, work) + 4)
