/* What the INI tests (test_ini_config, test_ini_cases, test_ini_check) share: the experiment they load
 * into, and the golden files, which live in tests/fixtures/ini/. */
#ifndef KLAB_INI_FIXTURE_H
#define KLAB_INI_FIXTURE_H

#include "config/ini_config.h"

#define INI_DIR KLAB_TEST_DATA "/fixtures/ini/"

extern cfg_experiment cfg;

/* file into cfg; the test fails with cfg_load's message if it is refused */
void load_ok(const char *file);

#endif
