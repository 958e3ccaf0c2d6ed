/* fp8_gemm's own GEMM: e4m3 A and W, both K-major, on the shared Hopper mainloop
 * (lib/hopper/hopper_gemm.cuh, sm_90a: TMA ring, warp-specialised wgmma m64nNk32 e4m3, fp32 accumulators),
 * with epilogues of its own: per tensor, the dequantisation scales sa * sw applied to the fp32
 * accumulators, then bf16 out (or, split-K, scaled fp32 partials that hg::splitk_reduce sums: scaling is
 * linear, so scaling each partial is scaling the sum; or summed in the same launch by each tile's last
 * split, hg::SerialSplitEpilogue); per block (DeepSeek's recipe), the mainloop's
 * promotion hook hands over each 128-K block's product apart, and it is added into the fp32 accumulator
 * times its row's 1x128 scale and its tile's 128x128 scale (a 128-column tile lies in one W block), so
 * the tensor cores' reduced-precision sums never run past 128 K. Per tensor, the 128 x 256 variants may
 * also stage the scaled bf16 tile through shared memory and write it with TMA stores (epi=tma,
 * lib/hopper/hopper_store.cuh). Persistent grids are sized by occupancy (hg::grid_of). The variants are
 * fp8_gemm_config.c's table, in its order. Built for sm_90a; on any other target the kernels trap, and the
 * profiles' archs keep them from running there. */
#include <stdio.h>

#include "hopper/hopper_gemm.cuh"
#include "fp8_gemm.h"
#include "fp8_quant.h"

