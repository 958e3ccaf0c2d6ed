/* decode_replay's kernels: one decode step is, per layer,
 *   gemv<NORM, STORE>    qkv = Wqkv rmsnorm(h)         (RMSNorm fused into the GEMV's prologue)
 *   attention            RoPE on q and k, the append, split-KV attention over the cache; on the fused
 *                        path (DR_ATTN_FUSED) also the splits' merge, by the last CTA of each KV head;
 *                        the mma path (DR_ATTN_MMA) is the fused one with its tiles on tensor cores;
 *                        the cluster path (DR_ATTN_MMA_CLUSTER) the mma kernel, its splits merged in a
 *                        cluster's shared memory
 *   combine              the split path's merge (only when its cache is split: splits > 1)
 *   gemv<RESID>          h = h + Wo o                  (residual in the epilogue)
 *   gemv<NORM, SWIGLU>   act = silu(Wg m) * (Wu m), m = rmsnorm(h)   (SwiGLU in the epilogue)
 *   gemv<RESID>          h = h + Wd act                (y instead of h at the last layer)
 *
 * With gemv=stream the two RESID GEMVs run on the TMA weight stream instead (decode_replay_stream.cuh),
 * and where g->stream_qkv (g->stream_gateup) says so the QKV (gate/up) GEMV too, its RMSNorm the stream's
 * resident tokens (NormIn), gate/up on gated tiles with SwiGLU in the epilogue (Gated).
 *
 * The GEMVs (plain and pipelined, a tuning configuration: decode_replay_gemv.cuh) are bandwidth-bound at
 * decode sizes (1 to 8 sequences): each weight vector is used for all B sequences once loaded, so B = 8
 * reads the weights once, not eight times. Small CTAs (4 warps) in large numbers let the block scheduler
 * even the load out over the SMs.
 *
 * Reused, not copied: RMSNorm is RmsOp (plugins/lib/row/rms_op.cuh), the rotation is rope_rotate
 * (plugins/lib/row/rope_math.cuh, the half layout's partner from the lane D/16 away), SwiGLU's gate is
 * act_silu (activation.cuh).
 *
 * Programmatic dependent launch (graph_pdl): every kernel starts with the loads that do not depend on
 * the previous kernel (the GEMV's first weight vectors), then griddepcontrol.wait, then lets its own
 * dependents launch (griddepcontrol.launch_dependents) once its dependent reads are issued, so the next
 * kernel's CTAs land on SMs as this one's drain and prefetch their weights under its tail. Launched
 * without the attribute (eager, graph) both instructions are no-ops. Every CTA reaches the wait, so a
 * kernel never completes before the one it depends on.
 *
 * The step's position in its sequence is a device counter (cursor): the schedule's row is cursor % steps,
 * so a captured graph replays every step. The last CTA of the step's last kernel advances it. */
#include <cuda_runtime.h>
#include <math.h>

#include "klab/cuda.h"
#include "decode_replay.h"
#include "decode_replay_attention.cuh"
#include "decode_replay_gemv.cuh"
#include "decode_replay_attn_mma.cuh"
#include "decode_replay_stream.cuh"
#include "cuda/func_attr.cuh"
#include "cuda/launch_config.cuh"
#include "decode_replay_step.cuh"

