/* The e4m3 quantisation reference (plugins/fp8_gemm/fp8_quant_reference.c) by hand: codes of exact
 * values, round-to-nearest-even at every kind of tie, saturation at ±448 (infinities included), NaN,
 * every code read back and written again, the scales, the block layouts cuBLASLt reads, and the error
 * of one quantisation and of a quantised GEMM on random data, the figure fp8_gemm's tolerance rests on.
 * Pure CPU. */
#include <math.h>
#include <string.h>

#include "klab_test.h"

#include "plugins/fp8_gemm/fp8_gemm.h"
#include "plugins/fp8_gemm/fp8_quant.h"

static void test_exact_codes(void **state)
{
    (void)state;
    assert_int_equal(fp8q_e4m3_encode(0.0f), 0x00);
    assert_int_equal(fp8q_e4m3_encode(-0.0f), 0x80);
    assert_int_equal(fp8q_e4m3_encode(1.0f), 0x38);
    assert_int_equal(fp8q_e4m3_encode(-1.5f), 0xbc);
    assert_int_equal(fp8q_e4m3_encode(448.0f), 0x7e);
    assert_int_equal(fp8q_e4m3_encode(-448.0f), 0xfe);
    assert_int_equal(fp8q_e4m3_encode(ldexpf(1, -6)), 0x08);      /* the smallest normal */
    assert_int_equal(fp8q_e4m3_encode(ldexpf(1, -9)), 0x01);      /* the smallest subnormal */
    assert_int_equal(fp8q_e4m3_encode(7 * ldexpf(1, -9)), 0x07);  /* the largest subnormal */
    assert_int_equal(fp8q_e4m3_encode(ldexpf(1, -11)), 0x00);     /* a quarter step: to zero */
    assert_float_equal(fp8q_e4m3_decode(0x7e), 448.0, 0);
    assert_float_equal(fp8q_e4m3_decode(0x01), ldexp(1, -9), 0);
    assert_float_equal(fp8q_e4m3_decode(0xbc), -1.5, 0);
}

static void test_round_to_nearest_even(void **state)
{
    (void)state;
    /* ties between two normals: 1.0625 between 1 (m 0) and 1.125 (m 1) goes to m 0; 1.1875 between
       1.125 and 1.25 goes to m 2 */
    assert_int_equal(fp8q_e4m3_encode(1.0625f), 0x38);
    assert_int_equal(fp8q_e4m3_encode(1.1875f), 0x3a);
    /* a tie that carries into the exponent: 1.9375 between 1.875 (m 7) and 2 (m 0 of the next) */
    assert_int_equal(fp8q_e4m3_encode(1.9375f), 0x40);
    /* not ties: just off them */
    assert_int_equal(fp8q_e4m3_encode(nextafterf(1.0625f, 2)), 0x39);
    assert_int_equal(fp8q_e4m3_encode(nextafterf(1.1875f, 0)), 0x39);
    /* subnormal ties: 0.5, 1.5, 2.5 steps of 2^-9 go to 0, 2, 2 */
    assert_int_equal(fp8q_e4m3_encode(0.5f * ldexpf(1, -9)), 0x00);
    assert_int_equal(fp8q_e4m3_encode(1.5f * ldexpf(1, -9)), 0x02);
    assert_int_equal(fp8q_e4m3_encode(2.5f * ldexpf(1, -9)), 0x02);
    /* the tie between the largest subnormal and the smallest normal: 7.5 steps go to 8 (0x08) */
    assert_int_equal(fp8q_e4m3_encode(7.5f * ldexpf(1, -9)), 0x08);
    /* 432 between 416 (m 5) and 448 (m 6): to 448 */
    assert_int_equal(fp8q_e4m3_encode(432.0f), 0x7e);
    assert_int_equal(fp8q_e4m3_encode(-432.0f), 0xfe);
}

static void test_saturation_and_nan(void **state)
{
    (void)state;
    const float big[] = {nextafterf(448.0f, 1000), 464.0f, 480.0f, 1e30f, INFINITY};
    for (size_t i = 0; i < sizeof big / sizeof big[0]; i++) {
        assert_int_equal(fp8q_e4m3_encode(big[i]), 0x7e);
        assert_int_equal(fp8q_e4m3_encode(-big[i]), 0xfe);
    }
    assert_int_equal(fp8q_e4m3_encode(NAN), 0x7f);
    assert_int_equal(fp8q_e4m3_encode(-NAN), 0xff);
    assert_true(isnan(fp8q_e4m3_decode(0x7f)));
    assert_true(isnan(fp8q_e4m3_decode(0xff)));
}

/* Every code but NaN reads back to a value that encodes to itself; and values are ordered as codes. */
static void test_every_code_round_trips(void **state)
{
    (void)state;
    double prev = -1;
    for (int q = 0; q < 256; q++) {
        if ((q & 0x7f) == 0x7f)
            continue;
        double v = fp8q_e4m3_decode((uint8_t)q);
        assert_int_equal(fp8q_e4m3_encode((float)v), q);
        if (q < 0x7f) {
            assert_true(v > prev || q == 0);
            prev = v;
        }
    }
}

