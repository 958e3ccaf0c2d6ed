/* verify (device output against the float64 reference) and dtype (names, sizes, widening), on raw
 * buffers encoded by hand as bit patterns: every one of the 256 codes of each fp8 format against the
 * formats' definitions, integers compared exactly, sampled comparisons naming element indices. */
#include "klab_test.h"

#include <float.h>
#include <math.h>
#include <string.h>

#include "host/dtype.h"
#include "host/verify.h"

#define assert_near(a, b, eps) assert_true(fabs((double)(a) - (double)(b)) <= (eps))

/* The same four values in each dtype: 1, -2.5, 0.125, 3. */
static const double ref4[4] = {1.0, -2.5, 0.125, 3.0};
static const uint32_t f32_4[4] = {0x3F800000u, 0xC0200000u, 0x3E000000u, 0x40400000u};
static const uint16_t f16_4[4] = {0x3C00, 0xC100, 0x3000, 0x4200};
static const uint16_t b16_4[4] = {0x3F80, 0xC020, 0x3E00, 0x4040};

/* ---- verify_compare ---- */

static void expect_exact_pass(klab_dtype d, const void *raw)
{
    verify_result r;
    memset(&r, 0x5a, sizeof r);
    double tol = verify_default_tol(d);
    assert_int_equal(verify_compare("out", ref4, raw, d, 4, NULL, tol, &r), VERIFY_PASS);
    assert_int_equal(r.verdict, VERIFY_PASS);
    assert_true(r.rel_l2_err == 0);
    assert_true(r.max_abs_err == 0);
    assert_int_equal(r.bad, 0);
    assert_true(r.tol == tol);
    assert_near(r.ref_rms, verify_rms(ref4, 4), 0);
    assert_string_equal(r.msg, "");
}

static void test_exact_output_passes(void **state)
{
    (void)state;
    expect_exact_pass(KLAB_FP32, f32_4);
    expect_exact_pass(KLAB_FP16, f16_4);
    expect_exact_pass(KLAB_BF16, b16_4);
}

static void test_all_zeros_fail(void **state)
{
    (void)state;
    verify_result r;
    const uint32_t z32[4] = {0};
    assert_int_equal(verify_compare("out", ref4, z32, KLAB_FP32, 4, NULL, 1e-5, &r), VERIFY_MISMATCH);
    assert_non_null(strstr(r.msg, "all zeros"));
    assert_string_equal(r.msg, "out: output is all zeros (relative error 1 > 1e-05)");
    assert_true(r.rel_l2_err == 1);

    /* -0.0 is zero too; and even with a huge tolerance zeros never pass */
    const uint16_t z16[4] = {0x0000, 0x8000, 0x0000, 0x8000};
    assert_int_equal(verify_compare("y", ref4, z16, KLAB_FP16, 4, NULL, 10.0, &r), VERIFY_MISMATCH);
    assert_string_equal(r.msg, "y: output is all zeros (relative error 1 > 10)");
    assert_int_equal(verify_compare("y", ref4, z16, KLAB_BF16, 4, NULL, 10.0, &r), VERIFY_MISMATCH);
    assert_non_null(strstr(r.msg, "all zeros"));
}

static void test_poisoned_element_is_nonfinite(void **state)
{
    (void)state;
    verify_result r;
    /* the host's poison: all bits set, NaN in every float dtype */
    uint16_t f16[4], b16[4];
    uint32_t f32[4];
    memcpy(f16, f16_4, sizeof f16);
    memcpy(b16, b16_4, sizeof b16);
    memcpy(f32, f32_4, sizeof f32);
    f16[2] = 0xFFFF;
    b16[2] = 0xFFFF;
    f32[2] = 0xFFFFFFFFu;

    assert_int_equal(verify_compare("out", ref4, f16, KLAB_FP16, 4, NULL, 2e-3, &r), VERIFY_NONFINITE);
    assert_int_equal(r.bad, 1);
    assert_true(isnan(r.rel_l2_err));
    assert_non_null(strstr(r.msg, "out: 1 of 4 elements not finite (first [2] = "));
    assert_non_null(strstr(r.msg, "nan, want 0.125)"));

    assert_int_equal(verify_compare("out", ref4, b16, KLAB_BF16, 4, NULL, 1.6e-2, &r), VERIFY_NONFINITE);
    assert_non_null(strstr(r.msg, "(first [2] = "));
    assert_int_equal(verify_compare("out", ref4, f32, KLAB_FP32, 4, NULL, 1e-5, &r), VERIFY_NONFINITE);
    assert_non_null(strstr(r.msg, "(first [2] = "));

    /* a whole poisoned output (never written) */
    const uint16_t all[4] = {0xFFFF, 0xFFFF, 0xFFFF, 0xFFFF};
    assert_int_equal(verify_compare("out", ref4, all, KLAB_FP16, 4, NULL, 2e-3, &r), VERIFY_NONFINITE);
    assert_int_equal(r.bad, 4);
    assert_non_null(strstr(r.msg, "out: 4 of 4 elements not finite (first [0] = "));
}