namespace {

/* ---- launches -------------------------------------------------------------------------------- */

template <typename... P, typename... A>
cudaError_t launch_smem(void (*k)(P...), dim3 grid, dim3 block, size_t smem, bool pdl, cudaStream_t s, A... args)
{
    LaunchConfig lc(grid, block, smem, s);
    lc.pdl(pdl);
    return cudaLaunchKernelEx(&lc.cfg, k, args...);
}

template <typename... P, typename... A>
cudaError_t launch(void (*k)(P...), dim3 grid, dim3 block, bool pdl, cudaStream_t s, A... args)
{
    return launch_smem(k, grid, block, 0, pdl, s, args...);
}

/* The GEMV of variant gemv (DR_GEMV_*) at the sequences' count: NB the least of 1, 2, 4, 8 that holds them. */
template <typename T, int EPI, bool NORM, int NB>
cudaError_t gemv_at(const GemvArgs<T> &a, int ks, int warps, bool pdl, cudaStream_t s)
{
    const dim3 block(GW * 32);
    const auto ctas = [&](int groups) { return dim3((unsigned)((warps + groups - 1) / groups)); };
    switch (ks) {
    case 0: return launch(gemv_kernel<T, NB, EPI, NORM>, ctas(GW), block, pdl, s, a);
    case 1: return launch(gemv_pipe_kernel<T, NB, EPI, NORM, 1>, ctas(GW), block, pdl, s, a);
    default: break;
    }
    if constexpr (EPI == EPI_RESID && !NORM) { /* the split serves the down projection alone */
        if (ks == 2)
            return launch(gemv_pipe_kernel<T, NB, EPI, NORM, 2>, ctas(GW / 2), block, pdl, s, a);
        if (ks == 4)
            return launch(gemv_pipe_kernel<T, NB, EPI, NORM, 4>, ctas(GW / 4), block, pdl, s, a);
    }
    return cudaErrorInvalidValue;
}

/* ks: warps a row's K range is split over (1, 2, 4; the pipelined kernel), 0 the plain kernel */
template <typename T, int EPI, bool NORM>
cudaError_t gemv(const GemvArgs<T> &a, int ks, bool pdl, cudaStream_t s)
{
    const int warps = EPI == EPI_SWIGLU ? a.nout : (a.nout + GR - 1) / GR; /* row groups */
    const int nb = a.nb;
    if (nb <= 1)
        return gemv_at<T, EPI, NORM, 1>(a, ks, warps, pdl, s);
    if (nb <= 2)
        return gemv_at<T, EPI, NORM, 2>(a, ks, warps, pdl, s);
    if (nb <= 4)
        return gemv_at<T, EPI, NORM, 4>(a, ks, warps, pdl, s);
    return gemv_at<T, EPI, NORM, 8>(a, ks, warps, pdl, s);
}

/* The mma kernel's launch attributes, once: its ring past the 48 KB a launch gets unasked, and (CL) a
   cluster of up to 16 */
template <typename T, int D, int G, bool CL, int MW> cudaError_t mma_attrs()
{
    constexpr auto k = attn_mma_kernel<T, D, G, CL, MW>;
    cudaError_t e = func_attr_once<k, cudaFuncAttributeMaxDynamicSharedMemorySize>((int)MmaRing<T, D, MW>::BYTES);
    if (e == cudaSuccess && CL)
        e = func_attr_once<k, cudaFuncAttributeNonPortableClusterSizeAllowed>(1);
    return e;
}

/* The cluster path: the splits of each (sequence, KV head) one cluster along y, with the deepest ring whose
   clusters the device holds all at once (asked once a ring and cluster size of the occupancy calculator):
   four tiles in flight a warp (128 KB a CTA: one CTA an SM, so a cluster of 16 needs 16 free SMs of one
   GPC; the H200 holds fewer than llama8b's 8 such), three (96 KB, two CTAs an SM: llama8b's ring, ncu in
   calls 2 and 5 of 2026-11-22-h200-9), else two (64 KB), since a second wave of clusters would cost more
   than a deeper ring saves. */
template <typename T, int D, int G, int MW>
cudaError_t launch_cluster_ring(const AttnArgs<T> &a, cudaLaunchConfig_t &cfg, int64_t clusters, bool last, bool *done)
{
    constexpr auto k = attn_mma_kernel<T, D, G, true, MW>;
    cudaError_t e = mma_attrs<T, D, G, true, MW>();
    if (e != cudaSuccess)
        return e;
    cfg.dynamicSmemBytes = MmaRing<T, D, MW>::BYTES;
    static int fits[DR_MAX_CLUSTER + 1]; /* clusters resident at once, by size; 0: unasked, -1: none */
    int &fit = fits[cfg.gridDim.y];
    if (fit == 0 && (e = cudaOccupancyMaxActiveClusters(&fit, k, &cfg)) != cudaSuccess)
        return e;
    if (fit == 0)
        fit = -1;
    if (!last && (int64_t)fit < clusters)
        return cudaSuccess; /* not this ring: *done stays false */
    *done = true;
    return cudaLaunchKernelEx(&cfg, k, a);
}

template <typename T, int D, int G>
cudaError_t attention_cluster(const AttnArgs<T> &a, dim3 grid, bool pdl, cudaStream_t s)
{
    if (grid.y < 1 || grid.y > DR_MAX_CLUSTER)
        return cudaErrorInvalidValue;
    LaunchConfig lc(grid, dim3(AW * 32), 0, s);
    lc.cluster(dim3(1, grid.y, 1)).pdl(pdl);
    cudaLaunchConfig_t &cfg = lc.cfg;
    const int64_t clusters = (int64_t)grid.x * grid.z;
    bool done = false;
    cudaError_t e = launch_cluster_ring<T, D, G, 4>(a, cfg, clusters, false, &done);
    if (e == cudaSuccess && !done)
        e = launch_cluster_ring<T, D, G, 3>(a, cfg, clusters, false, &done);
    if (e == cudaSuccess && !done)
        e = launch_cluster_ring<T, D, G, 2>(a, cfg, clusters, true, &done);
    return e;
}

template <typename T, int D, int G>
cudaError_t attention_path(const AttnArgs<T> &a, dim3 grid, int attn, bool pdl, cudaStream_t s)
{
    const dim3 block(AW * 32);
    switch (attn) {
    case DR_ATTN_SPLIT: return launch(attn_kernel<T, D, G>, grid, block, pdl, s, a);
    case DR_ATTN_FUSED: return launch(attn_fused_kernel<T, D, G>, grid, block, pdl, s, a);
    case DR_ATTN_MMA: {
        const cudaError_t e = mma_attrs<T, D, G, false, 2>();
        return e != cudaSuccess ? e
                                : launch_smem(attn_mma_kernel<T, D, G, false, 2>, grid, block, MmaRing<T, D, 2>::BYTES,
                                              pdl, s, a);
    }
    case DR_ATTN_MMA_CLUSTER: return attention_cluster<T, D, G>(a, grid, pdl, s);
    default: return cudaErrorInvalidValue;
    }
}

template <typename T, int D>
cudaError_t attention(const AttnArgs<T> &a, int batch, int grp, int attn, bool pdl, cudaStream_t s)
{
    const dim3 grid((unsigned)a.kv_heads, (unsigned)a.splits, (unsigned)batch);
    switch (grp) {
    case 1: return attention_path<T, D, 1>(a, grid, attn, pdl, s);
    case 2: return attention_path<T, D, 2>(a, grid, attn, pdl, s);
    case 4: return attention_path<T, D, 4>(a, grid, attn, pdl, s);
    case 8: return attention_path<T, D, 8>(a, grid, attn, pdl, s);
    default: return cudaErrorInvalidValue;
    }
}

template <typename T>
cudaError_t enqueue(const dr_geom *g, const dr_dev *t, int attn, int gemv_v, int l0, int l1, bool pdl, cudaStream_t s)
{
    /* the down projection's K split; the other GEMVs run the same kernel unsplit */
    const int ks_down = dr_gemv_ksplit(gemv_v), ks = ks_down > 0 ? 1 : 0;
    const bool stream = gemv_v == DR_GEMV_STREAM; /* dr_enqueue has checked t->stream */
    const int B = (int)g->batch, H = (int)g->hidden, D = (int)g->head_dim, qd = (int)(g->heads * g->head_dim);
    const int I = (int)g->inter, kpl = dr_kernels_per_layer(g), nk = (int)g->layers * kpl;
    const size_t cache_layer = (size_t)B * (size_t)g->kv_heads * (size_t)g->kv * (size_t)D;
    const T *x = (const T *)t->x;
    T *h = (T *)t->h, *y = (T *)t->y;
    for (int l = l0; l < l1; l++) {
        const bool last_layer = l == g->layers - 1;
        auto ctl = [&](int k, bool last) { return StepCtl{t->cursor, t->probe, dr_kernel_index(g, l, k), nk, last ? 1 : 0}; };
        cudaError_t e;
        const T *hin = l == 0 ? x : h;
        if (!g->attn_only) {
            GemvArgs<T> q = {(const T *)t->wqkv + (size_t)l * g->nqkv * H, hin, (const T *)t->g_attn + (size_t)l * H,
                             nullptr, (T *)t->qkv, (int)g->nqkv, H, B, (float)g->eps, ctl(DR_K_QKV, false)};
            e = stream && g->stream_qkv
                    ? stream_norm_gemv<T, Resid<T>, false>(t->stream->q, l, B, q.nout, H, hin, q.gain, q.eps,
                                                           Resid<T>{nullptr, q.out, B, q.nout, q.c},
                                                           (int)g->stream_stages, pdl, s)
                    : gemv<T, EPI_STORE, true>(q, ks, pdl, s);
            if (e != cudaSuccess)
                return e;
        }
        /* fused and mma: one kernel, the fused plan, its own split merge; the cluster path its own plan;
           the split path a combine kernel after it where its cache is split */
        const bool fused = attn != DR_ATTN_SPLIT, cluster = attn == DR_ATTN_MMA_CLUSTER;
        const bool combine = !fused && g->splits > 1;
        const int64_t chunk = cluster ? g->cchunk : fused ? g->fchunk : g->chunk;
        const int64_t splits = cluster ? g->csplits : fused ? g->fsplits : g->splits;
        T *o = g->attn_only ? y + (size_t)l * B * qd : (T *)t->attn;
        AttnArgs<T> at = {g->attn_only ? x + (size_t)l * B * g->nqkv : (const T *)t->qkv,
                          (T *)t->kc + l * cache_layer, (T *)t->vc + l * cache_layer, t->cos_t, t->sin_t, t->lens,
                          t->opart, t->ml, o, (int)g->heads, (int)g->kv_heads, (int)g->nqkv, (int)g->kv,
                          (int)chunk, (int)splits, (int)g->steps,
                          ctl(DR_K_ATTN, g->attn_only && last_layer && !combine)};
        const int grp = (int)(g->heads / g->kv_heads);
        e = D == 64 ? attention<T, 64>(at, B, grp, attn, pdl, s) : attention<T, 128>(at, B, grp, attn, pdl, s);
        if (e != cudaSuccess)
            return e;
        if (combine) {
            const StepCtl c = ctl(DR_K_COMBINE, g->attn_only && last_layer);
            const dim3 grid((unsigned)g->heads, (unsigned)B);
            e = D == 64 ? launch(combine_kernel<T, 64>, grid, dim3(64), pdl, s, (const float *)t->opart,
                                 (const float *)t->ml, o, (int)g->splits, c)
                        : launch(combine_kernel<T, 128>, grid, dim3(128), pdl, s, (const float *)t->opart,
                                 (const float *)t->ml, o, (int)g->splits, c);
            if (e != cudaSuccess)
                return e;
        }
        if (g->attn_only)
            continue;
        GemvArgs<T> op = {(const T *)t->wo + (size_t)l * H * qd, (const T *)t->attn, nullptr, hin, h, H, qd, B,
                          (float)g->eps, ctl(DR_K_OPROJ, false)};
        e = stream ? stream_gemv<T>(t->stream->o, l, B, H, qd, hin, h, op.c, (int)g->stream_stages, pdl, s)
                   : gemv<T, EPI_RESID, false>(op, ks, pdl, s);
        if (e != cudaSuccess)
            return e;
        GemvArgs<T> gu = {(const T *)t->wgu + (size_t)l * 2 * I * H, h, (const T *)t->g_mlp + (size_t)l * H, nullptr,
                          (T *)t->act, I, H, B, (float)g->eps, ctl(DR_K_GATEUP, false)};
        e = stream && g->stream_gateup
                ? stream_norm_gemv<T, Gated<T>, true>(t->stream->gu, l, B, I, H, h, gu.gain, gu.eps,
                                                      Gated<T>{gu.out, B, I, gu.c}, (int)g->stream_stages, pdl, s)
                : gemv<T, EPI_SWIGLU, true>(gu, ks, pdl, s);
        if (e != cudaSuccess)
            return e;
        GemvArgs<T> dn = {(const T *)t->wd + (size_t)l * H * I, (const T *)t->act, nullptr, h,
                          last_layer ? y : h, H, I, B, (float)g->eps, ctl(DR_K_DOWN, last_layer)};
        e = stream ? stream_gemv<T>(t->stream->d, l, B, H, I, h, dn.out, dn.c, (int)g->stream_stages, pdl, s)
                   : gemv<T, EPI_RESID, false>(dn, ks_down, pdl, s);
        if (e != cudaSuccess)
            return e;
    }
    return cudaSuccess;
}

/* m holds the maps of t's tensors at g's sizes */
bool stream_holds(const dr_stream *m, klab_dtype d, const dr_geom *g, const dr_dev *t)
{
    return m && m->bound && m->dtype == d && m->layers == g->layers && m->wqkv == t->wqkv && m->wo == t->wo &&
           m->wgu == t->wgu && m->wd == t->wd && m->attn == t->attn && m->act == t->act && m->hidden == g->hidden &&
           m->qd == g->heads * g->head_dim && m->nqkv == g->nqkv && m->inter == g->inter && m->batch == g->batch;
}

} // namespace

