/* What every klab test shares: cmocka, TAP output, and a way to say "skipped, and why". */
#ifndef KLAB_TEST_H
#define KLAB_TEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

/* ctest reads this exit code as "skipped" (SKIP_RETURN_CODE in tests/CMakeLists.txt). */
#define KLAB_TEST_SKIP 77

/* Runs a group with TAP output (CMOCKA_MESSAGE_OUTPUT may still override it). */
#define KLAB_RUN_TESTS(tests)                                       \
    do {                                                            \
        if (!getenv("CMOCKA_MESSAGE_OUTPUT"))                       \
            cmocka_set_message_output(CM_OUTPUT_TAP);               \
        return cmocka_run_group_tests(tests, NULL, NULL);           \
    } while (0)

/* The whole program is skipped: one TAP plan line with the reason, and the skip exit code. */
#define KLAB_SKIP_ALL(...)                                          \
    do {                                                            \
        printf("1..0 # SKIP ");                                     \
        printf(__VA_ARGS__);                                        \
        printf("\n");                                               \
        return KLAB_TEST_SKIP;                                      \
    } while (0)

#endif
