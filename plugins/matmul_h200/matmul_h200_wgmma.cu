/* matmul_h200: the wgmma profiles, each a configuration of plugins/lib/hopper/hopper_gemm.cuh with B
 * MN-major (row-major K x N, as torch stores it, read with the wgmma transpose bit). A configuration
 * picks a kernel variant (mm_variants, instantiated below in the same order), the raster order, the
 * grid (one CTA a unit, or persistent: one a resident slot), the split count and the epilogue (direct,
 * or staged through shared memory with TMA stores: hopper_store.cuh). Built for sm_90a; on any other
 * target the kernels trap, and the profiles' archs keep them from running there. */
#include <stdio.h>

#include "hopper/hopper_gemm.cuh"
#include "klab/cuda.h"
#include "matmul_h200.h"

namespace {

template <class T, int V> struct Variant;
#define MM_VARIANT(id, bm, bn, st, cons, cl, pp, cs)                      \
    template <class T> struct Variant<T, id> {                             \
        typedef hg::Config<T, bm, bn, st, cons, true, cl, pp, cs> Cfg;     \
    };
MM_VARIANT(MM_V128x256, 128, 256, 4, 2, 1, false, false)
MM_VARIANT(MM_V128x128, 128, 128, 6, 2, 1, false, false)
MM_VARIANT(MM_V256x128, 256, 128, 4, 2, 1, false, false)
MM_VARIANT(MM_V64x128, 64, 128, 8, 1, 1, false, false)
MM_VARIANT(MM_V64x256, 64, 256, 5, 1, 1, false, false)
MM_VARIANT(MM_V128x256_C2, 128, 256, 4, 2, 2, false, false)
MM_VARIANT(MM_V128x128_C2, 128, 128, 6, 2, 2, false, false)
MM_VARIANT(MM_V128x128_PP, 128, 128, 6, 2, 1, true, false)
MM_VARIANT(MM_V64x256_PP, 64, 256, 5, 2, 1, true, false)
MM_VARIANT(MM_V256x128_C2, 256, 128, 4, 2, 2, false, false)
MM_VARIANT(MM_V128x256_CS, 128, 256, 4, 2, 1, false, true)
MM_VARIANT(MM_V128x256_C2_CS, 128, 256, 4, 2, 2, false, true)
#undef MM_VARIANT

/* the variants instantiated with the staged epilogue too: mm_epi_tma_ok's list, checked against it */
template <int V>
constexpr bool has_tma_epi =
    V == MM_V128x256 || V == MM_V128x256_C2 || V == MM_V256x128 || V == MM_V128x128_PP || V == MM_V256x128_C2 ||
    V == MM_V128x256_CS || V == MM_V128x256_C2_CS;

template <class T, int V>
int run_variant(const mm_case *c, const mm_config *cfg, const void *a, const void *b, void *out, float *ws,
                unsigned *tickets, int sms, cudaStream_t s, char *why, size_t whylen)
{
    typedef typename Variant<T, V>::Cfg Cfg;
    /* the C table (the configurations rows name) and these instantiations must agree */
    const mm_variant *mv = &mm_variants[V];
    if (mm_epi_tma_ok(V) != (int)has_tma_epi<V> ||
        mv->bm != Cfg::BM || mv->bn != Cfg::BN || mv->stages != Cfg::STAGES || mv->cluster != Cfg::CLUSTER ||
        mv->consumers != Cfg::CONSUMERS || mv->pingpong != (int)Cfg::PINGPONG || mv->colsplit != (int)Cfg::COLSPLIT) {
        snprintf(why, whylen, "variant %d: the table and the instantiation disagree", V);
        return -1;
    }
    CUtensorMap ta, tb;
    const int M = (int)c->m, N = (int)c->n, K = (int)c->k;
    if (hg::make_maps<Cfg>(&ta, &tb, a, b, M, N, K, N, why, whylen) != 0)
        return 1;
    const hg::Problem p = hg::problem<Cfg>(M, N, K, cfg->splits, cfg->group, cfg->raster_n);
    CUtensorMap tc = {};
    /* the persistent grid depends on the instantiation (its occupancy): launch_on sizes it per epilogue */
    auto go = [&](const auto &epi) { return hg::launch_on<Cfg>(ta, tb, tc, p, epi, cfg->persistent, sms, s); };
    cudaError_t e;
    if (cfg->epi == MM_EPI_TMA) {
        if constexpr (has_tma_epi<V>) {
            if (p.splits > 1) {
                snprintf(why, whylen, "epi=tma writes whole tiles: no split-K");
                return 1;
            }
            if (hg::make_store_map<T>(&tc, out, M, N, N, why, whylen) != 0)
                return 1;
            e = go(hg::TmaStoreEpilogue<T>{});
        } else {
            snprintf(why, whylen, "bm=%d,bn=%d has no epi=tma instantiation", Cfg::BM, Cfg::BN);
            return 1;
        }
    } else if (p.splits > 1) {
        if constexpr (V == MM_V128x128 || V == MM_V64x128 || V == MM_V64x256) {
            if (cfg->serial) {
                e = go(hg::SerialSplitEpilogue<T>{ws, tickets, (T *)out, (long)N});
            } else {
                e = go(hg::PartialEpilogue{ws});
                if (e == cudaSuccess)
                    e = hg::splitk_reduce<T>(ws, (T *)out, M, N, p.splits, s);
            }
        } else {
            snprintf(why, whylen, "bm=%d,bn=%d has no split-K instantiation", Cfg::BM, Cfg::BN);
            return 1;
        }
    } else {
        e = go(hg::StoreEpilogue<T>{(T *)out, (long)N});
    }
    if (e != cudaSuccess) {
        snprintf(why, whylen, "hopper_gemm launch: CUDA error %d %s", (int)e, cudaGetErrorString(e));
        return -1;
    }
    return 0;
}

template <class T>
int run_typed(const mm_case *c, const mm_config *cfg, const void *a, const void *b, void *out, float *ws,
              unsigned *tickets, int sms, cudaStream_t s, char *why, size_t whylen)
{
    switch (cfg->variant) {
#define MM_CASE(id) \
    case id: return run_variant<T, id>(c, cfg, a, b, out, ws, tickets, sms, s, why, whylen);
        MM_CASE(MM_V128x256)
        MM_CASE(MM_V128x128)
        MM_CASE(MM_V256x128)
        MM_CASE(MM_V64x128)
        MM_CASE(MM_V64x256)
        MM_CASE(MM_V128x256_C2)
        MM_CASE(MM_V128x128_C2)
        MM_CASE(MM_V128x128_PP)
        MM_CASE(MM_V64x256_PP)
        MM_CASE(MM_V256x128_C2)
        MM_CASE(MM_V128x256_CS)
        MM_CASE(MM_V128x256_C2_CS)
#undef MM_CASE
    default:
        snprintf(why, whylen, "no kernel variant %d", cfg->variant);
        return -1;
    }
}

} // namespace

extern "C" int mm_wgmma_launch(klab_dtype d, const mm_case *c, const mm_config *cfg, const void *a, const void *b,
                               void *out, float *ws, unsigned *tickets, int sms, klab_stream s, char *why,
                               size_t whylen)
{
    if (!mm_tma_ok(c, why, whylen))
        return 1;
    if (mm_workspace(c, cfg) > MM_WORKSPACE_FLOATS) {
        snprintf(why, whylen, "%d splits of %lld x %lld fp32 partials pass the %zu-float workspace", cfg->splits,
                 (long long)c->m, (long long)c->n, MM_WORKSPACE_FLOATS);
        return 1;
    }
    if (d == KLAB_BF16)
        return run_typed<__nv_bfloat16>(c, cfg, a, b, out, ws, tickets, sms, (cudaStream_t)s, why, whylen);
    if (d == KLAB_FP16)
        return run_typed<__half>(c, cfg, a, b, out, ws, tickets, sms, (cudaStream_t)s, why, whylen);
    snprintf(why, whylen, "dtype %d: bf16 and fp16 only", (int)d);
    return 1;
}