static void test_inf_fails(void **state)
{
    (void)state;
    verify_result r;
    uint32_t f32[4];
    memcpy(f32, f32_4, sizeof f32);
    f32[1] = 0x7F800000u;
    assert_int_equal(verify_compare("out", ref4, f32, KLAB_FP32, 4, NULL, 1e-5, &r), VERIFY_NONFINITE);
    assert_string_equal(r.msg, "out: 1 of 4 elements not finite (first [1] = inf, want -2.5)");

    uint16_t f16[4];
    memcpy(f16, f16_4, sizeof f16);
    f16[3] = 0xFC00; /* -inf */
    assert_int_equal(verify_compare("out", ref4, f16, KLAB_FP16, 4, NULL, 2e-3, &r), VERIFY_NONFINITE);
    assert_string_equal(r.msg, "out: 1 of 4 elements not finite (first [3] = -inf, want 3)");

    uint16_t b16[4];
    memcpy(b16, b16_4, sizeof b16);
    b16[0] = 0x7F80;
    assert_int_equal(verify_compare("out", ref4, b16, KLAB_BF16, 4, NULL, 1.6e-2, &r), VERIFY_NONFINITE);
    assert_string_equal(r.msg, "out: 1 of 4 elements not finite (first [0] = inf, want 1)");
}

/* One element far off among many: the L2 norm hides it, the element rule does not. */
static void test_one_element_off_fails_by_element_rule(void **state)
{
    (void)state;
    enum { N = 65536, BAD = 12345 };
    double *ref = malloc(N * sizeof *ref);
    uint16_t *h = malloc(N * sizeof *h);
    assert_non_null(ref);
    assert_non_null(h);
    for (int i = 0; i < N; i++) {
        ref[i] = 1.0;
        h[i] = 0x3C00;
    }
    verify_result r;
    assert_int_equal(verify_compare("y", ref, h, KLAB_FP16, N, NULL, 2e-3, &r), VERIFY_PASS);

    h[BAD] = 0x3C80; /* 1.125 */
    assert_int_equal(verify_compare("y", ref, h, KLAB_FP16, N, NULL, 2e-3, &r), VERIFY_MISMATCH);
    assert_near(r.rel_l2_err, 0.125 / 256, 1e-15); /* 4.9e-4: under the tolerance */
    assert_true(r.rel_l2_err < r.tol);
    assert_true(r.max_abs_err == 0.125);
    assert_int_equal(r.bad, 1);
    assert_non_null(strstr(r.msg, "[12345]"));
    assert_string_equal(r.msg, "y: relative error 0.000488 (tolerance 0.002), 1 of 65536 elements off "
                               "(first [12345] = 1.125, want 1)");

    /* the same in fp32: 1 + 2^-13 among 10000 ones */
    uint32_t *f = malloc(10000 * sizeof *f);
    assert_non_null(f);
    for (int i = 0; i < 10000; i++)
        f[i] = 0x3F800000u;
    f[9999] = 0x3F800400u;
    assert_int_equal(verify_compare("z", ref, f, KLAB_FP32, 10000, NULL, 1e-5, &r), VERIFY_MISMATCH);
    assert_true(r.rel_l2_err < 1e-5);
    assert_int_equal(r.bad, 1);
    assert_non_null(strstr(r.msg, "(first [9999] = 1.00012, want 1)"));
    free(f);
    free(ref);
    free(h);
}

