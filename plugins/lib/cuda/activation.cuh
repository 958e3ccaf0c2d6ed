/* The gating activations of LLM MLPs, in float, for every kernel that applies one (swiglu's
 * elementwise kernels, fused_gated_mlp's GEMM epilogue): one definition, so an unfused and a fused
 * profile differ in traffic, never in the function.
 *   silu(g) = g / (1 + e^-g)                    (SwiGLU: LLaMA, Mistral, Qwen)
 *   gelu(g) = g / 2 * (1 + erf(g / sqrt(2)))    (GeGLU; the exact form, PyTorch's F.gelu default) */
#ifndef KLAB_ACTIVATION_CUH
#define KLAB_ACTIVATION_CUH

enum { ACT_SILU = 0, ACT_GELU = 1 };

/* __fdividef is exact enough (2 ulp) and safe here: the divisor is in (1, inf], and for a divisor past
   2^126 it gives 0, which is silu's limit for a very negative g. */
__device__ __forceinline__ float act_silu(float g)
{
    return __fdividef(g, 1.f + __expf(-g));
}

__device__ __forceinline__ float act_gelu(float g)
{
    return 0.5f * g * (1.f + erff(g * 0.70710678118654752f));
}

/* act(gate) * up */
template <int ACT> __device__ __forceinline__ float act_gated(float gate, float up)
{
    return (ACT == ACT_GELU ? act_gelu(gate) : act_silu(gate)) * up;
}

#endif
