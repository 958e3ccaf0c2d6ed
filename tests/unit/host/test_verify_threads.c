/* verify_compare, verify_reference_fit and the widening on the worker's pool: every figure a row takes
 * from them (rel_l2_err, max_abs_err, ref_rms, the count of bad elements, the verdict and the message
 * naming the first) is byte for byte what the one-thread code before the pool gave (tests/unit/host/verify_v0.c,
 * its copy), at 1, 2, 3 and 4 threads (both of verify_compare's forms): passing outputs, bad elements
 * in later chunks than the first, elements not finite, zeros, a sampled comparison, lengths around the
 * chunk size, fp32, fp16, bf16, fp8 and int32. And input_scan (an input's checksum, widening and sum
 * of squares): the same bytes at every thread count, as its chunked definition written out serially
 * gives them. */
#include "klab_test.h"

#include <math.h>
#include <string.h>

#include "host/dtype.h"
#include "host/input_scan.h"
#include "host/parallel.h"
#include "host/verify.h"
#include "util/checksum.h"
#include "verify_v0.h"

#define CHUNK 65536 /* verify.c's chunk, so the cases below can put things in chunks after the first */

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static double unit(void)
{
    return (double)(next() >> 11) / 9007199254740992.0; /* [0, 1) */
}

/* A finite element of dtype d at `p`, magnitudes around 1 (a few binades either side). */
static void random_element(klab_dtype d, unsigned char *p)
{
    uint64_t r = next();
    switch (d) {
    case KLAB_FP32: {
        float f = (float)((unit() * 2 - 1) * ldexp(1, (int)(r % 9) - 4));
        memcpy(p, &f, 4);
        break;
    }
    case KLAB_FP16: {
        uint16_t h = (uint16_t)(((r >> 20) & 0x8000) | ((11 + r % 9) << 10) | (r >> 40 & 0x3ff));
        memcpy(p, &h, 2);
        break;
    }
    case KLAB_BF16: {
        uint16_t b = (uint16_t)(((r >> 20) & 0x8000) | ((123 + r % 9) << 7) | (r >> 40 & 0x7f));
        memcpy(p, &b, 2);
        break;
    }
    case KLAB_FP8_E4M3: {
        uint8_t b = (uint8_t)(((r >> 20) & 0x80) | ((4 + r % 7) << 3) | (r >> 40 & 0x7));
        *p = b;
        break;
    }
    case KLAB_INT32: {
        int32_t v = (int32_t)(r % 2001) - 1000;
        memcpy(p, &v, 4);
        break;
    }
    default:
        fail();
    }
}

static void put_nan(klab_dtype d, unsigned char *p)
{
    const uint32_t f = 0x7fc00000u;
    const uint16_t h = 0x7e00, b = 0x7fc0;
    switch (d) {
    case KLAB_FP32: memcpy(p, &f, 4); break;
    case KLAB_FP16: memcpy(p, &h, 2); break;
    case KLAB_BF16: memcpy(p, &b, 2); break;
    case KLAB_FP8_E4M3: *p = 0x7f; break;
    default: fail();
    }
}

typedef struct sample {
    klab_dtype d;
    size_t n, es;
    unsigned char *raw;
    double *ref;
} sample;

/* n random outputs and a reference within a part in 10^4 of them (a passing pair). */
static sample make(klab_dtype d, size_t n)
{
    sample s = {d, n, klab_dtype_size(d), NULL, NULL};
    s.raw = malloc(n * s.es + 1);
    s.ref = malloc((n + 1) * sizeof *s.ref);
    assert_non_null(s.raw);
    assert_non_null(s.ref);
    for (size_t i = 0; i < n; i++)
        random_element(d, s.raw + i * s.es);
    dtype_to_double(d, s.raw, s.ref, n);
    if (!dtype_is_integer(d))
        for (size_t i = 0; i < n; i++)
            s.ref[i] *= 1 + 1e-4 * (unit() * 2 - 1);
    return s;
}

static void drop(sample *s)
{
    free(s->raw);
    free(s->ref);
}

/* verify_compare at 1 to 4 threads against the code before the pool: the same bytes. */
static void expect_same(const sample *s, const size_t *index, double tol)
{
    verify_result want, got;
    memset(&want, 0x5a, sizeof want);
    verify_verdict v = v0_verify_compare("out", s->ref, s->raw, s->d, s->n, index, tol, &want);
    const int threads[] = {1, 2, 3, 4}; /* one pass up to two threads, chains then chunks from three */
    for (int t = 0; t < 4; t++) {
        assert_int_equal(parallel_set_threads(threads[t]), 0);
        memset(&got, 0xa5, sizeof got);
        assert_int_equal(verify_compare("out", s->ref, s->raw, s->d, s->n, index, tol, &got), v);
        if (memcmp(&got, &want, sizeof got) != 0)
            fail_msg("%s n=%zu at %d threads: '%s' rel %.17g max %.17g bad %zu, want '%s' rel %.17g max %.17g bad %zu",
                     dtype_name(s->d), s->n, threads[t], got.msg, got.rel_l2_err, got.max_abs_err, got.bad, want.msg,
                     want.rel_l2_err, want.max_abs_err, want.bad);
    }
    assert_int_equal(parallel_set_threads(0), 0);
}

