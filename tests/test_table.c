/* table: the terminal table of a run and of `klab report`. Its cells come from INI files, plugins'
 * errors and CSV files read back: a control character in any of them is shown escaped, never sent to
 * the terminal. */
#include "klab_test.h"

#include <string.h>

#include "table.h"

static void test_cells_are_escaped(void **state)
{
    (void)state;
    klab_row r;
    memset(&r, 0, sizeof r);
    snprintf(r.kcase, sizeof r.kcase, "big\x1b[2J");
    snprintf(r.dtype, sizeof r.dtype, "fp32");
    snprintf(r.profile, sizeof r.profile, "fused");
    snprintf(r.l2, sizeof r.l2, "cold");
    snprintf(r.launch, sizeof r.launch, "stream");
    r.status = ROW_FAILED;
    snprintf(r.reason, sizeof r.reason, "setup: bad\nFAILED nothing\a");
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    assert_non_null(fp);
    table_print(fp, "t\x1b]0;title\a: 1 row", &r, 1);
    assert_int_equal(fclose(fp), 0);
    assert_non_null(strstr(buf, "\nt\\x1b]0;title\\x07: 1 row\n"));
    assert_non_null(strstr(buf, "\nbig\\x1b[2J       fp32  fused "));
    assert_non_null(strstr(buf, "setup: bad\\x0aFAILED nothing\\x07\n"));
    for (const char *p = buf; *p; p++)
        if ((unsigned char)*p < 0x20 && *p != '\n')
            fail_msg("raw control character \\x%02x at offset %d", *p, (int)(p - buf));
    free(buf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cells_are_escaped),
    };
    KLAB_RUN_TESTS(tests);
}
