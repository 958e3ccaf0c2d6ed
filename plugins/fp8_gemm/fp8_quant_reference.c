/* The e4m3 quantisation on the CPU (fp8_quant.h says the rules): what the CPU tests check by hand and
 * what the GPU kernels' arithmetic follows. */
#include <math.h>

#include "fp8_quant.h"

uint8_t fp8q_e4m3_encode(float v)
{
    uint8_t sign = signbit(v) ? 0x80 : 0;
    if (isnan(v))
        return sign | 0x7f;
    double a = fabs((double)v);
    if (a >= FP8Q_E4M3_MAX) /* satfinite: infinities and everything past 448 */
        return sign | 0x7e;
    if (a < ldexp(1.0, -6)) /* subnormal: steps of 2^-9; 8 steps is the smallest normal, code 0x08 */
        return sign | (uint8_t)rint(a * 512.0);
    int ex;
    frexp(a, &ex); /* a = f 2^ex, f in [0.5, 1) */
    int e = ex - 1;
    int m = (int)rint((ldexp(a, -e) - 1.0) * 8.0); /* rint: the default mode, ties to even */
    if (m == 8) {
        m = 0;
        e++;
    }
    /* a < 448 keeps (e, m) at or below (8, 6): 0x7f, NaN, is never reached */
    return sign | (uint8_t)(((e + 7) << 3) | m);
}

double fp8q_e4m3_decode(uint8_t q)
{
    int e = (q >> 3) & 15, m = q & 7;
    double v;
    if (e == 15 && m == 7)
        v = NAN;
    else if (e == 0)
        v = ldexp((double)m, -9);
    else
        v = ldexp(1.0 + m / 8.0, e - 7);
    return (q & 0x80) ? -v : v;
}

static int usable(float amax)
{
    return amax > 0 && isfinite(amax);
}

float fp8q_scale(float amax)
{
    return usable(amax) ? amax / FP8Q_E4M3_MAX : 1.0f;
}

float fp8q_inv_scale(float amax)
{
    return usable(amax) ? FP8Q_E4M3_MAX / amax : 1.0f;
}

size_t fp8q_kblocks(size_t k)
{
    return (k + FP8Q_BLOCK - 1) / FP8Q_BLOCK;
}

size_t fp8q_kblocks4(size_t k)
{
    return (fp8q_kblocks(k) + 3) / 4 * 4;
}

/* The largest |x| of rows [r0, r1) x columns [c0, c1) of a row-major matrix with ld columns. NaN is
   skipped, as the GPU's fmaxf skips it. */
static float amax_of(const float *x, size_t ld, size_t r0, size_t r1, size_t c0, size_t c1)
{
    float m = 0;
    for (size_t r = r0; r < r1; r++)
        for (size_t c = c0; c < c1; c++)
            m = fmaxf(m, fabsf(x[r * ld + c]));
    return m;
}

static void cast_block(const float *x, size_t ld, size_t r0, size_t r1, size_t c0, size_t c1, float amax, uint8_t *q)
{
    const float inv = fp8q_inv_scale(amax);
    for (size_t r = r0; r < r1; r++)
        for (size_t c = c0; c < c1; c++)
            q[r * ld + c] = fp8q_e4m3_encode(x[r * ld + c] * inv);
}

void fp8q_quantize_tensor(const float *x, size_t count, uint8_t *q, float *s)
{
    float amax = amax_of(x, count, 0, 1, 0, count);
    cast_block(x, count, 0, 1, 0, count, amax, q);
    *s = fp8q_scale(amax);
}

void fp8q_quantize_rows128(const float *x, size_t rows, size_t k, uint8_t *q, float *s)
{
    for (size_t kb = 0; kb < fp8q_kblocks(k); kb++) {
        size_t c0 = kb * FP8Q_BLOCK, c1 = c0 + FP8Q_BLOCK < k ? c0 + FP8Q_BLOCK : k;
        for (size_t r = 0; r < rows; r++) {
            float amax = amax_of(x, k, r, r + 1, c0, c1);
            cast_block(x, k, r, r + 1, c0, c1, amax, q);
            s[kb * rows + r] = fp8q_scale(amax);
        }
    }
}

void fp8q_quantize_blocks128(const float *x, size_t rows, size_t k, uint8_t *q, float *s)
{
    for (size_t r0 = 0; r0 < rows; r0 += FP8Q_BLOCK) {
        size_t r1 = r0 + FP8Q_BLOCK < rows ? r0 + FP8Q_BLOCK : rows;
        for (size_t kb = 0; kb < fp8q_kblocks(k); kb++) {
            size_t c0 = kb * FP8Q_BLOCK, c1 = c0 + FP8Q_BLOCK < k ? c0 + FP8Q_BLOCK : k;
            float amax = amax_of(x, k, r0, r1, c0, c1);
            cast_block(x, k, r0, r1, c0, c1, amax, q);
            s[(r0 / FP8Q_BLOCK) * fp8q_kblocks4(k) + kb] = fp8q_scale(amax);
        }
    }
}
