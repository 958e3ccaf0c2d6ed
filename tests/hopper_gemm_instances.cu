/* hopper_gemm.cuh's paths matmul_h200 does not take, compiled so the shared header cannot rot in this
 * branch: fp8 e4m3 with B K-major (QGMMA) in a cluster of 2, bf16 with B K-major, and an epilogue that
 * asks for each k-tile apart (promotion, per-128-K-block scaling). Built, never run (tests/unit.cmake);
 * fp8_gemm.so and fused_gated_mlp.so run these paths. */
#include "../plugins/common/hopper_gemm.cuh"

namespace {

/* acc += scale[kt] * part: the shape of DeepGEMM's per-block promotion, with one scale a K block */
struct ScaledPerKBlock {
    static constexpr bool promote_k_tiles = true;
    const float *scale;
    __nv_bfloat16 *c;
    template <int MT, int R>
    __device__ void promote(const hg::TileInfo &t, int kt, float (&part)[MT][R], float (&acc)[MT][R])
    {
        (void)t;
        const float s = scale[kt];
#pragma unroll
        for (int mt = 0; mt < MT; mt++)
#pragma unroll
            for (int i = 0; i < R; i++)
                acc[mt][i] += s * part[mt][i];
    }
    template <int MT, int R> __device__ void operator()(const hg::TileInfo &t, float (&acc)[MT][R])
    {
        hg::StoreEpilogue<__nv_bfloat16>{c, t.N}(t, acc);
    }
};

static_assert(hg::promotes<ScaledPerKBlock>::value, "a policy declaring promote_k_tiles is promoted");
static_assert(!hg::promotes<hg::StoreEpilogue<__nv_bfloat16>>::value, "the others are not");

typedef hg::Config<__nv_fp8_e4m3, 128, 256, 4, 2, false, 2> Fp8Cluster;
typedef hg::Config<__nv_fp8_e4m3, 128, 128, 6, 2, false, 1> Fp8Promote;
typedef hg::Config<__nv_bfloat16, 128, 256, 4, 2, false, 1> Bf16KMajor;

} // namespace

cudaError_t hopper_gemm_instances(const CUtensorMap &a, const CUtensorMap &b, const hg::Problem &p,
                                  __nv_bfloat16 *c, const float *scale, cudaStream_t s)
{
    cudaError_t e = hg::launch<Fp8Cluster>(a, b, p, hg::StoreEpilogue<__nv_bfloat16>{c, p.N}, 132, s);
    if (e == cudaSuccess)
        e = hg::launch<Fp8Promote>(a, b, p, ScaledPerKBlock{scale, c}, 132, s);
    if (e == cudaSuccess)
        e = hg::launch<Bf16KMajor>(a, b, p, hg::StoreEpilogue<__nv_bfloat16>{c, p.N}, 132, s);
    return e;
}
