/* fp8_gemm's quantisation kernels on a GPU against the CPU reference, byte for byte: per tensor (amax
 * launch, then the cast launch that writes the scales), per row and 128 columns, per 128 x 128 block (a
 * short last row block), with NaN (cast to NaN, ignored by amax), an infinity (its block's scale 1, the
 * infinity saturated to 448), an all-zero block (scale 1) and blocks of very different magnitudes. The
 * kernels and the reference follow the same float32 steps, so every byte and every scale must agree.
 *
 * Without a GPU the whole program is skipped with the reason (exit 77). */
#include <cuda_runtime.h>
#include <math.h>
#include <string.h>

#include "klab_gpu.h"

#include "plugins/fp8_gemm/fp8_quant.h"

enum { M = 5, N = 130, K = 256 };

static uint16_t bf16_of(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return (uint16_t)(u >> 16); /* truncation: the value is then exactly what float_of gives back */
}

static float float_of(uint16_t b)
{
    uint32_t u = (uint32_t)b << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* bf16 inputs (and their float values) whose 128-blocks span magnitudes 2^-20 .. 2^20 */
static void make_inputs(uint16_t *bits, float *vals, size_t rows, uint64_t seed)
{
    for (size_t i = 0; i < rows * K; i++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        double u = (double)(seed >> 11) / 9007199254740992.0 * 2 - 1;
        int blk = (int)((i / K) / 2 + (i % K) / 128);
        bits[i] = bf16_of((float)ldexp(u, (blk * 7) % 41 - 20));
        vals[i] = float_of(bits[i]);
    }
}

static void *dev_copy(const void *h, size_t bytes)
{
    void *d = NULL;
    assert_int_equal(cudaMalloc(&d, bytes), cudaSuccess);
    if (h)
        assert_int_equal(cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice), cudaSuccess);
    return d;
}

static void back(void *h, const void *d, size_t bytes)
{
    assert_int_equal(cudaDeviceSynchronize(), cudaSuccess);
    assert_int_equal(cudaMemcpy(h, d, bytes, cudaMemcpyDeviceToHost), cudaSuccess);
}

static void expect_bytes(const uint8_t *got, const uint8_t *want, size_t n, const char *what)
{
    for (size_t i = 0; i < n; i++)
        if (got[i] != want[i])
            fail_msg("%s: byte %zu is 0x%02x, the reference 0x%02x", what, i, got[i], want[i]);
}

static void expect_floats(const float *got, const float *want, size_t n, const char *what)
{
    for (size_t i = 0; i < n; i++)
        if (memcmp(&got[i], &want[i], 4))
            fail_msg("%s: scale %zu is %a, the reference %a", what, i, (double)got[i], (double)want[i]);
}

static void test_per_tensor(void **state)
{
    (void)state;
    static uint16_t a[M * K], w[N * K];
    static float fa[M * K], fw[N * K];
    static uint8_t qa[M * K], qw[N * K], ra[M * K], rw[N * K];
    make_inputs(a, fa, M, 1);
    make_inputs(w, fw, N, 2);
    a[7] = 0x7fc0; /* NaN: amax passes over it, the cast keeps it */
    fa[7] = float_of(a[7]);
    void *da = dev_copy(a, sizeof a), *dw = dev_copy(w, sizeof w), *dqa = dev_copy(NULL, sizeof qa),
         *dqw = dev_copy(NULL, sizeof qw), *damax = dev_copy(NULL, 8), *dscale = dev_copy(NULL, 2 * FP8Q_SCALE_STRIDE * sizeof(float));
    assert_int_equal(fp8q_amax2_launch(da, M * K, dw, N * K, damax, 4, 0), 0);
    assert_int_equal(fp8q_cast2_launch(da, M * K, dw, N * K, damax, dqa, dqw, dscale, 4, 0), 0);
    float s8[2 * FP8Q_SCALE_STRIDE], s[2], rs[2];
    back(qa, dqa, sizeof qa);
    back(qw, dqw, sizeof qw);
    back(s8, dscale, sizeof s8);
    s[0] = s8[0], s[1] = s8[FP8Q_SCALE_STRIDE];
    fp8q_quantize_tensor(fa, M * K, ra, &rs[0]);
    fp8q_quantize_tensor(fw, N * K, rw, &rs[1]);
    assert_int_equal(ra[7], 0x7f);
    expect_bytes(qa, ra, M * K, "A per tensor");
    expect_bytes(qw, rw, N * K, "W per tensor");
    expect_floats(s, rs, 2, "per-tensor scales");
    cudaFree(da), cudaFree(dw), cudaFree(dqa), cudaFree(dqw), cudaFree(damax), cudaFree(dscale);
}

static void test_per_block(void **state)
{
    (void)state;
    static uint16_t a[M * K], w[N * K];
    static float fa[M * K], fw[N * K];
    static uint8_t qa[M * K], qw[N * K], ra[M * K], rw[N * K];
    enum { SA = 2 * M, SW = 2 * 4 }; /* kb = 2, kb4 = 4, two row blocks of W */
    float sa[SA], sw[SW], rsa[SA], rsw[SW];
    make_inputs(a, fa, M, 3);
    make_inputs(w, fw, N, 4);
    a[1 * K + 3] = 0x7f80; /* +inf in A's row 1, block 0: its scale 1, saturated to 448 */
    a[2 * K + 5] = 0x7fc0; /* NaN in row 2, block 0 */
    for (int c = 128; c < 256; c++)
        a[3 * K + c] = 0; /* row 3, block 1: all zeros, scale 1 */
    w[129 * K + 200] = 0xff80; /* -inf in W's short second row block */
    for (size_t i = 0; i < M * K; i++)
        fa[i] = float_of(a[i]);
    for (size_t i = 0; i < N * K; i++)
        fw[i] = float_of(w[i]);
    for (int i = 0; i < SW; i++)
        sw[i] = rsw[i] = -1; /* the padding is left alone by both */
    void *da = dev_copy(a, sizeof a), *dw = dev_copy(w, sizeof w), *dqa = dev_copy(NULL, sizeof qa),
         *dqw = dev_copy(NULL, sizeof qw), *dsa = dev_copy(NULL, sizeof sa), *dsw = dev_copy(sw, sizeof sw);
    assert_int_equal(fp8q_block_launch(da, M, dw, N, K, dqa, dsa, dqw, dsw, 0), 0);
    back(qa, dqa, sizeof qa);
    back(qw, dqw, sizeof qw);
    back(sa, dsa, sizeof sa);
    back(sw, dsw, sizeof sw);
    fp8q_quantize_rows128(fa, M, K, ra, rsa);
    fp8q_quantize_blocks128(fw, N, K, rw, rsw);
    assert_int_equal(ra[1 * K + 3], 0x7e);
    assert_int_equal(rw[129 * K + 200], 0xfe);
    assert_float_equal(rsa[0 * M + 1], 1.0f, 0);
    assert_float_equal(rsa[1 * M + 3], 1.0f, 0);
    expect_bytes(qa, ra, M * K, "A per 1x128");
    expect_bytes(qw, rw, N * K, "W per 128x128");
    expect_floats(sa, rsa, SA, "1x128 scales");
    expect_floats(sw, rsw, SW, "128x128 scales");
    cudaFree(da), cudaFree(dw), cudaFree(dqa), cudaFree(dqw), cudaFree(dsa), cudaFree(dsw);
}

int main(void)
{
    KLAB_SKIP_WITHOUT_GPU();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_per_tensor),
        cmocka_unit_test(test_per_block),
    };
    KLAB_RUN_TESTS(tests);
}
