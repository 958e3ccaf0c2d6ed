/* matmul_h200's skinny v3 (mm_config.stages > 0): C = A B for M <= 16 as plugins/lib/hopper/hopper_stream.cuh's
 * weight stream. B (K x N, N contiguous) is the stream's MN-major weight, A (M x K) its tokens: the copy
 * engine fills a ring of `stages` stages of 64 columns x 64 rows of K (8 KB) and the tokens' 64 of K, one
 * consumer warpgroup runs wgmma m64n{8,16}k16 on them, K split over a cluster of `splits` CTAs; with
 * `prefetch` the producer asks L2 for the rest of its K range once the ring is filled. N and K
 * multiples of 8 (rows of 16 bytes for the copy engine); edges past N and K read as zero and are not
 * stored. sm_90a only (the profile's archs keep it off other devices). */
#include <stdio.h>

#include "klab/cuda.h"
#include "matmul_h200.h"
#include "hopper/hopper_stream.cuh"

namespace {

template <class T, int NT, int STAGES, bool PREFETCH>
cudaError_t run(const mm_case *c, int splits, const void *a, const void *b, void *out, cudaStream_t s, char *why,
                size_t whylen)
{
    typedef hs::Cfg<T, NT, true, STAGES, PREFETCH> C;
    CUtensorMap tw, tx;
    const int M = (int)c->m, N = (int)c->n, K = (int)c->k;
    if (hs::make_maps<T, NT, true>(&tw, &tx, b, N, a, K, M, N, K, why, whylen))
        return cudaErrorInvalidValue;
    return hs::launch<C>(tw, tx, hs::problem(M, N, K), splits, hs::StoreEpilogue<T>{(T *)out, (long)N, M, N}, s);
}

template <class T, int NT, bool PREFETCH>
cudaError_t by_stages(const mm_case *c, const mm_config *cfg, const void *a, const void *b, void *out, cudaStream_t s,
                      char *why, size_t whylen)
{
    switch (cfg->stages) {
    case 4: return run<T, NT, 4, PREFETCH>(c, cfg->splits, a, b, out, s, why, whylen);
    case 8: return run<T, NT, 8, PREFETCH>(c, cfg->splits, a, b, out, s, why, whylen);
    default: return run<T, NT, 16, PREFETCH>(c, cfg->splits, a, b, out, s, why, whylen);
    }
}

template <class T, int NT>
cudaError_t by_prefetch(const mm_case *c, const mm_config *cfg, const void *a, const void *b, void *out, cudaStream_t s,
                        char *why, size_t whylen)
{
    return cfg->prefetch ? by_stages<T, NT, true>(c, cfg, a, b, out, s, why, whylen)
                         : by_stages<T, NT, false>(c, cfg, a, b, out, s, why, whylen);
}

template <class T>
cudaError_t by_tokens(const mm_case *c, const mm_config *cfg, const void *a, const void *b, void *out, cudaStream_t s,
                      char *why, size_t whylen)
{
    return c->m > 8 ? by_prefetch<T, 16>(c, cfg, a, b, out, s, why, whylen)
                    : by_prefetch<T, 8>(c, cfg, a, b, out, s, why, whylen);
}

} // namespace

/* mm_skinny_fits has checked the case, splits and stages (4, 8 or 16); prefetch 0 or 1 */
extern "C" int mm_stream_launch(klab_dtype d, const mm_case *c, const mm_config *cfg, const void *a, const void *b,
                                void *out, klab_stream s, char *why, size_t whylen)
{
    why[0] = '\0';
    cudaError_t e;
    if (d == KLAB_BF16)
        e = by_tokens<__nv_bfloat16>(c, cfg, a, b, out, (cudaStream_t)s, why, whylen);
    else if (d == KLAB_FP16)
        e = by_tokens<__half>(c, cfg, a, b, out, (cudaStream_t)s, why, whylen);
    else {
        snprintf(why, whylen, "dtype %d: bf16 and fp16 only", (int)d);
        return 1;
    }
    if (e == cudaErrorInvalidValue && why[0])
        return 1; /* the tensor maps: said in why */
    if (e != cudaSuccess) {
        snprintf(why, whylen, "stream_kernel: CUDA error %d %s", (int)e, cudaGetErrorString(e));
        return -1;
    }
    return 0;
}