static const klab_dtype floats[] = {KLAB_FP32, KLAB_FP16, KLAB_BF16, KLAB_FP8_E4M3};

static void test_passing_outputs(void **state)
{
    (void)state;
    const size_t sizes[] = {0, 1, 4095, CHUNK, CHUNK + 1, 3 * CHUNK + 1234};
    for (int k = 0; k < 4; k++)
        for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
            sample s = make(floats[k], sizes[z]);
            expect_same(&s, NULL, verify_default_tol(floats[k]));
            /* a tolerance no rounding meets: a relative-error mismatch without bad elements */
            expect_same(&s, NULL, 1e-7);
            drop(&s);
        }
}

static void test_bad_elements_in_later_chunks(void **state)
{
    (void)state;
    for (int k = 0; k < 4; k++) {
        sample s = make(floats[k], 4 * CHUNK + 77);
        double tol = verify_default_tol(floats[k]);
        s.ref[3 * CHUNK + 5] += 7;  /* the first bad one, in chunk 3 */
        s.ref[4 * CHUNK + 50] -= 9; /* the largest error, in the short last chunk */
        expect_same(&s, NULL, tol);
        s.ref[CHUNK + 1] += 0.5; /* now chunk 1 holds the first */
        expect_same(&s, NULL, tol);
        /* an element not finite after a bad one: first is still the bad one, the verdict nonfinite */
        put_nan(floats[k], s.raw + (2 * CHUNK + 9) * s.es);
        expect_same(&s, NULL, tol);
        /* and before it */
        put_nan(floats[k], s.raw + 17 * s.es);
        expect_same(&s, NULL, tol);
        drop(&s);
    }
}

static void test_zeros_and_samples(void **state)
{
    (void)state;
    for (int k = 0; k < 4; k++) {
        sample s = make(floats[k], 2 * CHUNK + 3);
        memset(s.raw, 0, s.n * s.es);
        expect_same(&s, NULL, verify_default_tol(floats[k]));
        drop(&s);
        /* a sampled comparison names the element by its index */
        s = make(floats[k], 3 * CHUNK);
        size_t *index = malloc(s.n * sizeof *index);
        assert_non_null(index);
        for (size_t i = 0; i < s.n; i++)
            index[i] = 5 * i + 3;
        s.ref[2 * CHUNK + 11] = -s.ref[2 * CHUNK + 11] + 3;
        expect_same(&s, index, verify_default_tol(floats[k]));
        free(index);
        drop(&s);
    }
}

static void test_integers(void **state)
{
    (void)state;
    sample s = make(KLAB_INT32, 2 * CHUNK + 5);
    expect_same(&s, NULL, 0);
    s.ref[CHUNK + 2] += 1;
    expect_same(&s, NULL, 0);
    drop(&s);
}

static void test_reference_fit(void **state)
{
    (void)state;
    sample s = make(KLAB_FP32, 3 * CHUNK + 9);
    verify_result want, got;
    const int threads[] = {1, 2, 4};
    for (int round = 0; round < 4; round++) {
        if (round == 1)
            s.ref[2 * CHUNK + 4] = NAN; /* not finite in chunk 2 */
        if (round == 2)
            s.ref[CHUNK - 1] = INFINITY; /* and earlier, at the end of chunk 0 */
        if (round == 3)
            for (size_t i = 0; i < s.n; i++)
                s.ref[i] = 1e-12 * (double)(i % 3); /* nearly zero against inputs of rms 1 */
        memset(&want, 0x5a, sizeof want);
        verify_verdict v = v0_verify_reference_fit(s.ref, s.n, 1.0, &want);
        assert_int_equal(v, round == 0 ? VERIFY_PASS : VERIFY_REFUSED);
        for (int t = 0; t < 3; t++) {
            assert_int_equal(parallel_set_threads(threads[t]), 0);
            memset(&got, 0xa5, sizeof got);
            assert_int_equal(verify_reference_fit(s.ref, s.n, 1.0, &got), v);
            assert_memory_equal(&got, &want, sizeof got);
        }
    }
    assert_int_equal(parallel_set_threads(0), 0);
    drop(&s);
}

/* input_scan's three figures, written out serially: the chunks' hashes hashed in order, the chunks'
   sums of squares added in order. */
