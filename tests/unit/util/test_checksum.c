/* checksum_update: FNV-1a over 8-byte words, then the tail bytewise. How the host sees that a run
 * changed its inputs, so any changed bit must change the sum. */
#include "klab_test.h"

#include <string.h>

#include "util/checksum.h"

static void fill(unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        p[i] = (unsigned char)(seed >> 16);
    }
}

static void test_same_bytes_same_sum(void **state)
{
    (void)state;
    unsigned char a[1000], b[1000];
    fill(a, sizeof a, 7);
    memcpy(b, a, sizeof b);
    uint64_t ha = checksum_update(CHECKSUM_INIT, a, sizeof a);
    assert_true(ha == checksum_update(CHECKSUM_INIT, b, sizeof b));
    assert_true(ha == checksum_update(CHECKSUM_INIT, a, sizeof a)); /* no hidden state */
    assert_true(ha != CHECKSUM_INIT);
    /* other bytes, another sum */
    fill(b, sizeof b, 8);
    assert_true(ha != checksum_update(CHECKSUM_INIT, b, sizeof b));
}

static void test_known_values(void **state)
{
    (void)state;
    /* nothing: the start value */
    assert_true(checksum_update(CHECKSUM_INIT, "", 0) == CHECKSUM_INIT);
    /* under 8 bytes it is plain FNV-1a: the published test vectors */
    assert_true(checksum_update(CHECKSUM_INIT, "a", 1) == UINT64_C(0xaf63dc4c8601ec8c));
    assert_true(checksum_update(CHECKSUM_INIT, "foobar", 6) == UINT64_C(0x85944171f73967e8));
    /* one 8-byte word: one xor and one multiply */
    const unsigned char w[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    uint64_t word;
    memcpy(&word, w, 8);
    uint64_t want = (CHECKSUM_INIT ^ word) * UINT64_C(0x100000001b3);
    assert_true(checksum_update(CHECKSUM_INIT, w, 8) == want);
}

/* Flip every bit of a buffer with an 8-byte body and a 5-byte tail, one at a time. */
static void test_any_flipped_bit_changes_sum(void **state)
{
    (void)state;
    enum { N = 8 * 4 + 5 };
    unsigned char buf[N];
    fill(buf, N, 99);
    uint64_t base = checksum_update(CHECKSUM_INIT, buf, N);
    for (size_t i = 0; i < N; i++)
        for (int bit = 0; bit < 8; bit++) {
            buf[i] ^= (unsigned char)(1u << bit);
            uint64_t h = checksum_update(CHECKSUM_INIT, buf, N);
            if (h == base)
                fail_msg("flipping bit %d of byte %zu left the sum unchanged", bit, i);
            buf[i] ^= (unsigned char)(1u << bit);
        }
    assert_true(checksum_update(CHECKSUM_INIT, buf, N) == base);
}

static void test_length_matters(void **state)
{
    (void)state;
    unsigned char z[16] = {0};
    /* trailing zero bytes still count */
    assert_true(checksum_update(CHECKSUM_INIT, z, 15) != checksum_update(CHECKSUM_INIT, z, 16));
    assert_true(checksum_update(CHECKSUM_INIT, z, 8) != checksum_update(CHECKSUM_INIT, z, 16));
    assert_true(checksum_update(CHECKSUM_INIT, z, 1) != CHECKSUM_INIT);
}

/* Continuing over the second half gives the one-pass sum (halves of whole 8-byte words, as the host
   hashes whole tensors or word-aligned chunks). */
static void test_chaining_equals_one_pass(void **state)
{
    (void)state;
    enum { N = 4096 + 3 };
    unsigned char buf[N];
    fill(buf, N, 1234);
    uint64_t one = checksum_update(CHECKSUM_INIT, buf, N);
    for (size_t split = 0; split <= N; split += 8) {
        uint64_t h = checksum_update(CHECKSUM_INIT, buf, split);
        h = checksum_update(h, buf + split, N - split);
        if (h != one)
            fail_msg("split at %zu: %llx != %llx", split, (unsigned long long)h, (unsigned long long)one);
    }
    /* two exact halves of a word-multiple buffer */
    uint64_t whole = checksum_update(CHECKSUM_INIT, buf, 4096);
    uint64_t half = checksum_update(checksum_update(CHECKSUM_INIT, buf, 2048), buf + 2048, 2048);
    assert_true(whole == half);
    /* an unaligned start is fine: memcpy reads the words */
    unsigned char shifted[N + 1];
    memcpy(shifted + 1, buf, N);
    assert_true(checksum_update(CHECKSUM_INIT, shifted + 1, N) == one);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_bytes_same_sum),
        cmocka_unit_test(test_known_values),
        cmocka_unit_test(test_any_flipped_bit_changes_sum),
        cmocka_unit_test(test_length_matters),
        cmocka_unit_test(test_chaining_equals_one_pass),
    };
    KLAB_RUN_TESTS(tests);
}
