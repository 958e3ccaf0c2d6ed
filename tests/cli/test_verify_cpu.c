/* kb_verify_cpu: vector_add's verify() judged against outputs computed here on the CPU, no GPU: the
 * right sum passes in fp32 and fp16 (narrowed by klab/convert.h), a wrong one and an unwritten one
 * fail naming the tensor, a bad case is refused before setup. */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bench/klab_bench.h"
#include "klab/convert.h"
#include "klab_run.h"

#define VECTOR_ADD KLAB_BINARY_DIR "/plugins/vector_add.so"

static const char ini_text[] = "[experiment]\nplugin = vector_add\n\n"
                               "[case add]\nshape = 1000\nparam.op = add\ndtypes = fp32, fp16\n";

enum { RIGHT, WRONG, UNWRITTEN };

static float at(const kb_cpu_tensor *t, size_t i)
{
    return t->dtype == KLAB_FP16 ? klab_fp16_to_float(((const uint16_t *)t->data)[i]) : ((const float *)t->data)[i];
}

static void put(kb_cpu_tensor *t, size_t i, float v)
{
    if (t->dtype == KLAB_FP16)
        ((uint16_t *)t->data)[i] = klab_float_to_fp16(v);
    else
        ((float *)t->data)[i] = v;
}

/* vector_add's add as a kernel would compute it: c = a + b in float, rounded to the dtype. */
static int cpu_add(void *arg, const klab_case *kcase, int profile, kb_cpu_tensor *t, int n)
{
    int how = *(const int *)arg;
    assert_int_equal(n, 3);
    assert_int_equal(profile, 0);
    assert_string_equal(t[2].name, "c");
    assert_int_equal(t[0].count, 1000);
    assert_string_equal(kcase->name, "add");
    for (size_t i = 0; how != UNWRITTEN && i < t[2].count; i++)
        put(&t[2], i, how == RIGHT ? at(&t[0], i) + at(&t[1], i) : at(&t[0], i) - at(&t[1], i));
    return 0;
}

static int try_it(int dtype, int how, char *msg, size_t len)
{
    char ini[PATH_MAX + 16];
    snprintf(ini, sizeof ini, "%s/va.ini", kr_tmp);
    kr_write_file(ini, ini_text);
    return kb_verify_cpu(VECTOR_ADD, ini, 0, dtype, 0, cpu_add, &how, msg, len);
}

static void test_right_output_passes(void **state)
{
    (void)state;
    char msg[512];
    assert_int_equal(try_it(KLAB_FP32, RIGHT, msg, sizeof msg), 0);
    assert_string_equal(msg, "passed");
    assert_int_equal(try_it(KLAB_FP16, RIGHT, msg, sizeof msg), 0);
}

static void test_wrong_output_fails(void **state)
{
    (void)state;
    char msg[512];
    assert_int_equal(try_it(KLAB_FP32, WRONG, msg, sizeof msg), 1);
    kr_echo(msg);
    kr_expect_in(msg, "c: ");
    assert_int_equal(try_it(KLAB_FP16, UNWRITTEN, msg, sizeof msg), 1);
    kr_echo(msg);
    kr_expect_in(msg, "c: ");
}

/* What klab --validate refuses is refused here too, before any setup. */
static void test_bad_case_refused(void **state)
{
    (void)state;
    char ini[PATH_MAX + 16], msg[512];
    int how = RIGHT;
    snprintf(ini, sizeof ini, "%s/bad.ini", kr_tmp);
    kr_write_file(ini, "[experiment]\nplugin = vector_add\n\n[case add]\nshape = 1000\nparam.op = mul\n");
    assert_int_equal(kb_verify_cpu(VECTOR_ADD, ini, 0, KLAB_FP32, 0, cpu_add, &how, msg, sizeof msg), -1);
    kr_expect_in(msg, "bad.ini:6: key 'param.op': plugin 'vector_add' refuses 'mul': copy, add or triad");
    assert_int_equal(kb_verify_cpu(VECTOR_ADD, ini, 3, KLAB_FP32, 0, cpu_add, &how, msg, sizeof msg), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        KR_TEST(test_right_output_passes),
        KR_TEST(test_wrong_output_fails),
        KR_TEST(test_bad_case_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
