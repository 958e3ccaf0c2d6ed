/* ctl_text.so: a plugin whose descriptor strings hold control characters (an escape sequence that
 * would clear the screen, a bell, a carriage return that would overwrite the line). klab --list must
 * show them escaped, never send them to the terminal. */
#include "../stub_hooks.h"

static const klab_profile profiles[] = {
    {.name = "plain", .summary = "returns\rOVERWRITTEN"},
    {.name = NULL},
};
static const char *const params[] = {"k\x1b[31m", NULL};

static const klab_plugin descriptor = {
    KLAB_DESCRIPTOR_HEADER,
    .name = "ctl_text",
    .version = "1.0\a",
    .summary = "clears \x1b[2Jthe screen",
    .profiles = profiles,
    .baseline = "plain",
    .dtypes = KLAB_DTYPE_BIT(KLAB_FP32),
    .params = params,
    .setup = stub_setup,
    .run = stub_run,
    .verify = stub_verify,
    .teardown = stub_teardown,
};

KLAB_PLUGIN_ENTRY(descriptor)
