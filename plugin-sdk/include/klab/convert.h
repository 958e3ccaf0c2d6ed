/*
 * klab/convert.h — the 16- and 8-bit float dtypes on the host, to and from float, in C and C++, with
 * no CUDA header: for setup() data a plugin builds itself (fill_data takes the tensor's own dtype) and
 * for tests of a reference. Header-only; nothing here is ABI.
 *
 *   klab_fp16_to_float / klab_float_to_fp16   IEEE binary16 (KLAB_FP16)
 *   klab_bf16_to_float / klab_float_to_bf16   bfloat16 (KLAB_BF16)
 *   klab_e4m3_to_float / klab_float_to_e4m3   OCP fp8 e4m3 (KLAB_FP8_E4M3)
 *   klab_e5m2_to_float / klab_float_to_e5m2   OCP fp8 e5m2 (KLAB_FP8_E5M2)
 *
 * Narrowing rounds to nearest, ties to even, as the device's conversions do. Overflow: fp16 and bf16
 * give infinity (IEEE); the fp8 types saturate to their largest finite value (448, 57344), infinity
 * included, as __nv_fp8_e4m3(f) and __nv_fp8_e5m2(f) do (__NV_SATFINITE). A NaN stays a NaN: quiet,
 * with the sign kept (fp8: 0x7f or 0xff). Subnormals of every type are produced and read exactly.
 * Widening is exact.
 */
#ifndef KLAB_CONVERT_H
#define KLAB_CONVERT_H

#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

static inline uint32_t klab_float_bits_(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static inline float klab_bits_float_(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* The magnitude code (exponent << m | mantissa) of |x| (finite, bits ax) in a format of m mantissa bits
   and exponent bias `bias`, rounded to nearest even; it may pass the format's largest code, which the
   caller clamps. */
static inline uint32_t klab_narrow_code_(uint32_t ax, int m, int bias)
{
    int e = (int)(ax >> 23), te = e - 127 + bias;
    if (e == 0)
        return 0; /* a float subnormal is far below every target's smallest subnormal */
    uint32_t v;
    int shift;
    if (te >= 1) {
        v = ((uint32_t)te << 23) | (ax & 0x7fffffu); /* a mantissa carry lands in the exponent, as it should */
        shift = 23 - m;
    } else {
        v = (ax & 0x7fffffu) | 0x800000u; /* the significand, scaled to the target's subnormal unit below */
        shift = 24 - m - te;
        if (shift > 25)
            return 0; /* below half the smallest subnormal */
    }
    return (v + (1u << (shift - 1)) - 1u + ((v >> shift) & 1u)) >> shift;
}

/* The float value of a magnitude code of a format of m mantissa bits and bias `bias` (finite). */
static inline float klab_widen_code_(uint32_t code, int m, int bias)
{
    uint32_t exp = code >> m, mant = code & ((1u << m) - 1u);
    if (exp == 0) /* subnormal: mant units of 2^(1 - bias - m), a normal float power of two */
        return (float)mant * klab_bits_float_((uint32_t)(127 + 1 - bias - m) << 23);
    return klab_bits_float_(((exp - (uint32_t)bias + 127u) << 23) | (mant << (23 - m)));
}

static inline float klab_fp16_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, code = h & 0x7fffu;
    if (code >= 0x7c00u) /* infinity, or a NaN with its payload */
        return klab_bits_float_(sign | 0x7f800000u | ((code & 0x3ffu) << 13));
    return klab_bits_float_(sign | klab_float_bits_(klab_widen_code_(code, 10, 15)));
}

static inline uint16_t klab_float_to_fp16(float f)
{
    uint32_t x = klab_float_bits_(f), sign = (x >> 16) & 0x8000u, ax = x & 0x7fffffffu;
    if (ax > 0x7f800000u)
        return (uint16_t)(sign | 0x7e00u | ((ax >> 13) & 0x3ffu));
    uint32_t code = ax == 0x7f800000u ? 0x7c00u : klab_narrow_code_(ax, 10, 15);
    return (uint16_t)(sign | (code > 0x7c00u ? 0x7c00u : code));
}

static inline float klab_bf16_to_float(uint16_t b)
{
    return klab_bits_float_((uint32_t)b << 16);
}

static inline uint16_t klab_float_to_bf16(float f)
{
    uint32_t x = klab_float_bits_(f);
    if ((x & 0x7fffffffu) > 0x7f800000u)
        return (uint16_t)((x >> 16) | 0x40u);
    return (uint16_t)((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

static inline float klab_e4m3_to_float(uint8_t q)
{
    uint32_t sign = (uint32_t)(q & 0x80u) << 24, code = q & 0x7fu;
    if (code == 0x7fu)
        return klab_bits_float_(sign | 0x7fc00000u);
    return klab_bits_float_(sign | klab_float_bits_(klab_widen_code_(code, 3, 7)));
}

static inline uint8_t klab_float_to_e4m3(float f)
{
    uint32_t x = klab_float_bits_(f), sign = (x >> 24) & 0x80u, ax = x & 0x7fffffffu;
    if (ax > 0x7f800000u)
        return (uint8_t)(sign | 0x7fu);
    uint32_t code = ax == 0x7f800000u ? 0x7eu : klab_narrow_code_(ax, 3, 7);
    return (uint8_t)(sign | (code > 0x7eu ? 0x7eu : code));
}

static inline float klab_e5m2_to_float(uint8_t q)
{
    uint32_t sign = (uint32_t)(q & 0x80u) << 24, code = q & 0x7fu;
    if (code >= 0x7cu)
        return klab_bits_float_(sign | 0x7f800000u | (code > 0x7cu ? 0x400000u | ((code & 3u) << 21) : 0u));
    return klab_bits_float_(sign | klab_float_bits_(klab_widen_code_(code, 2, 15)));
}

static inline uint8_t klab_float_to_e5m2(float f)
{
    uint32_t x = klab_float_bits_(f), sign = (x >> 24) & 0x80u, ax = x & 0x7fffffffu;
    if (ax > 0x7f800000u)
        return (uint8_t)(sign | 0x7fu);
    uint32_t code = ax == 0x7f800000u ? 0x7bu : klab_narrow_code_(ax, 2, 15);
    return (uint8_t)(sign | (code > 0x7bu ? 0x7bu : code));
}

#ifdef __cplusplus
}
#endif

#endif /* KLAB_CONVERT_H */
