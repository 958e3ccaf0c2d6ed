/* crash_stall.so: sets up every case but one named "stall", whose setup never returns. A run (GPU)
 * of the INI [case quick] then [case stall] has a row on the way to its CSV when it stalls, for the
 * tests that stop or kill klab there (tests/test_supervisor.c). run() does nothing, so the rows are
 * "incorrect": what they say does not matter, only that they were measured. */
#define _POSIX_C_SOURCE 200809L
#include <string.h>
#include <unistd.h>

#include "../stub_hooks.h"

static klab_status stall_setup(klab_ctx *ctx, const klab_host *host, const klab_case *kcase, void **state)
{
    *state = NULL;
    if (strcmp(kcase->name, "stall") == 0)
        for (;;)
            pause(); /* no handler is installed: only a signal that kills ends this */
    size_t n = klab_case_elements(kcase);
    if (!host->tensor(ctx, "x", KLAB_INPUT, kcase->dtype, n) || !host->tensor(ctx, "y", KLAB_OUTPUT, kcase->dtype, n))
        return KLAB_ERROR;
    return KLAB_OK;
}

STUB_ENTRY("crash_stall", "its setup of case \"stall\" never returns", stub.setup = stall_setup)
