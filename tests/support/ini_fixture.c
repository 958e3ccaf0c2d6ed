#include "ini_fixture.h"

#include "klab_test.h"

cfg_experiment cfg; /* ~200 KiB: keep it off the stack */

void load_ok(const char *file)
{
    char err[1024] = "";
    int rc = cfg_load(file, &cfg, err, sizeof err);
    if (rc != 0)
        fail_msg("cfg_load(%s) failed: %s", file, err);
}