/* Over the tolerance in L2 with no single element outside the element bound. */
static void test_rel_l2_over_tolerance(void **state)
{
    (void)state;
    const double ref[4] = {1, 1, 1, 1};
    const uint16_t h[4] = {0x3C08, 0x3C08, 0x3C08, 0x3C08}; /* 1 + 8/1024 = 1.0078125 each */
    verify_result r;
    assert_int_equal(verify_compare("w", ref, h, KLAB_FP16, 4, NULL, 2e-3, &r), VERIFY_MISMATCH);
    assert_int_equal(r.bad, 0);
    assert_near(r.rel_l2_err, 0.0078125, 1e-15);
    assert_string_equal(r.msg, "w: relative error 0.00781 over tolerance 0.002");
    /* and a looser tolerance passes it */
    assert_int_equal(verify_compare("w", ref, h, KLAB_FP16, 4, NULL, 1e-2, &r), VERIFY_PASS);
}

/* A near-zero reference element is judged against rms(ref), not against itself. */
static void test_tiny_reference_judged_against_rms(void **state)
{
    (void)state;
    enum { N = 1024, K = 7 };
    double ref[N];
    uint16_t h[N];
    for (int i = 0; i < N; i++) {
        ref[i] = 1.0;
        h[i] = 0x3C00;
    }
    ref[K] = 1e-6;
    h[K] = 0x1419; /* 0.00100040...: an error of about 1e-3 x rms, 1000x the element itself */
    double rms = verify_rms(ref, N);
    assert_near(fabs(dtype_load(KLAB_FP16, h, K) - ref[K]), 1e-3 * rms, 1e-5);
    verify_result r;
    assert_int_equal(verify_compare("y", ref, h, KLAB_FP16, N, NULL, 2e-3, &r), VERIFY_PASS);
    assert_int_equal(r.bad, 0);
    assert_near(r.ref_rms, rms, 0);

    /* 0.05 on the same element is over 4 tau (|ref| + rms) = 0.008: it fails, though L2 is still fine */
    h[K] = 0x2A66; /* 0.0499878 */
    assert_int_equal(verify_compare("y", ref, h, KLAB_FP16, N, NULL, 2e-3, &r), VERIFY_MISMATCH);
    assert_true(r.rel_l2_err < 2e-3);
    assert_int_equal(r.bad, 1);
    assert_non_null(strstr(r.msg, "(first [7] = 0.0499878, want 1e-06)"));
}

/* ---- verify_reference_fit ---- */

static void test_reference_fit(void **state)
{
    (void)state;
    verify_result r;
    const double zero[4] = {0, 0, 0, 0};
    assert_int_equal(verify_reference_fit(zero, 4, 1.0, &r), VERIFY_REFUSED);
    assert_int_equal(r.verdict, VERIFY_REFUSED);
    assert_string_equal(r.msg, "reference nearly zero (rms 0 against input rms 1): an output of zeros would pass");
    /* exactly zero is refused even when the inputs are zero too */
    assert_int_equal(verify_reference_fit(zero, 4, 0.0, &r), VERIFY_REFUSED);
    assert_string_equal(r.msg, "reference nearly zero (rms 0 against input rms 0): an output of zeros would pass");

    const double tiny[4] = {1e-8, -1e-8, 1e-8, -1e-8}; /* 1e-8 of the input rms */
    assert_int_equal(verify_reference_fit(tiny, 4, 1.0, &r), VERIFY_REFUSED);
    assert_string_equal(r.msg, "reference nearly zero (rms 1e-08 against input rms 1): an output of zeros would pass");
    /* the same values are fine for inputs of that scale */
    assert_int_equal(verify_reference_fit(tiny, 4, 1e-8, &r), VERIFY_PASS);

    const double nan_ref[4] = {1, 2, NAN, 4};
    assert_int_equal(verify_reference_fit(nan_ref, 4, 1.0, &r), VERIFY_REFUSED);
    assert_string_equal(r.msg, "reference not finite at element 2");
    const double inf_ref[3] = {INFINITY, 1, 1};
    assert_int_equal(verify_reference_fit(inf_ref, 3, 1.0, &r), VERIFY_REFUSED);
    assert_string_equal(r.msg, "reference not finite at element 0");

    /* just over the 1e-6 line passes */
    const double small[4] = {2e-6, 2e-6, 2e-6, 2e-6};
    assert_int_equal(verify_reference_fit(small, 4, 1.0, &r), VERIFY_PASS);
    assert_near(r.ref_rms, 2e-6, 1e-20);
    assert_string_equal(r.msg, "");
    assert_int_equal(verify_reference_fit(ref4, 4, 0.577, &r), VERIFY_PASS);
}

