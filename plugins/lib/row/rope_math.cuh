/* The rotation of one 16-byte vector's worth of a head, shared by rmsnorm_rope's fused op and its
 * baseline's RoPE kernel and by decode_replay's attention, so all rotate the same way: f holds PER
 * consecutive elements of a head starting at head offset d0 (a multiple of PER); for the half layout p
 * holds the partner elements (d0 +- head_dim/2). cos_r and sin_r are the token's rows of the tables
 * (head_dim/2 floats each, 16-byte aligned). */
#ifndef ROPE_MATH_CUH
#define ROPE_MATH_CUH

#include <cuda_runtime.h>

/* N consecutive floats from a 16-byte-aligned (N = 2: 8-byte-aligned) address. */
template <int N> __device__ __forceinline__ void load_floats(const float *p, float *out)
{
    if constexpr (N == 2) {
        const float2 v = __ldg(reinterpret_cast<const float2 *>(p));
        out[0] = v.x, out[1] = v.y;
    } else {
#pragma unroll
        for (int q = 0; q < N / 4; q++) {
            const float4 v = __ldg(reinterpret_cast<const float4 *>(p) + q);
            out[4 * q] = v.x, out[4 * q + 1] = v.y, out[4 * q + 2] = v.z, out[4 * q + 3] = v.w;
        }
    }
}

template <int PER, bool HALF>
__device__ __forceinline__ void rope_rotate(float *f, const float *p, const float *cos_r, const float *sin_r, int d0,
                                            int half_dim)
{
    if constexpr (HALF) {
        const bool first = d0 < half_dim;
        const int i0 = first ? d0 : d0 - half_dim;
        float c[PER], s[PER];
        load_floats<PER>(cos_r + i0, c);
        load_floats<PER>(sin_r + i0, s);
#pragma unroll
        for (int j = 0; j < PER; j++)
            f[j] = first ? f[j] * c[j] - p[j] * s[j] : f[j] * c[j] + p[j] * s[j];
    } else {
        float c[PER / 2], s[PER / 2];
        load_floats<PER / 2>(cos_r + d0 / 2, c);
        load_floats<PER / 2>(sin_r + d0 / 2, s);
#pragma unroll
        for (int q = 0; q < PER / 2; q++) {
            const float a = f[2 * q], b = f[2 * q + 1];
            f[2 * q] = a * c[q] - b * s[q];
            f[2 * q + 1] = b * c[q] + a * s[q];
        }
    }
}

#endif
