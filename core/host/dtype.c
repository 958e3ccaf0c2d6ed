#include "host/dtype.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "klab/convert.h"

static const char *const names[KLAB_DTYPE_COUNT] = {"fp32", "fp16", "bf16", "fp8e4m3", "fp8e5m2", "int32", "int64"};
/* Other spellings people write: the frameworks' names and the underscored fp8 ones. */
static const struct {
    const char *name;
    klab_dtype d;
} aliases[] = {
    {"float32", KLAB_FP32},       {"float16", KLAB_FP16},     {"bfloat16", KLAB_BF16},
    {"fp8_e4m3", KLAB_FP8_E4M3},  {"float8_e4m3fn", KLAB_FP8_E4M3},
    {"fp8_e5m2", KLAB_FP8_E5M2},  {"float8_e5m2", KLAB_FP8_E5M2},
};

const char *dtype_name(klab_dtype d)
{
    return (unsigned)d < KLAB_DTYPE_COUNT ? names[d] : "?";
}

int dtype_parse(const char *s)
{
    for (int d = 0; d < KLAB_DTYPE_COUNT; d++)
        if (strcasecmp(s, names[d]) == 0)
            return d;
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (strcasecmp(s, aliases[i].name) == 0)
            return (int)aliases[i].d;
    return -1;
}

int dtype_is_integer(klab_dtype d)
{
    return d == KLAB_INT32 || d == KLAB_INT64;
}

/* The widenings are klab/convert.h's, the SDK's: exact, so a double holds the float they give. */
static double half_to_double(uint16_t h)
{
    return klab_fp16_to_float(h);
}

static double bf16_to_double(uint16_t b)
{
    return klab_bf16_to_float(b);
}

/* OCP fp8 e4m3 ("fn": finite only): bias 7, no infinities, S.1111.111 is NaN, max 448. */
static double e4m3_to_double(uint8_t b)
{
    return klab_e4m3_to_float(b);
}

/* OCP fp8 e5m2: fp16's layout cut to 8 bits (bias 15, infinities and NaNs), max 57344. */
static double e5m2_to_double(uint8_t b)
{
    return klab_e5m2_to_float(b);
}

/* Every fp16 bit pattern widened once: the gigabyte references decode 134M elements at a time, and
   the table makes that a load instead of a decode (with ldexp, 2.8 s to 0.2 s on the development
   machine). The fp8 formats are tables too, 256 entries each. Made once per process, whichever thread of the pool
   asks first (pthread_once), never half-made under another's feet. */
static double *half_tab; /* NULL when out of memory: dtype_to_double then goes element by element */
static double e4m3_tab[256], e5m2_tab[256];
static pthread_once_t half_once = PTHREAD_ONCE_INIT, fp8_once = PTHREAD_ONCE_INIT;

static void make_half_table(void)
{
    double *t = malloc(65536 * sizeof *t);
    if (!t)
        return;
    for (unsigned h = 0; h < 65536; h++)
        t[h] = half_to_double((uint16_t)h);
    half_tab = t;
}

static void make_fp8_tables(void)
{
    for (unsigned b = 0; b < 256; b++) {
        e4m3_tab[b] = e4m3_to_double((uint8_t)b);
        e5m2_tab[b] = e5m2_to_double((uint8_t)b);
    }
}

static const double *half_table(void)
{
    pthread_once(&half_once, make_half_table);
    return half_tab;
}

static const double *fp8_table(klab_dtype d)
{
    pthread_once(&fp8_once, make_fp8_tables);
    return d == KLAB_FP8_E4M3 ? e4m3_tab : e5m2_tab;
}

double dtype_load(klab_dtype d, const void *src, size_t i)
{
    const char *p = (const char *)src + klab_dtype_size(d) * i;
    switch (d) {
    case KLAB_FP32: {
        float f;
        memcpy(&f, p, 4);
        return f;
    }
    case KLAB_FP16: {
        uint16_t h;
        memcpy(&h, p, 2);
        return half_to_double(h);
    }
    case KLAB_BF16: {
        uint16_t b;
        memcpy(&b, p, 2);
        return bf16_to_double(b);
    }
    case KLAB_FP8_E4M3:
    case KLAB_FP8_E5M2:
        return fp8_table(d)[*(const uint8_t *)p];
    case KLAB_INT32: {
        int32_t v;
        memcpy(&v, p, 4);
        return (double)v;
    }
    case KLAB_INT64: {
        int64_t v;
        memcpy(&v, p, 8);
        return (double)v;
    }
    default:
        return NAN;
    }
}

void dtype_to_double(klab_dtype d, const void *src, double *dst, size_t n)
{
    const double *t = d == KLAB_FP16 ? half_table() : NULL;
    if (t) {
        const uint16_t *h = src;
        for (size_t i = 0; i < n; i++)
            dst[i] = t[h[i]];
    } else if (d == KLAB_FP8_E4M3 || d == KLAB_FP8_E5M2) {
        const double *t8 = fp8_table(d);
        const uint8_t *b = src;
        for (size_t i = 0; i < n; i++)
            dst[i] = t8[b[i]];
    } else if (d == KLAB_FP32) {
        const float *f = src;
        for (size_t i = 0; i < n; i++)
            dst[i] = f[i];
    } else {
        for (size_t i = 0; i < n; i++)
            dst[i] = dtype_load(d, src, i);
    }
}