static void test_default_tol_and_names(void **state)
{
    (void)state;
    assert_true(verify_default_tol(KLAB_FP32) == 1e-5);
    assert_true(verify_default_tol(KLAB_FP16) == 2e-3);
    assert_true(verify_default_tol(KLAB_BF16) == 1.6e-2);
    assert_true(verify_default_tol(KLAB_FP8_E4M3) == 6.25e-2);
    assert_true(verify_default_tol(KLAB_FP8_E5M2) == 1.25e-1);
    assert_true(verify_default_tol(KLAB_INT32) == 0);
    assert_true(verify_default_tol(KLAB_INT64) == 0);
    assert_true(verify_default_tol((klab_dtype)KLAB_DTYPE_COUNT) == 0);
    assert_string_equal(verify_verdict_name(VERIFY_PASS), "pass");
    assert_string_equal(verify_verdict_name(VERIFY_MISMATCH), "mismatch");
    assert_string_equal(verify_verdict_name(VERIFY_NONFINITE), "nonfinite");
    assert_string_equal(verify_verdict_name(VERIFY_REFUSED), "refused");
    const double v[2] = {3, 4};
    assert_near(verify_rms(v, 2), sqrt(12.5), 1e-15);
    assert_true(verify_rms(v, 0) == 0);
}

/* ---- dtype ---- */

static void test_dtype_names(void **state)
{
    (void)state;
    assert_int_equal(dtype_parse("fp32"), KLAB_FP32);
    assert_int_equal(dtype_parse("fp16"), KLAB_FP16);
    assert_int_equal(dtype_parse("bf16"), KLAB_BF16);
    assert_int_equal(dtype_parse("float32"), KLAB_FP32);
    assert_int_equal(dtype_parse("float16"), KLAB_FP16);
    assert_int_equal(dtype_parse("bfloat16"), KLAB_BF16);
    assert_int_equal(dtype_parse("FP16"), KLAB_FP16);
    assert_int_equal(dtype_parse("fp64"), -1);
    assert_int_equal(dtype_parse(""), -1);
    assert_int_equal(dtype_parse("fp16 "), -1);
    assert_int_equal(dtype_parse("half"), -1);
    assert_string_equal(dtype_name(KLAB_FP32), "fp32");
    assert_string_equal(dtype_name(KLAB_FP16), "fp16");
    assert_string_equal(dtype_name(KLAB_BF16), "bf16");
    assert_string_equal(dtype_name(KLAB_FP8_E4M3), "fp8e4m3");
    assert_string_equal(dtype_name(KLAB_FP8_E5M2), "fp8e5m2");
    assert_string_equal(dtype_name(KLAB_INT32), "int32");
    assert_string_equal(dtype_name(KLAB_INT64), "int64");
    assert_int_equal(dtype_parse("fp8_e4m3"), KLAB_FP8_E4M3);
    assert_int_equal(dtype_parse("float8_e4m3fn"), KLAB_FP8_E4M3);
    assert_int_equal(dtype_parse("FP8E5M2"), KLAB_FP8_E5M2);
    assert_int_equal(dtype_parse("float8_e5m2"), KLAB_FP8_E5M2);
    assert_int_equal(dtype_parse("int8"), -1);
    assert_string_equal(dtype_name(KLAB_DTYPE_COUNT), "?");
    assert_string_equal(dtype_name((klab_dtype)-1), "?");
    for (int d = 0; d < KLAB_DTYPE_COUNT; d++) {
        assert_int_equal(dtype_parse(dtype_name((klab_dtype)d)), d);
        assert_true(strlen(dtype_name((klab_dtype)d)) <= 7); /* a row's dtype column holds 7 */
    }
    assert_int_equal(klab_dtype_size(KLAB_FP32), 4);
    assert_int_equal(klab_dtype_size(KLAB_FP16), 2);
    assert_int_equal(klab_dtype_size(KLAB_BF16), 2);
    assert_int_equal(klab_dtype_size(KLAB_FP8_E4M3), 1);
    assert_int_equal(klab_dtype_size(KLAB_FP8_E5M2), 1);
    assert_int_equal(klab_dtype_size(KLAB_INT32), 4);
    assert_int_equal(klab_dtype_size(KLAB_INT64), 8);
    assert_int_equal(klab_dtype_size(KLAB_DTYPE_COUNT), 0);
    assert_false(dtype_is_integer(KLAB_FP8_E4M3));
    assert_true(dtype_is_integer(KLAB_INT32) && dtype_is_integer(KLAB_INT64));
}

