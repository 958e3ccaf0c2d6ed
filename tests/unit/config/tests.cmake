# core/config: the INI reader over fixtures/ini, cases and their checks, case building, the tuning cache
klab_test(test_ini_config SOURCES test_ini_config.c LABELS unit)
klab_test(test_ini_cases SOURCES test_ini_cases.c LABELS unit)
klab_test(test_ini_check SOURCES test_ini_check.c LABELS unit)
klab_test(test_case_build SOURCES test_case_build.c LABELS unit)
klab_test(test_tune_cache SOURCES test_tune_cache.c LABELS unit)
# golden files in inih's style: every fixtures/ini/*.ini as ini_walk and cfg_load read it (each key
# with its line, each resolved case, or the file:line message) against <name>.ini.expected beside it;
# after an intended change: build/tests/ini_golden tests/fixtures/ini --write, then review the diff
klab_test(ini_golden SOURCES ini_golden.c LABELS unit ARGS ${KLAB_TESTS_DIR}/fixtures/ini)
# a case made with --shape or --dim: its name and keys (config/adhoc_case.c), and its [selection]
# entries, read back by --resume
klab_test(test_adhoc_case SOURCES test_adhoc_case.c LABELS unit)
