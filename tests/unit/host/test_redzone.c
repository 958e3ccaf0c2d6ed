/* redzone: the guards around every tensor, judged from host bytes (what host_services reads back after
 * a verified run). A write before the start or past the end is named with the tensor, the side and
 * how many bytes changed. */
#include "klab_test.h"

#include <string.h>

#include "host/redzone.h"

static unsigned char before[REDZONE_BYTES], after[REDZONE_BYTES];
static char msg[256];

static int setup(void **state)
{
    (void)state;
    redzone_pattern(before, sizeof before);
    redzone_pattern(after, sizeof after);
    strcpy(msg, "untouched");
    return 0;
}

static void test_intact_guards_pass(void **state)
{
    (void)state;
    assert_int_equal(redzone_changed(before, sizeof before), 0);
    assert_int_equal(redzone_check(before, after, REDZONE_BYTES, "output", "y", 0, msg, sizeof msg), 0);
    assert_string_equal(msg, "untouched");
}

static void test_past_the_end(void **state)
{
    (void)state;
    memset(after, 0, 48); /* twelve floats of zeros just past the end */
    assert_int_equal(redzone_check(before, after, REDZONE_BYTES, "output", "y", 0, msg, sizeof msg), 1);
    assert_string_equal(msg, "output 'y': 48 bytes past its end were written");
}

static void test_before_the_start(void **state)
{
    (void)state;
    for (int i = 0; i < 16; i++)
        before[REDZONE_BYTES - 1 - i] ^= 0xff; /* the 16 bytes right before the tensor */
    assert_int_equal(redzone_check(before, after, REDZONE_BYTES, "input", "x", 0, msg, sizeof msg), 1);
    assert_string_equal(msg, "input 'x': 16 bytes before its start were written");
}

static void test_both_sides_of_a_copy(void **state)
{
    (void)state;
    before[0] ^= 1;
    after[REDZONE_BYTES - 1] ^= 0x80;
    after[100] ^= 0x10;
    assert_int_equal(redzone_check(before, after, REDZONE_BYTES, "state", "kv", 3, msg, sizeof msg), 1);
    assert_string_equal(msg, "state 'kv' (copy 3): 1 bytes before its start and 2 bytes past its end were written");
}

/* No constant a kernel might spill (zeros, ones, 0xff, the pattern's first byte) leaves the guard
   looking intact: the pattern is not one repeated byte. */
static void test_constant_spills_are_seen(void **state)
{
    (void)state;
    const int fills[] = {0x00, 0x01, 0xff, before[0]};
    for (int k = 0; k < 4; k++) {
        unsigned char g[256];
        memset(g, fills[k], sizeof g);
        if (redzone_changed(g, sizeof g) < 200)
            fail_msg("a guard of 0x%02x bytes differs from the pattern in only %zu of 256 bytes", fills[k],
                     redzone_changed(g, sizeof g));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_intact_guards_pass, setup),
        cmocka_unit_test_setup(test_past_the_end, setup),
        cmocka_unit_test_setup(test_before_the_start, setup),
        cmocka_unit_test_setup(test_both_sides_of_a_copy, setup),
        cmocka_unit_test_setup(test_constant_spills_are_seen, setup),
    };
    KLAB_RUN_TESTS(tests);
}
