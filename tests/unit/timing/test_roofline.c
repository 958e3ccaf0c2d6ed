/* roofline: the datasheet ceilings of a device, and the check that keeps an impossible figure out. */
#include "klab_test.h"

#include <math.h>
#include <string.h>

#include "timing/roofline.h"

#define assert_near(a, b, eps) assert_true(fabs((double)(a) - (double)(b)) <= (eps))

static device_info h200(void)
{
    device_info d;
    memset(&d, 0, sizeof d);
    snprintf(d.name, sizeof d.name, "NVIDIA H200");
    d.cc = 90;
    d.sms = 132;
    d.clock_khz = 1980000;
    d.mem_clock_khz = 3201000;
    d.bus_width_bits = 6144;
    d.l2_bytes = 60 * 1024 * 1024;
    return d;
}

static void test_h200_ceilings(void **state)
{
    (void)state;
    device_info d = h200();
    roofline r;
    roofline_from_device(&d, &r);
    /* 2 transfers a clock x 3.201 GHz x 768 bytes */
    assert_near(r.mem_gbps, 2.0 * 3.201e9 * 768 / 1e9, 1e-9);
    assert_near(r.mem_gbps, 4916.736, 1e-9);
    /* 132 SMs x 1.98 GHz x 4096 dense fp16 tensor operations per SM per clock */
    assert_near(r.tensor_tflops, 132 * 1.98e9 * 4096 / 1e12, 1e-9);
    assert_near(r.tensor_tflops, 1070.530560, 1e-6);
}

static void test_tensor_rate_by_architecture(void **state)
{
    (void)state;
    device_info d = h200();
    roofline r;
    d.cc = 80; /* A100: 2048 */
    roofline_from_device(&d, &r);
    assert_near(r.tensor_tflops, 132 * 1.98e9 * 2048 / 1e12, 1e-9);
    d.cc = 100; /* Blackwell: 8192 */
    roofline_from_device(&d, &r);
    assert_near(r.tensor_tflops, 132 * 1.98e9 * 8192 / 1e12, 1e-9);
    d.cc = 89; /* Ada: 1024 */
    roofline_from_device(&d, &r);
    assert_near(r.tensor_tflops, 132 * 1.98e9 * 1024 / 1e12, 1e-9);
    /* memory does not depend on the architecture */
    assert_near(r.mem_gbps, 4916.736, 1e-9);
}

/* Each dtype's peak: fp32, fp16 and bf16 the dense fp16 tensor peak; fp8 twice that where fp8 tensor
   cores exist (cc 8.9 on), else the fp16 one; integers none. An honest fp8 GEMM above the fp16 peak is
   not flagged. */
static void test_peak_by_dtype(void **state)
{
    (void)state;
    device_info d = h200();
    roofline r;
    roofline_from_device(&d, &r);
    double fp16 = 1070.530560;
    assert_near(roofline_for_dtype(&r, KLAB_FP16).tensor_tflops, fp16, 1e-6);
    assert_near(roofline_for_dtype(&r, KLAB_BF16).tensor_tflops, fp16, 1e-6);
    assert_near(roofline_for_dtype(&r, KLAB_FP32).tensor_tflops, fp16, 1e-6);
    assert_near(roofline_for_dtype(&r, KLAB_FP8_E4M3).tensor_tflops, 2 * fp16, 1e-6);
    assert_near(roofline_for_dtype(&r, KLAB_FP8_E5M2).tensor_tflops, 2 * fp16, 1e-6);
    assert_true(roofline_for_dtype(&r, KLAB_INT32).tensor_tflops == 0);
    assert_true(roofline_for_dtype(&r, KLAB_INT64).tensor_tflops == 0);
    assert_true(roofline_for_dtype(&r, KLAB_DTYPE_COUNT).tensor_tflops == 0);
    char why[256] = "untouched";
    roofline f8 = roofline_for_dtype(&r, KLAB_FP8_E4M3), f16 = roofline_for_dtype(&r, KLAB_FP16);
    assert_int_equal(roofline_exceeds(&f8, 100, 1500, why, sizeof why), 0);
    assert_int_equal(roofline_exceeds(&f16, 100, 1500, why, sizeof why), 1);
    roofline i32 = roofline_for_dtype(&r, KLAB_INT32);
    assert_int_equal(roofline_exceeds(&i32, 100, 1e9, why, sizeof why), 0); /* no arithmetic ceiling */
    assert_int_equal(roofline_exceeds(&i32, 5200, 0, why, sizeof why), 1);  /* memory still bounds it */
    d.cc = 80; /* A100: no fp8 tensor cores */
    roofline_from_device(&d, &r);
    assert_near(roofline_for_dtype(&r, KLAB_FP8_E4M3).tensor_tflops, r.tensor_tflops, 1e-9);
    d.cc = 89;
    roofline_from_device(&d, &r);
    assert_near(roofline_for_dtype(&r, KLAB_FP8_E4M3).tensor_tflops, 2 * r.tensor_tflops, 1e-9);
}

static void test_exceeds(void **state)
{
    (void)state;
    device_info d = h200();
    roofline r;
    roofline_from_device(&d, &r);
    char why[256];

    why[0] = 0;
    assert_int_equal(roofline_exceeds(&r, 5200, 0, why, sizeof why), 1);
    assert_non_null(strstr(why, "exceeds roofline"));
    assert_string_equal(why, "exceeds roofline: 5200 GB/s over the datasheet's 4917 GB/s");

    why[0] = 0;
    assert_int_equal(roofline_exceeds(&r, 100, 1500, why, sizeof why), 1);
    assert_non_null(strstr(why, "exceeds roofline"));
    assert_string_equal(why, "exceeds roofline: 1500.0 TFLOP/s over the peak 1070.5 TFLOP/s");

    snprintf(why, sizeof why, "untouched");
    assert_int_equal(roofline_exceeds(&r, 4000, 0, why, sizeof why), 0);
    assert_int_equal(roofline_exceeds(&r, 4000, 900, why, sizeof why), 0);
    assert_int_equal(roofline_exceeds(&r, 4916, 1070, why, sizeof why), 0);
    assert_string_equal(why, "untouched");
}

/* An unknown device (all zeros) bounds nothing rather than flagging everything. */
static void test_unknown_device_bounds_nothing(void **state)
{
    (void)state;
    device_info d;
    memset(&d, 0, sizeof d);
    roofline r;
    roofline_from_device(&d, &r);
    assert_true(r.mem_gbps == 0);
    assert_true(r.tensor_tflops == 0);
    char why[128] = "";
    assert_int_equal(roofline_exceeds(&r, 1e6, 1e6, why, sizeof why), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_h200_ceilings),
        cmocka_unit_test(test_tensor_rate_by_architecture),
        cmocka_unit_test(test_exceeds),
        cmocka_unit_test(test_peak_by_dtype),
        cmocka_unit_test(test_unknown_device_bounds_nothing),
    };
    KLAB_RUN_TESTS(tests);
}