extern "C" int dr_enqueue(klab_dtype d, const dr_geom *g, const dr_dev *t, int attn, int gemv, int l0, int l1,
                          int pdl, klab_stream s)
{
    if (attn < 0 || attn >= DR_NATTN || dr_gemv_ksplit(gemv) < 0)
        return (int)cudaErrorInvalidValue;
    /* maps of other tensors would read and write what the host does not check */
    if (gemv == DR_GEMV_STREAM && !g->attn_only && !stream_holds(t->stream, d, g, t))
        return (int)cudaErrorInvalidValue;
    if (d == KLAB_FP16)
        return (int)enqueue<__half>(g, t, attn, gemv, l0, l1, pdl != 0, s);
    if (d == KLAB_BF16)
        return (int)enqueue<__nv_bfloat16>(g, t, attn, gemv, l0, l1, pdl != 0, s);
    return (int)cudaErrorInvalidValue;
}

extern "C" dr_stream *dr_stream_new(int64_t layers)
{
    dr_stream *m = (dr_stream *)calloc(1, sizeof(dr_stream));
    /* CUtensorMap is 64-byte aligned: a multiple of it is a valid aligned_alloc size */
    const size_t bytes = (size_t)(layers > 0 ? layers : 1) * sizeof(CUtensorMap);
    if (m) {
        m->q.w = (CUtensorMap *)aligned_alloc(alignof(CUtensorMap), bytes);
        m->gu.w = (CUtensorMap *)aligned_alloc(alignof(CUtensorMap), bytes);
        m->o.w = (CUtensorMap *)aligned_alloc(alignof(CUtensorMap), bytes);
        m->d.w = (CUtensorMap *)aligned_alloc(alignof(CUtensorMap), bytes);
        m->cap = layers;
    }
    if (m && (!m->q.w || !m->o.w || !m->gu.w || !m->d.w)) {
        dr_stream_free(m);
        return NULL;
    }
    return m;
}

