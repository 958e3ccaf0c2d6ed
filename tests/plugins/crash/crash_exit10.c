/* crash_exit10.c: its work hook calls exit(10), the exit status a worker once used alone to say "CUDA
 * context lost". klab --validate must report "exited with status 10": only a worker's LOST message
 * says a context was lost. */
#include <stdlib.h>

#include "../stub_hooks.h"

static void exit_work(const klab_case *kcase, klab_work *work)
{
    (void)kcase;
    (void)work;
    exit(10);
}

STUB_ENTRY("crash_exit10", "its work hook calls exit(10)", stub.work = exit_work)