static void scan_by_hand(klab_dtype d, const unsigned char *raw, size_t n, uint64_t *h, double *ss)
{
    size_t es = klab_dtype_size(d);
    double *w = malloc((n ? n : 1) * sizeof *w);
    assert_non_null(w);
    dtype_to_double(d, raw, w, n);
    for (size_t b = 0; b < n; b += INPUT_SCAN_CHUNK) {
        size_t m = n - b < INPUT_SCAN_CHUNK ? n - b : INPUT_SCAN_CHUNK;
        uint64_t c = checksum_update(CHECKSUM_INIT, raw + b * es, m * es);
        *h = checksum_update(*h, &c, sizeof c);
        double s = 0;
        for (size_t i = b; i < b + m; i++)
            s += w[i] * w[i];
        *ss += s;
    }
    free(w);
}

/* The checksum, widening and sum of squares the worker takes from an input: the same bytes at 1, 2
   and 4 threads, as written out serially, for every dtype; and the widening is dtype_to_double's. */
static void test_input_scan(void **state)
{
    (void)state;
    const size_t sizes[] = {0, 5, INPUT_SCAN_CHUNK, 2 * INPUT_SCAN_CHUNK + 321};
    unsigned char *raw = malloc(sizes[3] * 8);
    double *want = malloc(sizes[3] * sizeof *want), *got = malloc(sizes[3] * sizeof *got);
    assert_non_null(raw);
    assert_non_null(want);
    assert_non_null(got);
    for (size_t i = 0; i < sizes[3] * 8; i++)
        raw[i] = (unsigned char)next(); /* every pattern, NaNs and infinities included */
    for (int d = 0; d < KLAB_DTYPE_COUNT; d++)
        for (int z = 0; z < 4; z++) {
            size_t n = sizes[z];
            uint64_t hw = CHECKSUM_INIT;
            double sw = 0.25;
            scan_by_hand((klab_dtype)d, raw, n, &hw, &sw);
            dtype_to_double((klab_dtype)d, raw, want, n);
            for (int t = 1; t <= 4; t *= 2) {
                assert_int_equal(parallel_set_threads(t), 0);
                uint64_t h = CHECKSUM_INIT, h_only = CHECKSUM_INIT;
                double ss = 0.25, untouched = 0.5;
                memset(got, 0xff, n * sizeof *got);
                assert_int_equal(input_scan((klab_dtype)d, raw, n, &h, got, &ss), 0);
                assert_memory_equal(got, want, n * sizeof *got);
                assert_true(h == hw);
                if (isnan(sw)) /* a NaN's payload is whichever operand the compiler put first */
                    assert_true(isnan(ss));
                else
                    assert_memory_equal(&ss, &sw, sizeof ss);
                assert_int_equal(input_scan((klab_dtype)d, raw, n, &h_only, NULL, &untouched), 0);
                assert_true(h_only == hw);
                assert_true(untouched == 0.5);
            }
        }
    /* finite values, where the sum of squares has bits to compare */
    const klab_dtype finite[] = {KLAB_FP32, KLAB_FP16, KLAB_BF16, KLAB_FP8_E4M3, KLAB_INT32};
    for (int k = 0; k < 5; k++) {
        sample f = make(finite[k], 3 * INPUT_SCAN_CHUNK - 7);
        uint64_t hw = CHECKSUM_INIT;
        double sw = 0;
        scan_by_hand(f.d, f.raw, f.n, &hw, &sw);
        assert_true(isfinite(sw));
        for (int t = 1; t <= 4; t *= 2) {
            assert_int_equal(parallel_set_threads(t), 0);
            uint64_t h = CHECKSUM_INIT;
            double ss = 0;
            assert_int_equal(input_scan(f.d, f.raw, f.n, &h, f.ref, &ss), 0);
            assert_true(h == hw);
            assert_memory_equal(&ss, &sw, sizeof ss);
        }
        drop(&f);
    }
    /* one flipped bit anywhere changes the checksum */
    size_t n = sizes[3];
    uint64_t base = CHECKSUM_INIT;
    assert_int_equal(input_scan(KLAB_FP16, raw, n, &base, NULL, NULL), 0);
    const size_t at[] = {0, 1, 2 * INPUT_SCAN_CHUNK - 1, 2 * INPUT_SCAN_CHUNK + 320};
    for (int k = 0; k < 4; k++)
        for (int bit = 0; bit < 16; bit += 5) {
            raw[2 * at[k] + bit / 8] ^= (unsigned char)(1u << (bit % 8));
            uint64_t h = CHECKSUM_INIT;
            assert_int_equal(input_scan(KLAB_FP16, raw, n, &h, NULL, NULL), 0);
            assert_true(h != base);
            raw[2 * at[k] + bit / 8] ^= (unsigned char)(1u << (bit % 8));
        }
    assert_int_equal(parallel_set_threads(0), 0);
    free(raw);
    free(want);
    free(got);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_passing_outputs),
        cmocka_unit_test(test_bad_elements_in_later_chunks),
        cmocka_unit_test(test_zeros_and_samples),
        cmocka_unit_test(test_integers),
        cmocka_unit_test(test_reference_fit),
        cmocka_unit_test(test_input_scan),
    };
    KLAB_RUN_TESTS(tests);
}