/* ---- fp8: every code, against the OCP definitions written out independently ---- */

/* e4m3 ("fn"): sign, 4 exponent bits (bias 7), 3 mantissa bits; S.1111.111 is NaN; no infinities. */
static double e4m3_by_definition(unsigned b, int *nan)
{
    unsigned s = b >> 7, e = (b >> 3) & 15, m = b & 7;
    *nan = e == 15 && m == 7;
    double v = e == 0 ? (m / 8.0) * pow(2, 1 - 7) : (1 + m / 8.0) * pow(2, (int)e - 7);
    return s ? -v : v;
}

/* e5m2: sign, 5 exponent bits (bias 15), 2 mantissa bits; exponent 31 is infinity (m = 0) or NaN. */
static double e5m2_by_definition(unsigned b, int *nan)
{
    unsigned s = b >> 7, e = (b >> 2) & 31, m = b & 3;
    *nan = e == 31 && m != 0;
    double v = e == 31 ? INFINITY : e == 0 ? (m / 4.0) * pow(2, 1 - 15) : (1 + m / 4.0) * pow(2, (int)e - 15);
    return s ? -v : v;
}

static void test_fp8_every_code(void **state)
{
    (void)state;
    uint8_t codes[256];
    double wide[256];
    for (int k = 0; k < 2; k++) {
        klab_dtype d = k ? KLAB_FP8_E5M2 : KLAB_FP8_E4M3;
        for (unsigned b = 0; b < 256; b++)
            codes[b] = (uint8_t)b;
        dtype_to_double(d, codes, wide, 256);
        for (unsigned b = 0; b < 256; b++) {
            int nan;
            double want = k ? e5m2_by_definition(b, &nan) : e4m3_by_definition(b, &nan);
            double one = dtype_load(d, codes, b);
            if (nan) {
                if (!isnan(wide[b]) || !isnan(one))
                    fail_msg("%s code 0x%02x: %g, want NaN", dtype_name(d), b, wide[b]);
                continue;
            }
            if (!(wide[b] == want && one == want && signbit(wide[b]) == signbit(want)))
                fail_msg("%s code 0x%02x: %.17g, want %.17g", dtype_name(d), b, wide[b], want);
        }
    }
    uint8_t b;
    /* the landmarks, by hand */
    b = 0x7E; assert_true(dtype_load(KLAB_FP8_E4M3, &b, 0) == 448);          /* largest e4m3 */
    b = 0x38; assert_true(dtype_load(KLAB_FP8_E4M3, &b, 0) == 1);
    b = 0x08; assert_true(dtype_load(KLAB_FP8_E4M3, &b, 0) == ldexp(1, -6)); /* smallest normal */
    b = 0x01; assert_true(dtype_load(KLAB_FP8_E4M3, &b, 0) == ldexp(1, -9)); /* smallest subnormal */
    b = 0x78; assert_true(dtype_load(KLAB_FP8_E4M3, &b, 0) == 256);          /* exponent all ones: finite */
    b = 0x7F; assert_true(isnan(dtype_load(KLAB_FP8_E4M3, &b, 0)));
    b = 0xFF; assert_true(isnan(dtype_load(KLAB_FP8_E4M3, &b, 0)));
    b = 0x80; assert_true(dtype_load(KLAB_FP8_E4M3, &b, 0) == 0 && signbit(dtype_load(KLAB_FP8_E4M3, &b, 0)));
    b = 0x7B; assert_true(dtype_load(KLAB_FP8_E5M2, &b, 0) == 57344);        /* largest e5m2 */
    b = 0x3C; assert_true(dtype_load(KLAB_FP8_E5M2, &b, 0) == 1);
    b = 0x01; assert_true(dtype_load(KLAB_FP8_E5M2, &b, 0) == ldexp(1, -16));
    b = 0x7C; assert_true(isinf(dtype_load(KLAB_FP8_E5M2, &b, 0)) && dtype_load(KLAB_FP8_E5M2, &b, 0) > 0);
    b = 0xFC; assert_true(isinf(dtype_load(KLAB_FP8_E5M2, &b, 0)) && dtype_load(KLAB_FP8_E5M2, &b, 0) < 0);
    b = 0x7D; assert_true(isnan(dtype_load(KLAB_FP8_E5M2, &b, 0)));
}