static void test_scales(void **state)
{
    (void)state;
    assert_float_equal(fp8q_scale(448.0f), 1.0f, 0);
    assert_float_equal(fp8q_scale(896.0f), 2.0f, 0);
    assert_float_equal(fp8q_inv_scale(896.0f), 0.5f, 0);
    /* an all-zero block, and amax that is not finite: scale 1, never 0 or NaN */
    const float odd[] = {0.0f, INFINITY, NAN, -1.0f};
    for (size_t i = 0; i < sizeof odd / sizeof odd[0]; i++) {
        assert_float_equal(fp8q_scale(odd[i]), 1.0f, 0);
        assert_float_equal(fp8q_inv_scale(odd[i]), 1.0f, 0);
    }
    assert_int_equal(fp8q_kblocks(4096), 32);
    assert_int_equal(fp8q_kblocks4(4096), 32);
    assert_int_equal(fp8q_kblocks(4100), 33);
    assert_int_equal(fp8q_kblocks4(4100), 36);
    assert_int_equal(fp8q_kblocks4(100), 4);
}

static void test_quantize_tensor(void **state)
{
    (void)state;
    /* amax 4: the factor is 112, so 1, -2, 0.5, 4 become 112, -224, 56, 448 (each 1.75 2^e) */
    const float x[4] = {1, -2, 0.5f, 4};
    uint8_t q[4];
    float s;
    fp8q_quantize_tensor(x, 4, q, &s);
    assert_int_equal(q[0], 0x6e);
    assert_int_equal(q[1], 0xf6);
    assert_int_equal(q[2], 0x66);
    assert_int_equal(q[3], 0x7e);
    assert_float_equal(s, 4.0f / 448.0f, 0);
    for (int i = 0; i < 4; i++)
        assert_float_equal(fp8q_e4m3_decode(q[i]) * s, x[i], 1e-6);
    /* all zeros: codes 0, scale 1 */
    const float z[2] = {0, -0.0f};
    fp8q_quantize_tensor(z, 2, q, &s);
    assert_int_equal(q[0], 0x00);
    assert_int_equal(q[1], 0x80);
    assert_float_equal(s, 1.0f, 0);
}

/* Two rows of 256 columns: four 1 x 128 blocks, each with its own amax; scales row index fastest. */
static void test_rows128_layout(void **state)
{
    (void)state;
    enum { R = 2, K = 256 };
    static float x[R * K];
    uint8_t q[R * K];
    float s[4];
    for (int r = 0; r < R; r++)
        for (int c = 0; c < K; c++)
            x[r * K + c] = (float)(r * 2 + c / 128 + 1) * (c % 2 ? -0.5f : 0.25f);
    x[1 * K + 200] = 8.0f; /* row 1, block 1: amax 8 */
    fp8q_quantize_rows128(x, R, K, q, s);
    assert_float_equal(s[0 * R + 0], 0.5f / 448, 1e-12); /* row 0 block 0: amax 1 * 0.5 */
    assert_float_equal(s[1 * R + 0], 1.0f / 448, 1e-12); /* row 0 block 1: amax 2 * 0.5 */
    assert_float_equal(s[0 * R + 1], 1.5f / 448, 1e-12); /* row 1 block 0: amax 3 * 0.5 */
    assert_float_equal(s[1 * R + 1], 8.0f / 448, 1e-12);
    assert_int_equal(q[1 * K + 200], 0x7e);
    assert_int_equal(q[1], 0xfe); /* row 0's -0.5, its block's amax */
}

/* 130 x 256: two row blocks (the second of 2 rows) by two column blocks; the stride is 4 (kb rounded up
   to 4), the padding left as it was. */
static void test_blocks128_layout(void **state)
{
    (void)state;
    enum { R = 130, K = 256 };
    static float x[R * K];
    static uint8_t q[R * K];
    float s[2 * 4];
    for (int i = 0; i < 8; i++)
        s[i] = -1;
    for (int i = 0; i < R * K; i++)
        x[i] = 0.001f;
    x[5 * K + 3] = 2.0f;     /* block (0, 0) */
    x[127 * K + 255] = -3.0f; /* block (0, 1) */
    x[128 * K + 0] = 5.0f;   /* block (1, 0) */
    x[129 * K + 130] = 7.0f; /* block (1, 1) */
    fp8q_quantize_blocks128(x, R, K, q, s);
    assert_float_equal(s[0], 2.0f / 448, 1e-12);
    assert_float_equal(s[1], 3.0f / 448, 1e-12);
    assert_float_equal(s[4], 5.0f / 448, 1e-12);
    assert_float_equal(s[5], 7.0f / 448, 1e-12);
    assert_float_equal(s[2], -1, 0);
    assert_float_equal(s[7], -1, 0);
    assert_int_equal(q[127 * K + 255], 0xfe);
    assert_int_equal(q[129 * K + 130], 0x7e);
}

