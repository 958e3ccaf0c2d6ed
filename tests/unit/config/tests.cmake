# core/config: the INI reader over fixtures/ini, cases and their checks, case building, the tuning cache
klab_test(test_ini_config SOURCES test_ini_config.c LABELS unit)
klab_test(test_ini_cases SOURCES test_ini_cases.c LABELS unit)
klab_test(test_ini_check SOURCES test_ini_check.c LABELS unit)
klab_test(test_case_build SOURCES test_case_build.c LABELS unit)
klab_test(test_tune_cache SOURCES test_tune_cache.c LABELS unit)