namespace {

typedef __nv_fp8_e4m3 E4M3;

template <int V> struct Variant;
#define FW_VARIANT(id, bm, bn, st, cons, cl)                       \
    template <> struct Variant<id> {                               \
        typedef hg::Config<E4M3, bm, bn, st, cons, false, cl> Cfg; \
    };
FW_VARIANT(FW_128x256, 128, 256, 4, 2, 1)
FW_VARIANT(FW_128x256_C2, 128, 256, 4, 2, 2)
FW_VARIANT(FW_128x128, 128, 128, 6, 2, 1)
FW_VARIANT(FW_64x256, 64, 256, 5, 1, 1)
FW_VARIANT(FW_64x128, 64, 128, 8, 1, 1)
FW_VARIANT(FW_128x128_B, 128, 128, 6, 2, 1)
FW_VARIANT(FW_64x128_B, 64, 128, 8, 1, 1)
FW_VARIANT(FW_64x64, 64, 64, 12, 1, 1)
#undef FW_VARIANT

template <int MT, int R> __device__ __forceinline__ void scale_acc(float (&acc)[MT][R], const float *sa, const float *sw)
{
    const float s = __ldg(sa) * __ldg(sw);
#pragma unroll
    for (int mt = 0; mt < MT; mt++)
#pragma unroll
        for (int i = 0; i < R; i++)
            acc[mt][i] *= s;
}

/* D = sa * sw * acc, bf16, through the mainloop's own store */
struct ScaledStore {
    __nv_bfloat16 *d;
    long ldd;
    const float *sa, *sw;
    template <int MT, int R> __device__ __forceinline__ void operator()(const hg::TileInfo &t, float (&acc)[MT][R])
    {
        scale_acc(acc, sa, sw);
        hg::StoreEpilogue<__nv_bfloat16>{d, ldd}(t, acc);
    }
};

/* D = sa * sw * acc, bf16, staged through shared memory and written by TMA stores (epi=tma) */
struct ScaledTmaStore : hg::Staged {
    const float *sa, *sw;
    template <int MT, int R> __device__ __forceinline__ void operator()(const hg::TileInfo &t, float (&acc)[MT][R])
    {
        const float s = __ldg(sa) * __ldg(sw);
        hg::stage_store<__nv_bfloat16, MT, 2 * R>(t, chunk, t.n0, [&](int mt, int i) { return acc[mt][i] * s; });
    }
};

/* split-K: split s's scaled fp32 partial to ws + s * M * N */
struct ScaledPartial {
    float *ws;
    const float *sa, *sw;
    template <int MT, int R> __device__ __forceinline__ void operator()(const hg::TileInfo &t, float (&acc)[MT][R])
    {
        scale_acc(acc, sa, sw);
        hg::PartialEpilogue{ws}(t, acc);
    }
};

/* split-K in one launch: the scaled partials, summed in split order by each tile's last split
   (hg::SerialSplitEpilogue), D bf16 */
struct ScaledSerial {
    float *ws;
    unsigned *tickets;
    __nv_bfloat16 *d;
    long ldd;
    const float *sa, *sw;
    template <int MT, int R> __device__ __forceinline__ void operator()(const hg::TileInfo &t, float (&acc)[MT][R])
    {
        scale_acc(acc, sa, sw);
        hg::SerialSplitEpilogue<__nv_bfloat16>{ws, tickets, d, ldd}(t, acc);
    }
};

/* DeepSeek's scales: sa[kb * M + r] per row and 128-K block, sw[nb * kb4 + kb] per 128 x 128 block of W
   (fp8_quant.h). acc += part * sa[row][kt] * sw[tile's nb][kt] for every k-tile kt, then bf16 out. */
struct BlockScaled {
    __nv_bfloat16 *d;
    long ldd;
    const float *sa, *sw;
    int kb4;
    static constexpr bool promote_k_tiles = true;
    template <int MT, int R>
    __device__ __forceinline__ void promote(const hg::TileInfo &t, int kt, float (&part)[MT][R], float (&acc)[MT][R])
    {
        static_assert(2 * R == FP8Q_BLOCK, "a tile of 128 columns: one 128 x 128 block of W across");
        const float w = __ldg(sw + (long)(t.n0 / FP8Q_BLOCK) * kb4 + kt);
#pragma unroll
        for (int mt = 0; mt < MT; mt++) {
            /* this thread's two rows: frag_row of i with bit 1 clear, and 8 below it */
            const int r0 = t.m0 + hg::frag_row(t, mt, 0), r1 = r0 + 8;
            const float s0 = r0 < t.M ? __ldg(sa + (long)kt * t.M + r0) * w : 0.f;
            const float s1 = r1 < t.M ? __ldg(sa + (long)kt * t.M + r1) * w : 0.f;
#pragma unroll
            for (int i = 0; i < R; i++)
                acc[mt][i] += part[mt][i] * ((i >> 1) & 1 ? s1 : s0);
        }
    }
    template <int MT, int R> __device__ __forceinline__ void operator()(const hg::TileInfo &t, float (&acc)[MT][R])
    {
        hg::StoreEpilogue<__nv_bfloat16>{d, ldd}(t, acc);
    }
};
/* the mainloop reads the flag only where it is built for sm_90a; named here so no pass finds it unused,
   and checked as the mainloop sees it (hg::promotes), beside a policy that does not ask */
static_assert(hg::promotes<BlockScaled>::value, "BlockScaled asks for each k-tile's product apart");
static_assert(!hg::promotes<ScaledStore>::value, "the per-tensor policies take the whole K range's product");

template <int V>
int run_variant(const fp8_gemm_shape *sh, const fw_config *c, const void *qa, const void *qw, const float *sa,
                const float *sw, void *d, float *ws, unsigned *tickets, int sms, cudaStream_t s, char *why,
                size_t whylen)
{
    typedef typename Variant<V>::Cfg Cfg;
    constexpr bool BLOCK = V == FW_128x128_B || V == FW_64x128_B;
    static_assert(!BLOCK || Cfg::BN == FP8Q_BLOCK, "block scales: 128-column tiles");
    const fw_variant *fv = &fw_variants[V];
    if (fv->bm != Cfg::BM || fv->bn != Cfg::BN || fv->stages != Cfg::STAGES || fv->consumers != Cfg::CONSUMERS ||
        fv->cluster != Cfg::CLUSTER || fv->block != BLOCK) {
        snprintf(why, whylen, "variant %d: fp8_gemm_config.c's table and the instantiation disagree", V);
        return -1;
    }
    const int M = (int)sh->m, N = (int)sh->n, K = (int)sh->k;
    if (fv->block && K % FP8Q_BLOCK != 0) {
        snprintf(why, whylen, "block scales need k a multiple of 128; dim.k is %d", K);
        return 1;
    }
    CUtensorMap ta, tb;
    if (hg::make_maps<Cfg>(&ta, &tb, qa, qw, M, N, K, K, why, whylen) != 0)
        return 1;
    const hg::Problem p = hg::problem<Cfg>(M, N, K, c->splits, 8, 0);
    CUtensorMap tc = {};
    auto go = [&](const auto &epi) { return hg::launch_on<Cfg>(ta, tb, tc, p, epi, c->persistent, sms, s); };
    cudaError_t e;
    if (c->epi) {
        if constexpr (V == FW_128x256 || V == FW_128x256_C2) { /* the staged instantiations (fp8_gemm_config.c) */
            if (p.splits > 1) {
                snprintf(why, whylen, "epi=tma writes whole tiles: no split-K");
                return 1;
            }
            if (hg::make_store_map<__nv_bfloat16>(&tc, d, M, N, N, why, whylen) != 0)
                return 1;
            e = go(ScaledTmaStore{{}, sa, sw});
        } else {
            snprintf(why, whylen, "tile %dx%d has no epi=tma instantiation", Cfg::BM, Cfg::BN);
            return 1;
        }
    } else if constexpr (BLOCK) {
        e = go(BlockScaled{(__nv_bfloat16 *)d, (long)N, sa, sw, (int)fp8q_kblocks4(K)});
    } else if (p.splits > 1) {
        if constexpr (Cfg::CONSUMERS == 1) { /* the split-K configurations: 64-row tiles only */
            if (c->serial) {
                e = go(ScaledSerial{ws, tickets, (__nv_bfloat16 *)d, (long)N, sa, sw});
            } else {
                e = go(ScaledPartial{ws, sa, sw});
                if (e == cudaSuccess)
                    e = hg::splitk_reduce<__nv_bfloat16>(ws, (__nv_bfloat16 *)d, M, N, p.splits, s);
            }
        } else {
            snprintf(why, whylen, "tile %dx%d has no split-K instantiation", Cfg::BM, Cfg::BN);
            return 1;
        }
    } else {
        e = go(ScaledStore{(__nv_bfloat16 *)d, (long)N, sa, sw});
    }
    if (e != cudaSuccess) {
        snprintf(why, whylen, "hopper_gemm launch (fp8, tile %dx%d): CUDA error %d %s", Cfg::BM, Cfg::BN, (int)e,
                 cudaGetErrorString(e));
        return -1;
    }
    return 0;
}

} // namespace