static void test_integers_widen(void **state)
{
    (void)state;
    const int32_t i32[3] = {-5, INT32_MIN, INT32_MAX};
    const int64_t i64[2] = {-7, (int64_t)1 << 53};
    double out[3];
    dtype_to_double(KLAB_INT32, i32, out, 3);
    assert_true(out[0] == -5 && out[1] == -2147483648.0 && out[2] == 2147483647.0);
    dtype_to_double(KLAB_INT64, i64, out, 2);
    assert_true(out[0] == -7 && out[1] == 9007199254740992.0);
    assert_true(dtype_load(KLAB_INT64, i64, 1) == 9007199254740992.0);
}

/* ---- integers compare exactly; sampled comparisons name elements ---- */

static void test_integers_compare_exactly(void **state)
{
    (void)state;
    const int32_t got[4] = {1, 2, 3, 4};
    const double same[4] = {1, 2, 3, 4}, off[4] = {1, 2, 4, 4};
    verify_result r;
    assert_int_equal(verify_compare("idx", same, got, KLAB_INT32, 4, NULL, 0.5, &r), VERIFY_PASS);
    assert_true(r.rel_l2_err == 0 && r.tol == 0);
    /* one unit off fails whatever tolerance is asked: integers are exact */
    assert_int_equal(verify_compare("idx", off, got, KLAB_INT32, 4, NULL, 0.5, &r), VERIFY_MISMATCH);
    assert_int_equal(r.bad, 1);
    assert_string_equal(r.msg, "idx: 1 of 4 elements differ (integers compare exactly; first [2] = 3, want 4)");
    const size_t index[4] = {10, 20, 30, 40};
    assert_int_equal(verify_compare("idx", off, got, KLAB_INT32, 4, index, 0, &r), VERIFY_MISMATCH);
    assert_non_null(strstr(r.msg, "first [30] = 3, want 4"));
    const int64_t big[2] = {(int64_t)1 << 40, -3};
    const double want64[2] = {1099511627776.0, -3};
    assert_int_equal(verify_compare("off", want64, big, KLAB_INT64, 2, NULL, 0, &r), VERIFY_PASS);
}

static void test_sampled_compare_names_elements(void **state)
{
    (void)state;
    /* positions 0..3 of a sample stand for elements 7, 100, 5000, 70000 */
    const size_t index[4] = {7, 100, 5000, 70000};
    const double ref[4] = {1, -2.5, 0.125, 3};
    const uint32_t got[4] = {0x3F800000u, 0xC0200000u, 0x3E000000u, 0x40800000u}; /* the last is 4, not 3 */
    verify_result r;
    assert_int_equal(verify_compare("y", ref, got, KLAB_FP32, 4, index, 1e-5, &r), VERIFY_MISMATCH);
    assert_non_null(strstr(r.msg, "1 of 4 elements off (first [70000] = 4, want 3)"));
    const uint32_t nan[4] = {0x3F800000u, 0x7FC00000u, 0x3E000000u, 0x40400000u};
    assert_int_equal(verify_compare("y", ref, nan, KLAB_FP32, 4, index, 1e-5, &r), VERIFY_NONFINITE);
    assert_non_null(strstr(r.msg, "(first [100] = nan"));
}

static double f16(uint16_t bits)
{
    return dtype_load(KLAB_FP16, &bits, 0);
}

static double b16(uint16_t bits)
{
    return dtype_load(KLAB_BF16, &bits, 0);
}

static double f32(uint32_t bits)
{
    return dtype_load(KLAB_FP32, &bits, 0);
}

