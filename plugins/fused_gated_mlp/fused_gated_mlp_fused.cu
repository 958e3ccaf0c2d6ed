/* The fused gated MLP: one bf16 GEMM x · W_il^T on the shared Hopper mainloop
 * (lib/hopper/hopper_gemm.cuh, sm_90a), W_il being Wg and Wu interleaved in blocks of GM_HALF rows, with an
 * epilogue that never writes the product: a tile of BN = 2 GM_HALF columns holds GM_HALF gate columns
 * then GM_HALF up columns, so by the mainloop's fragment mapping acc[mt][i] (gate column c) and
 * acc[mt][i + BN/4] (up column c + BN/2) are in the same thread, and act(gate) * up (activation.cuh,
 * the same function swiglu's kernel applies) goes straight to out as bf16 (epi=direct), or is staged
 * through shared memory and written by TMA stores (epi=tma, lib/hopper/hopper_store.cuh). Built for sm_90a; on any
 * other target the kernels trap, and the profile's archs keep them from running there. */
#include <stdio.h>

#include "cuda/activation.cuh"
#include "hopper/hopper_gemm.cuh"
#include "fused_gated_mlp.h"

namespace {

typedef __nv_bfloat16 BF16;

template <int V> struct Variant;
#define GV_VARIANT(id, bm, st, cons, cl)                                   \
    template <> struct Variant<id> {                                       \
        typedef hg::Config<BF16, bm, 2 * GM_HALF, st, cons, false, cl> Cfg; \
    };
GV_VARIANT(GV_128x256, 128, 4, 2, 1)
GV_VARIANT(GV_128x256_C2, 128, 4, 2, 2)
GV_VARIANT(GV_64x256, 64, 5, 1, 1)
#undef GV_VARIANT

/* out (m x f, row-major bf16) = act(gate) * up from a tile of [gate | up] accumulators */
template <int ACT> struct GatedEpilogue {
    BF16 *out;
    long f;
    template <int MT, int R> __device__ __forceinline__ void operator()(const hg::TileInfo &t, float (&acc)[MT][R])
    {
        static_assert(R / 2 == GM_HALF / 2, "a tile is GM_HALF gate columns, then GM_HALF up columns");
        const long c0 = t.n0 / 2; /* the tile's first output column: n0 counts gate and up columns */
#pragma unroll
        for (int mt = 0; mt < MT; mt++)
#pragma unroll
            for (int i = 0; i < R / 2; i += 2) {
                const int row = t.m0 + hg::frag_row(t, mt, i);
                const long col = c0 + hg::frag_col(t, i);
                if (row >= t.M || col >= f)
                    continue;
                const float a = act_gated<ACT>(acc[mt][i], acc[mt][i + R / 2]);
                const float b = act_gated<ACT>(acc[mt][i + 1], acc[mt][i + 1 + R / 2]);
                /* f is a multiple of GM_HALF: col and col + 1 are both inside, 4-byte aligned */
                *reinterpret_cast<__nv_bfloat162 *>(out + (long)row * f + col) = __floats2bfloat162_rn(a, b);
            }
    }
};

/* the same, staged through shared memory and written by TMA stores (epi=tma): out's map has f columns */
template <int ACT> struct GatedTmaEpilogue : hg::Staged {
    template <int MT, int R> __device__ __forceinline__ void operator()(const hg::TileInfo &t, float (&acc)[MT][R])
    {
        static_assert(R / 2 == GM_HALF / 2, "a tile is GM_HALF gate columns, then GM_HALF up columns");
        hg::stage_store<BF16, MT, R>(t, chunk, t.n0 / 2,
                                     [&](int mt, int i) { return act_gated<ACT>(acc[mt][i], acc[mt][i + R / 2]); });
    }
};

template <int V, int ACT>
int run_variant(const gated_mlp_shape *sh, const gv_config *c, const void *x, const void *w_il, void *out, int sms,
                cudaStream_t s, char *why, size_t whylen)
{
    typedef typename Variant<V>::Cfg Cfg;
    const int M = (int)sh->m, N = (int)(2 * sh->f), K = (int)sh->k;
    CUtensorMap ta, tb;
    if (hg::make_maps<Cfg>(&ta, &tb, x, w_il, M, N, K, K, why, whylen) != 0)
        return 1;
    const hg::Problem p = hg::problem<Cfg>(M, N, K, 1, 8, 0);
    CUtensorMap tc = {};
    auto go = [&](const auto &epi) { return hg::launch_on<Cfg>(ta, tb, tc, p, epi, c->persistent, sms, s); };
    cudaError_t e;
    if (c->epi) {
        if constexpr (V == GV_128x256 || V == GV_128x256_C2) { /* the staged instantiations (the space's) */
            if (hg::make_store_map<BF16>(&tc, out, M, (int)sh->f, (long)sh->f, why, whylen) != 0)
                return 1;
            e = go(GatedTmaEpilogue<ACT>{});
        } else {
            snprintf(why, whylen, "tile %dx%d has no epi=tma instantiation", Cfg::BM, Cfg::BN);
            return 1;
        }
    } else {
        e = go(GatedEpilogue<ACT>{(BF16 *)out, (long)sh->f});
    }
    if (e != cudaSuccess) {
        snprintf(why, whylen, "hopper_gemm launch (gated, tile %dx%d): CUDA error %d %s", Cfg::BM, Cfg::BN, (int)e,
                 cudaGetErrorString(e));
        return -1;
    }
    return 0;
}

template <int ACT>
int run_act(const gated_mlp_shape *sh, const gv_config *c, const void *x, const void *w_il, void *out, int sms,
            cudaStream_t s, char *why, size_t whylen)
{
    switch (c->variant) {
    case GV_128x256: return run_variant<GV_128x256, ACT>(sh, c, x, w_il, out, sms, s, why, whylen);
    case GV_128x256_C2: return run_variant<GV_128x256_C2, ACT>(sh, c, x, w_il, out, sms, s, why, whylen);
    case GV_64x256: return run_variant<GV_64x256, ACT>(sh, c, x, w_il, out, sms, s, why, whylen);
    default: snprintf(why, whylen, "no kernel variant %d", c->variant); return -1;
    }
}

} // namespace

extern "C" int gv_launch(const gated_mlp_shape *sh, const gv_config *c, const void *x, const void *w_il, void *out,
                         int sms, klab_stream s, char *why, size_t whylen)
{
    if (sh->f % GM_HALF != 0) {
        snprintf(why, whylen, "the fused epilogue pairs gate and up in blocks of %d columns; dim.f is %lld", GM_HALF,
                 (long long)sh->f);
        return 1;
    }
    if (sh->act == GM_GELU)
        return run_act<ACT_GELU>(sh, c, x, w_il, out, sms, (cudaStream_t)s, why, whylen);
    return run_act<ACT_SILU>(sh, c, x, w_il, out, sms, (cudaStream_t)s, why, whylen);
}
