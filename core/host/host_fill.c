#include "host/host_fill.h"

#include <math.h>
#include <string.h>

#include "klab/convert.h"

/* Element i's draw in [0, 1): a function of (seed, i) alone, so any order of filling gives the same. */
static double draw(uint64_t seed, size_t i)
{
    uint64_t z = seed + 0x9e3779b97f4a7c15ull * (uint64_t)(i + 1);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return (double)(z >> 11) * 0x1p-53;
}

void host_fill_uniform(klab_dtype d, void *ptr, size_t n, uint64_t seed, double lo, double hi)
{
    double a = ceil(lo), b = ceil(hi);
    for (size_t i = 0; i < n; i++) {
        double u = draw(seed, i), v = lo + u * (hi - lo);
        float f = (float)v;
        switch (d) {
        case KLAB_FP32: ((float *)ptr)[i] = f; break;
        case KLAB_FP16: ((uint16_t *)ptr)[i] = klab_float_to_fp16(f); break;
        case KLAB_BF16: ((uint16_t *)ptr)[i] = klab_float_to_bf16(f); break;
        case KLAB_FP8_E4M3: ((uint8_t *)ptr)[i] = klab_float_to_e4m3(f); break;
        case KLAB_FP8_E5M2: ((uint8_t *)ptr)[i] = klab_float_to_e5m2(f); break;
        case KLAB_INT32: ((int32_t *)ptr)[i] = (int32_t)(a + floor(u * (b - a))); break;
        case KLAB_INT64: ((int64_t *)ptr)[i] = (int64_t)(a + floor(u * (b - a))); break;
        default: break;
        }
    }
}

void host_poison(klab_dtype d, void *ptr, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        switch (d) {
        case KLAB_FP32: ((float *)ptr)[i] = NAN; break;
        case KLAB_FP16: ((uint16_t *)ptr)[i] = 0x7e00; break;
        case KLAB_BF16: ((uint16_t *)ptr)[i] = 0x7fc0; break;
        case KLAB_FP8_E4M3: case KLAB_FP8_E5M2: ((uint8_t *)ptr)[i] = 0x7f; break;
        default: memset((char *)ptr + i * klab_dtype_size(d), 0xa5, klab_dtype_size(d)); break;
        }
    }
}