static void test_fp16_patterns(void **state)
{
    (void)state;
    assert_true(f16(0x3C00) == 1.0);
    assert_true(f16(0x4000) == 2.0);
    assert_true(f16(0x3800) == 0.5);
    assert_true(f16(0xC000) == -2.0);
    assert_true(f16(0xC100) == -2.5);
    assert_true(f16(0x3555) == 0.333251953125);
    assert_true(f16(0x7BFF) == 65504.0);            /* largest normal */
    assert_true(f16(0x0400) == ldexp(1, -14));      /* smallest normal */
    assert_true(f16(0x0001) == ldexp(1, -24));      /* smallest subnormal */
    assert_true(f16(0x03FF) == 1023 * ldexp(1, -24)); /* largest subnormal */
    assert_true(f16(0x8001) == -ldexp(1, -24));
    assert_true(f16(0x0000) == 0 && !signbit(f16(0x0000)));
    assert_true(f16(0x8000) == 0 && signbit(f16(0x8000)));
    assert_true(isinf(f16(0x7C00)) && f16(0x7C00) > 0);
    assert_true(isinf(f16(0xFC00)) && f16(0xFC00) < 0);
    assert_true(isnan(f16(0x7E00)));
    assert_true(isnan(f16(0x7C01)));
    assert_true(isnan(f16(0xFFFF)));
}

static void test_bf16_patterns(void **state)
{
    (void)state;
    assert_true(b16(0x3F80) == 1.0);
    assert_true(b16(0xBF80) == -1.0);
    assert_true(b16(0x4000) == 2.0);
    assert_true(b16(0xC2F7) == -123.5);
    assert_true(b16(0x3F81) == 1.0078125); /* 7 mantissa bits */
    assert_true(b16(0x7F7F) == (double)0x1.FEp127); /* largest finite */
    assert_true(b16(0x0080) == ldexp(1, -126));     /* smallest normal */
    assert_true(b16(0x0001) == ldexp(1, -133));     /* smallest subnormal */
    assert_true(b16(0x8000) == 0 && signbit(b16(0x8000)));
    assert_true(isinf(b16(0x7F80)) && b16(0x7F80) > 0);
    assert_true(isinf(b16(0xFF80)) && b16(0xFF80) < 0);
    assert_true(isnan(b16(0x7FC0)));
    assert_true(isnan(b16(0xFFFF)));
}

static void test_fp32_patterns(void **state)
{
    (void)state;
    assert_true(f32(0x3F800000u) == 1.0);
    assert_true(f32(0xC0200000u) == -2.5);
    assert_true(f32(0x3DCCCCCDu) == (double)0.1f);
    assert_true(f32(0x00000001u) == ldexp(1, -149));
    assert_true(f32(0x7F7FFFFFu) == (double)FLT_MAX);
    assert_true(isinf(f32(0x7F800000u)));
    assert_true(isnan(f32(0xFFFFFFFFu)));
}

static void test_to_double_arrays(void **state)
{
    (void)state;
    double out[4];
    dtype_to_double(KLAB_FP32, f32_4, out, 4);
    assert_memory_equal(out, ref4, sizeof out);
    dtype_to_double(KLAB_FP16, f16_4, out, 4);
    assert_memory_equal(out, ref4, sizeof out);
    dtype_to_double(KLAB_BF16, b16_4, out, 4);
    assert_memory_equal(out, ref4, sizeof out);
    /* indexing honours the element size */
    assert_true(dtype_load(KLAB_FP16, f16_4, 3) == 3.0);
    assert_true(dtype_load(KLAB_BF16, b16_4, 1) == -2.5);
    assert_true(dtype_load(KLAB_FP32, f32_4, 2) == 0.125);
    assert_true(isnan(dtype_load((klab_dtype)9, f32_4, 0)));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exact_output_passes),
        cmocka_unit_test(test_all_zeros_fail),
        cmocka_unit_test(test_poisoned_element_is_nonfinite),
        cmocka_unit_test(test_inf_fails),
        cmocka_unit_test(test_one_element_off_fails_by_element_rule),
        cmocka_unit_test(test_rel_l2_over_tolerance),
        cmocka_unit_test(test_tiny_reference_judged_against_rms),
        cmocka_unit_test(test_reference_fit),
        cmocka_unit_test(test_default_tol_and_names),
        cmocka_unit_test(test_dtype_names),
        cmocka_unit_test(test_fp16_patterns),
        cmocka_unit_test(test_bf16_patterns),
        cmocka_unit_test(test_fp32_patterns),
        cmocka_unit_test(test_to_double_arrays),
        cmocka_unit_test(test_fp8_every_code),
        cmocka_unit_test(test_integers_widen),
        cmocka_unit_test(test_integers_compare_exactly),
        cmocka_unit_test(test_sampled_compare_names_elements),
    };
    KLAB_RUN_TESTS(tests);
}
