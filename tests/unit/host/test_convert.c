/* klab/convert.h against known values and against a decoding of the bit fields written here: every
 * code of fp16, bf16, e4m3 and e5m2 widened alike (and alike by the host's dtype_load, which uses
 * it) and narrowed back to itself; the midpoint of
 * every two neighbours rounds to the even one and a step either side to the nearer; zeros, subnormals,
 * infinities, NaNs and the fp8 types' saturation. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "host/dtype.h"
#include "klab/convert.h"

/* The conversions of one dtype, for the checks every type shares. */
typedef struct fmt {
    klab_dtype dtype;
    int ebits, mbits, bias;
    int ieee;              /* 1: the all-ones exponent is infinity and NaN; 0: only S.1111.111 is NaN */
    unsigned codes;        /* 1 << bits */
    unsigned max_finite;   /* the largest finite positive code */
    float (*widen)(unsigned code);
    unsigned (*narrow)(float f);
} fmt;

static float w16(unsigned c) { return klab_fp16_to_float((uint16_t)c); }
static unsigned n16(float f) { return klab_float_to_fp16(f); }
static float wbf(unsigned c) { return klab_bf16_to_float((uint16_t)c); }
static unsigned nbf(float f) { return klab_float_to_bf16(f); }
static float w43(unsigned c) { return klab_e4m3_to_float((uint8_t)c); }
static unsigned n43(float f) { return klab_float_to_e4m3(f); }
static float w52(unsigned c) { return klab_e5m2_to_float((uint8_t)c); }
static unsigned n52(float f) { return klab_float_to_e5m2(f); }

static const fmt fmts[] = {
    {KLAB_FP16, 5, 10, 15, 1, 1u << 16, 0x7bff, w16, n16},
    {KLAB_BF16, 8, 7, 127, 1, 1u << 16, 0x7f7f, wbf, nbf},
    {KLAB_FP8_E4M3, 4, 3, 7, 0, 1u << 8, 0x7e, w43, n43},
    {KLAB_FP8_E5M2, 5, 2, 15, 1, 1u << 8, 0x7b, w52, n52},
};

/* The value of `code` from its sign, exponent and mantissa fields, by the textbook formula. */
static double decode(const fmt *f, unsigned code)
{
    unsigned sign = code >> (f->ebits + f->mbits), exp = (code >> f->mbits) & ((1u << f->ebits) - 1),
             man = code & ((1u << f->mbits) - 1), top = (1u << f->ebits) - 1;
    double v;
    if (f->ieee && exp == top)
        v = man ? NAN : INFINITY;
    else if (!f->ieee && exp == top && man == (1u << f->mbits) - 1)
        v = NAN;
    else if (exp == 0)
        v = ldexp((double)man, 1 - f->bias - f->mbits);
    else
        v = ldexp((double)(man | (1u << f->mbits)), (int)exp - f->bias - f->mbits);
    return sign ? -v : v;
}

/* Every code widens to its value, as the host widens it too, and a non-NaN narrows back to itself. */
static void test_every_code_round_trips(void **state)
{
    (void)state;
    for (size_t t = 0; t < sizeof fmts / sizeof *fmts; t++) {
        const fmt *f = &fmts[t];
        for (unsigned c = 0; c < f->codes; c++) {
            uint16_t raw = (uint16_t)c;
            uint8_t raw8 = (uint8_t)c;
            double host = dtype_load(f->dtype, f->codes == 256 ? (const void *)&raw8 : (const void *)&raw, 0);
            double want = decode(f, c);
            float v = f->widen(c);
            assert_true(isnan(host) == isnan(want) && (isnan(want) || host == want));
            if (isnan(want)) {
                assert_true(isnan(v));
                assert_true(isnan(f->widen(f->narrow(v)))); /* a NaN stays one */
                continue;
            }
            assert_true((double)v == want);
            if (isinf(v)) /* fp16 and bf16 only: the fp8 narrowing saturates (below) */
                continue;
            assert_int_equal(f->narrow(v), c);
        }
    }
}

/* Between each two neighbouring finite codes: the midpoint goes to the even code, anything nearer
   one of them to that one. */
static void test_neighbours_round_to_nearest_even(void **state)
{
    (void)state;
    for (size_t t = 0; t < sizeof fmts / sizeof *fmts; t++) {
        const fmt *f = &fmts[t];
        for (unsigned c = 0; c < f->max_finite; c++) {
            float lo = f->widen(c), hi = f->widen(c + 1);
            float mid = (float)(((double)lo + hi) / 2); /* exact: a float has the room, a float sum may not */
            assert_int_equal(f->narrow(mid), (c & 1) ? c + 1 : c);
            assert_int_equal(f->narrow(nextafterf(mid, 0)), c);
            assert_int_equal(f->narrow(nextafterf(mid, INFINITY)), c + 1);
            assert_int_equal(f->narrow(-mid), f->narrow(mid) | (f->codes >> 1)); /* the sign bit alone */
        }
    }
}