extern "C" void dr_stream_free(dr_stream *m)
{
    if (!m)
        return;
    free(m->q.w);
    free(m->gu.w);
    free(m->o.w);
    free(m->d.w);
    free(m);
}

extern "C" int dr_stream_bind(dr_stream *m, klab_dtype d, const dr_geom *g, const dr_dev *t, char *why, size_t whylen)
{
    if (stream_holds(m, d, g, t))
        return 0;
    m->bound = 0;
    if (g->layers > m->cap) {
        snprintf(why, whylen, "gemv=stream: %lld layers, maps made for %lld", (long long)g->layers, (long long)m->cap);
        return -1;
    }
    int rc = -1;
    if (d == KLAB_FP16)
        rc = stream_bind<__half>(m, g, t, why, whylen);
    else if (d == KLAB_BF16)
        rc = stream_bind<__nv_bfloat16>(m, g, t, why, whylen);
    else
        snprintf(why, whylen, "gemv=stream: fp16 and bf16 only");
    if (rc != 0)
        return -1;
    m->dtype = d, m->layers = g->layers, m->wqkv = t->wqkv, m->wo = t->wo, m->wgu = t->wgu, m->wd = t->wd;
    m->attn = t->attn, m->act = t->act, m->hidden = g->hidden, m->qd = g->heads * g->head_dim, m->nqkv = g->nqkv;
    m->inter = g->inter, m->batch = g->batch;
    m->bound = 1;
    return 0;
}