extern "C" int fw_launch(const fp8_gemm_shape *sh, const fw_config *c, const void *qa, const void *qw, const float *sa,
                         const float *sw, void *d, float *ws, unsigned *tickets, int sms, klab_stream s, char *why,
                         size_t whylen)
{
    if (c->splits > 1 && !ws) {
        snprintf(why, whylen, "split-K needs %zu bytes of fp32 partials; setup made none for a case this large",
                 fw_workspace_bytes(sh, c));
        return 1;
    }
    if (c->splits > 1 && c->serial && !tickets) {
        snprintf(why, whylen, "serial split-K needs tickets; setup made none for a case this large");
        return 1;
    }
    cudaStream_t st = (cudaStream_t)s;
    switch (c->variant) {
#define FW_CASE(id) \
    case id: return run_variant<id>(sh, c, qa, qw, sa, sw, d, ws, tickets, sms, st, why, whylen);
        FW_CASE(FW_128x256)
        FW_CASE(FW_128x256_C2)
        FW_CASE(FW_128x128)
        FW_CASE(FW_64x256)
        FW_CASE(FW_64x128)
        FW_CASE(FW_128x128_B)
        FW_CASE(FW_64x128_B)
        FW_CASE(FW_64x64)
#undef FW_CASE
    default: snprintf(why, whylen, "no kernel variant %d", c->variant); return -1;
    }
}
