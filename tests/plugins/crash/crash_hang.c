/* crash_hang.so: a valid descriptor whose optional work hook never returns. klab --validate calls
 * work (on the CPU, in a worker: runner.c job_validate), so the watchdog must kill that worker after
 * --timeout seconds and the validation go on with the next INI. */
#define _POSIX_C_SOURCE 200809L
#include <unistd.h>

#include "../stub_hooks.h"

static void hang_work(const klab_case *kcase, klab_work *work)
{
    (void)kcase;
    (void)work;
    for (;;)
        pause(); /* no signal handler is installed: only a signal that kills ends this */
}

static const klab_profile profiles[] = STUB_PROFILES;

static const klab_plugin descriptor = {
    KLAB_DESCRIPTOR_HEADER,
    .name = "crash_hang",
    .version = "0",
    .summary = "its work hook never returns",
    .profiles = profiles,
    .dtypes = KLAB_DTYPE_BIT(KLAB_FP32),
    .setup = stub_setup,
    .run = stub_run,
    .verify = stub_verify,
    .teardown = stub_teardown,
    .work = hang_work,
};

KLAB_PLUGIN_ENTRY(descriptor)