/* Each 128 x 128 block is cast with one factor, 448 over that block's amax, in every one of its rows:
   the reference against a second, plain computation (the block's amax found by scanning the block's
   elements in index order) on a block whose rows span 2^-13 .. 2^20. The GPU quantiser once cast rows
   16.. of a block (its warps 1..7) with factor 1: row 2's 2^-6 values came out as subnormals (0x07)
   where one factor of 448 / 2^20 makes them 0. */
static void test_blocks128_one_factor(void **state)
{
    (void)state;
    enum { R = 130, K = 256 };
    static float x[R * K];
    static uint8_t q[R * K];
    float s[2 * 4];
    for (int r = 0; r < R; r++)
        for (int c = 0; c < K; c++)
            x[r * K + c] = ldexpf(c % 3 ? 0.75f : -0.875f, (r * 7 + c / 128) % 34 - 13);
    for (int c = 128; c < K; c++)
        x[2 * K + c] = ldexpf(0.875f, -6);
    x[35 * K + 140] = ldexpf(1.0f, 20); /* block (0, 1)'s amax, in a row past the first 16 */
    fp8q_quantize_blocks128(x, R, K, q, s);
    for (int rb = 0; rb < 2; rb++)
        for (int kb = 0; kb < 2; kb++) {
            float amax = 0;
            for (int i = 0; i < R * K; i++)
                if (i / K / 128 == rb && i % K / 128 == kb && fabsf(x[i]) > amax)
                    amax = fabsf(x[i]);
            assert_float_equal(s[rb * 4 + kb], amax / 448, 0);
            for (int i = 0; i < R * K; i++)
                if (i / K / 128 == rb && i % K / 128 == kb && q[i] != fp8q_e4m3_encode(x[i] * (448 / amax)))
                    fail_msg("block (%d, %d): byte %d is 0x%02x, one factor gives 0x%02x", rb, kb, i, q[i],
                             fp8q_e4m3_encode(x[i] * (448 / amax)));
        }
    assert_float_equal(s[1], ldexpf(1.0f, 20) / 448, 0);
    assert_int_equal(q[2 * K + 128], 0x00); /* byte 640 */
    assert_int_equal(q[35 * K + 140], 0x7e);
}

/* A small deterministic generator, uniform in [-1, 1), as the host fills inputs. */
static float uniform(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return (float)((double)(*s >> 11) / 9007199254740992.0 * 2 - 1);
}

/* One quantisation of uniform data: about 2^-9 / 3 of squared relative error a value (0.0255 rms);
   a GEMM of two quantised operands: about 0.036 relative l2 error, inside fp8_gemm's 0.0625. */
static void test_quantisation_error(void **state)
{
    (void)state;
    enum { M = 32, N = 32, K = 1024 };
    static float a[M * K], w[N * K];
    static uint8_t qa[M * K], qw[N * K];
    static double da[M * K], dw[N * K], xa[M * K], xw[N * K], ref[M * N], got[M * N];
    uint64_t seed = 12345;
    for (int i = 0; i < M * K; i++)
        a[i] = uniform(&seed);
    for (int i = 0; i < N * K; i++)
        w[i] = uniform(&seed);
    float sa, sw;
    fp8q_quantize_tensor(a, M * K, qa, &sa);
    fp8q_quantize_tensor(w, N * K, qw, &sw);
    double e2 = 0, v2 = 0;
    for (int i = 0; i < M * K; i++) {
        xa[i] = a[i];
        da[i] = fp8q_e4m3_decode(qa[i]) * sa;
        e2 += (da[i] - xa[i]) * (da[i] - xa[i]);
        v2 += xa[i] * xa[i];
    }
    for (int i = 0; i < N * K; i++) {
        xw[i] = w[i];
        dw[i] = fp8q_e4m3_decode(qw[i]) * sw;
    }
    double one = sqrt(e2 / v2);
    assert_true(one > 0.015 && one < 0.03);
    gemm_reference_tn(NULL, NULL, xa, xw, M, N, K, NULL, 0, ref);
    gemm_reference_tn(NULL, NULL, da, dw, M, N, K, NULL, 0, got);
    e2 = v2 = 0;
    for (int i = 0; i < M * N; i++) {
        e2 += (got[i] - ref[i]) * (got[i] - ref[i]);
        v2 += ref[i] * ref[i];
    }
    double gemm = sqrt(e2 / v2);
    assert_true(gemm > 0.025 && gemm < 0.045);
    assert_true(gemm < 6.25e-2 / 1.3); /* the tolerance keeps a margin */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exact_codes),         cmocka_unit_test(test_round_to_nearest_even),
        cmocka_unit_test(test_saturation_and_nan),  cmocka_unit_test(test_every_code_round_trips),
        cmocka_unit_test(test_scales),              cmocka_unit_test(test_quantize_tensor),
        cmocka_unit_test(test_rows128_layout),      cmocka_unit_test(test_blocks128_layout),
        cmocka_unit_test(test_blocks128_one_factor), cmocka_unit_test(test_quantisation_error),
    };
    KLAB_RUN_TESTS(tests);
}