static void test_fp16_known_values(void **state)
{
    (void)state;
    assert_int_equal(klab_float_to_fp16(1.0f), 0x3c00);
    assert_int_equal(klab_float_to_fp16(-2.0f), 0xc000);
    assert_int_equal(klab_float_to_fp16(65504.0f), 0x7bff);
    assert_int_equal(klab_float_to_fp16(65519.99f), 0x7bff);
    assert_int_equal(klab_float_to_fp16(65520.0f), 0x7c00); /* halfway to 2^16: to even, which is infinity */
    assert_int_equal(klab_float_to_fp16(INFINITY), 0x7c00);
    assert_int_equal(klab_float_to_fp16(-INFINITY), 0xfc00);
    assert_int_equal(klab_float_to_fp16(0x1p-14f), 0x0400);  /* the smallest normal */
    assert_int_equal(klab_float_to_fp16(0x1p-24f), 0x0001);  /* the smallest subnormal */
    assert_int_equal(klab_float_to_fp16(0x1p-25f), 0x0000);  /* half of it: to even, zero */
    assert_int_equal(klab_float_to_fp16(0x1.8p-24f), 0x0002); /* one and a half: to even, two */
    assert_int_equal(klab_float_to_fp16(0x1p-26f), 0x0000);
    assert_int_equal(klab_float_to_fp16(0x1p-149f), 0x0000); /* a float subnormal */
    assert_int_equal(klab_float_to_fp16(-0.0f), 0x8000);
    assert_int_equal(klab_float_to_fp16(NAN), 0x7e00);
    assert_int_equal(klab_float_to_fp16(-NAN), 0xfe00);
    assert_true(klab_fp16_to_float(0x3555) == 0x1.554p-2f);
    assert_true(isinf(klab_fp16_to_float(0x7c00)) && isnan(klab_fp16_to_float(0x7c01)));
}

static void test_bf16_known_values(void **state)
{
    (void)state;
    assert_int_equal(klab_float_to_bf16(1.0f), 0x3f80);
    assert_int_equal(klab_float_to_bf16(1.0f + 0x1p-8f), 0x3f80); /* a tie: to even */
    assert_int_equal(klab_float_to_bf16(1.0f + 0x1.8p-7f), 0x3f82); /* a tie: to even, upwards */
    assert_int_equal(klab_float_to_bf16(0x1.fep127f), 0x7f7f);
    assert_int_equal(klab_float_to_bf16(0x1.ffp127f), 0x7f80); /* halfway past the largest: infinity */
    assert_int_equal(klab_float_to_bf16(0x1p-133f), 0x0001); /* a bf16 subnormal */
    assert_int_equal(klab_float_to_bf16(-INFINITY), 0xff80);
    assert_int_equal(klab_float_to_bf16(NAN), 0x7fc0);
    uint32_t snan = 0x7f800001u; /* a signalling NaN whose payload lies below bf16's bits: still a NaN */
    float fs;
    memcpy(&fs, &snan, sizeof fs);
    assert_true(isnan(klab_bf16_to_float(klab_float_to_bf16(fs))));
}

/* e4m3: no infinity; everything beyond 448 saturates to it, infinity included; NaN is 0x7f. */
static void test_e4m3_known_values(void **state)
{
    (void)state;
    assert_int_equal(klab_float_to_e4m3(1.0f), 0x38);
    assert_int_equal(klab_float_to_e4m3(448.0f), 0x7e);
    assert_int_equal(klab_float_to_e4m3(464.0f), 0x7e);
    assert_int_equal(klab_float_to_e4m3(1e9f), 0x7e);
    assert_int_equal(klab_float_to_e4m3(INFINITY), 0x7e);
    assert_int_equal(klab_float_to_e4m3(-INFINITY), 0xfe);
    assert_int_equal(klab_float_to_e4m3(NAN), 0x7f);
    assert_int_equal(klab_float_to_e4m3(-NAN), 0xff);
    assert_int_equal(klab_float_to_e4m3(0x1p-6f), 0x08);  /* the smallest normal */
    assert_int_equal(klab_float_to_e4m3(0x1p-9f), 0x01);  /* the smallest subnormal */
    assert_int_equal(klab_float_to_e4m3(0x1p-10f), 0x00); /* half of it: zero */
    assert_int_equal(klab_float_to_e4m3(0x1.8p-9f), 0x02);
    assert_int_equal(klab_float_to_e4m3(-0.0f), 0x80);
    assert_true(klab_e4m3_to_float(0x7e) == 448.0f && klab_e4m3_to_float(0xfe) == -448.0f);
    assert_true(klab_e4m3_to_float(0x07) == 0x1.cp-7f && isnan(klab_e4m3_to_float(0x7f)));
}

/* e5m2: infinity exists, but narrowing saturates to 57344 as the device's satfinite does. */
static void test_e5m2_known_values(void **state)
{
    (void)state;
    assert_int_equal(klab_float_to_e5m2(1.0f), 0x3c);
    assert_int_equal(klab_float_to_e5m2(57344.0f), 0x7b);
    assert_int_equal(klab_float_to_e5m2(61440.0f), 0x7b);
    assert_int_equal(klab_float_to_e5m2(INFINITY), 0x7b);
    assert_int_equal(klab_float_to_e5m2(-INFINITY), 0xfb);
    assert_int_equal(klab_float_to_e5m2(NAN), 0x7f);
    assert_int_equal(klab_float_to_e5m2(0x1p-14f), 0x04);
    assert_int_equal(klab_float_to_e5m2(0x1p-16f), 0x01);
    assert_int_equal(klab_float_to_e5m2(0x1p-17f), 0x00);
    assert_int_equal(klab_float_to_e5m2(0x1.8p-16f), 0x02);
    assert_true(isinf(klab_e5m2_to_float(0x7c)) && klab_e5m2_to_float(0xfc) < 0);
    assert_true(isnan(klab_e5m2_to_float(0x7d)) && isnan(klab_e5m2_to_float(0xff)));
    assert_true(klab_e5m2_to_float(0x7b) == 57344.0f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_code_round_trips),
        cmocka_unit_test(test_neighbours_round_to_nearest_even),
        cmocka_unit_test(test_fp16_known_values),
        cmocka_unit_test(test_bf16_known_values),
        cmocka_unit_test(test_e4m3_known_values),
        cmocka_unit_test(test_e5m2_known_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
