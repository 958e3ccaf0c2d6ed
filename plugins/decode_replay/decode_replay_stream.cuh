/* decode_replay's gemv=stream: the O and down projections (h = h + W x, x the previous kernel's output, no
 * RMSNorm prologue) on plugins/lib/hopper/hopper_stream.cuh's TMA weight stream, the B <= 8 sequences in
 * wgmma's N slot (NT = 8); where the plan says (dr_stream_qkv_default, dr_stream_gateup_default) the QKV
 * and gate/up projections too, their RMSNorm written by each CTA as hs's resident tokens (NormIn), gate/up
 * on gated tiles with SwiGLU in the epilogue (Gated), persistent at one split. The register GEMVs measured
 * latency-bound there (down at 68 % of the copy rate, O ~80 %: too few bytes in flight an SM); the stream
 * keeps a ring of 16 x 8 KB of weights in flight from each CTA's first cycles, one CTA an SM, or of 8 where
 * two CTAs may share an SM (dr_stream_stages: below hidden 4096, where the H200 timed 8 stages ahead of 16
 * and of the plain GEMV).
 *
 * The plan (dr_stream_splits): ceil(N / 64) column tiles times K splits ~ the SMs once. llama8b (N = 4096,
 * 64 tiles) on 132 SMs: 2 splits, 128 CTAs; down's 224 K tiles give a CTA 112, O's 64 a CTA 32; small-16l
 * (N = 2048, 32 tiles): 4 splits. Why 16 stages: docs/notes/decode_replay.md, "The TMA weight stream"; why
 * 8 at small-16l: its last section.
 *
 * The epilogue (Resid) is the register GEMVs' residual: out[b][n] = res[b][n] + acc, res may be out (each
 * element read and written by one thread), plus the step's control the other kernels do in step_begin /
 * step_end: the probe stamps and, in the step's last kernel, the cursor's advance. hs::stream_kernel calls
 * the policy on rank 0's 128 consumer threads only (the producer warp and the other ranks have left), so
 * the CTA's end is a named barrier of those 128 and the ticket counts the rank-0 CTAs (gridDim.x). Its
 * start stamp comes from hs's start hook (begin(): thread 0 of every CTA, before the mainloop, after the
 * PDL wait; the producer's first weight loads do not wait for it).
 *
 * The maps (struct dr_stream) are encoded once for a set of tensors (setup's, for the graphs; eager's,
 * re-encoded only when the host hands other tensors) and passed by value into each launch: a captured
 * graph holds its copy. Included by decode_replay_kernels.cu (one translation unit: the ticket and the
 * step control are its). */
#ifndef DECODE_REPLAY_STREAM_CUH
#define DECODE_REPLAY_STREAM_CUH

#include <stdlib.h>
#include <string.h>

#include "cuda/activation.cuh"
#include "hopper/hopper_stream.cuh"
#include "row/rms_op.cuh"
#include "cuda/numeric.cuh"
#include "decode_replay_step.cuh"

/* One projection's maps: weight of each layer, the input (one buffer, the same every layer). */
struct dr_stream_proj {
    CUtensorMap *w; /* [layers] */
    CUtensorMap x;
    int splits;
};

struct dr_stream {
    int64_t cap; /* layers the weights' map arrays hold */
    int bound;   /* the maps are those of the tensors below */
    klab_dtype dtype;
    int64_t layers;
    const void *wqkv, *wo, *wgu, *wd, *attn, *act; /* the tensors the maps were encoded for */
    int64_t hidden, qd, nqkv, inter, batch;
    dr_stream_proj q, o, gu, d; /* q, gu: weights only (their tokens are resident: NormIn) */
};

namespace {

constexpr int SNT = 8;      /* tokens in wgmma's N slot: B <= 8 (DR_MAX_BATCH) */
constexpr int SSTAGES = 16; /* 16 x 8 KB of weights in flight a CTA */
static_assert(DR_MAX_BATCH <= SNT, "the sequences fit wgmma's N slot");
template <typename T, int STAGES, bool GATED = false, bool PERSIST = false>
using StreamCfg = hs::Cfg<T, SNT, false, STAGES, false, GATED, PERSIST>;

/* The policies' step control. Start: after the PDL wait (the cursor and the probe counter are earlier
   kernels'), the probe's start stamp (atomicMin: the first CTA's); begin() is hs's start hook, start()
   the epilogue's. End: the CTA's stores done (the 128 consumer threads, barrier 1: hs uses 0 at its start
   only), the end stamp and, in the step's last kernel, the ticket. */
__device__ __forceinline__ StepPos policy_start(const StepCtl &c)
{
    pdl_wait();
    return step_begin(c);
}
__device__ __forceinline__ void policy_end(const StepCtl &c, const StepPos &sp)
{
    asm volatile("bar.sync 1, 128;" ::: "memory");
    if (threadIdx.x == 0)
        step_finish(c, sp, gridDim.x);
}

template <typename T> struct Resid {
    const T *res; /* [M, N], may be out; NULL: out = acc (the QKV projection) */
    T *out;       /* [M, N] */
    int M, N;
    StepCtl c;
    __device__ void begin() const { (void)policy_start(c); }
    template <int R> __device__ void operator()(const hs::Frag &f, const float (&acc)[R]) const
    {
        const StepPos sp = policy_start(c); /* res is an earlier kernel's too */
#pragma unroll
        for (int i = 0; i < R; i++)
            if (f.live(i, M, N)) {
                const size_t o = (size_t)f.token(i) * N + f.col(i);
                out[o] = from_f<T>((res ? to_f(res[o]) : 0.f) + acc[i]);
            }
        policy_end(c, sp);
    }
};

/* The gate/up projection's epilogue on gated tiles (hs's GATED): act[b][j] = silu(gate) * up, N the
   outputs (act's width: the launch's is 2 N), the step control as Resid's. Persistent launches call it
   once a tile: gate/up is never the step's last kernel, so step_finish only stamps (atomicMax). */
template <typename T> struct Gated {
    T *out; /* [M, N] */
    int M, N;
    StepCtl c;
    __device__ void begin() const { (void)policy_start(c); }
    template <int R> __device__ void operator()(const hs::Frag &f, const float (&acc)[R]) const
    {
        const StepPos sp = policy_start(c);
        const int j = f.gated_col();
#pragma unroll
        for (int i = 0; i < R; i++)
            if (!(i & 2) && f.token(i) < M && j < N)
                out[(size_t)f.token(i) * N + j] = from_f<T>(act_gated<ACT_SILU>(acc[i], acc[i + 2]));
        policy_end(c, sp);
    }
};

/* The QKV projection's input, RMSNorm(x) * gain, as hs's resident tokens (hopper_stream.cuh): each CTA
   reduces the M sequences' sums of squares over the whole of x (M x K, 8 KB a sequence at hidden 4096,
   from L2: the register GEMV's NORM prologue did the same a CTA), then writes its K range normalised and
   rounded to T, as torch's RMSNorm hands its output to the next matmul. The 1/rms is RmsOp's (the register
   GEMVs' and rmsnorm.so's). The epilogue is Out's: Resid's plain store (res NULL) for QKV, Gated's SwiGLU
   for gate/up.
   Latency is the whole cost here (the ring's first fill waits for it): each thread issues its loads TU at
   a time before using any, and the live rows' groups are spread over all 128 threads. The first H200 run
   (2026-11-22-h200-14, call 1) mapped group i to row i % 8: at B = 1 a sixteenth of the threads did every
   load, 32 round trips each in turn, and the QKV GEMV took 27.9 us a layer against the register GEMV's
   19.6. */
template <typename T, class Out> struct NormIn : Out {
    static constexpr int TU = 4; /* loads a thread has in flight */
    const T *x, *gain; /* [M, K] the residual stream (an earlier kernel's), [K] the layer's gain */
    int K;
    float eps;
    template <int NT> __device__ void tokens(const hs::Tokens<NT> &tk, int k0, int k1) const
    {
        constexpr int PER = 16 / sizeof(T);
        const int t = (int)threadIdx.x, lane = t & 31, kv = K / PER, M = this->M;
        const uint4 *xv = reinterpret_cast<const uint4 *>(x), *gv = reinterpret_cast<const uint4 *>(gain);
        float *part = tk.scratch; /* [4 warps][NT], then the totals [NT] */
        RmsOp<T, false> op;
        op.init(nullptr, nullptr, gain, nullptr, nullptr, M, K, eps);
        /* the rows past M are zeros whatever x holds: written before the wait */
        const int groups = (k1 - k0) / PER;
        for (int i = t; i < (NT - M) * groups; i += 128)
            tk.put(M + i / groups, k0 + (i % groups) * PER, make_uint4(0, 0, 0, 0));
        pdl_wait(); /* x is the previous kernel's */
        float ss[NT] = {};
        for (int i0 = t; i0 < M * kv; i0 += 128 * TU) {
            uint4 v[TU];
#pragma unroll
            for (int u = 0; u < TU; u++)
                v[u] = i0 + 128 * u < M * kv ? __ldg(xv + i0 + 128 * u) : make_uint4(0, 0, 0, 0);
#pragma unroll
            for (int u = 0; u < TU; u++) {
                const uint4 one[1] = {v[u]};
                const float s = op.partial(one);
                const int m = (i0 + 128 * u) / kv;
#pragma unroll
                for (int r = 0; r < NT; r++)
                    ss[r] += m == r ? s : 0.f;
            }
        }
#pragma unroll
        for (int r = 0; r < NT; r++) {
            const float w = warp_sum(ss[r]);
            if (lane == 0)
                part[(t >> 5) * NT + r] = w;
        }
        asm volatile("bar.sync 1, 128;" ::: "memory");
        if (t < NT)
            part[4 * NT + t] = part[t] + part[NT + t] + part[2 * NT + t] + part[3 * NT + t];
        asm volatile("bar.sync 1, 128;" ::: "memory");
        /* the live rows: group j of row m is 8 elements at k0 + j * PER, zeros past K */
        for (int i0 = t; i0 < M * groups; i0 += 128 * TU) {
            uint4 v[TU], g[TU];
#pragma unroll
            for (int u = 0; u < TU; u++) {
                const int i = i0 + 128 * u, k = k0 + (i % groups) * PER;
                const bool on = i < M * groups && k < K;
                v[u] = on ? __ldg(xv + (size_t)(i / groups) * kv + k / PER) : make_uint4(0, 0, 0, 0);
                g[u] = on ? __ldg(gv + k / PER) : make_uint4(0, 0, 0, 0);
            }
#pragma unroll
            for (int u = 0; u < TU; u++) {
                const int i = i0 + 128 * u, m = i / groups, k = k0 + (i % groups) * PER;
                if (i >= M * groups)
                    break;
                float f[PER], gf[PER];
                op.finish(part[4 * NT + m], 0, false);
                vec16<T>::unpack(v[u], f);
                vec16<T>::unpack(g[u], gf);
                op.scale(f, gf);
                tk.put(m, k, vec16<T>::pack(f));
            }
        }
    }
};

/* hs::launch of layer l's weight map of p with Cfg C and policy epi, PDL or not; tx: the token map (resident
   tokens: none is read, the weight's stands in) */
template <class C, class Epi>
cudaError_t stream_launch(const dr_stream_proj &p, int l, const CUtensorMap &tx, const hs::Problem &pr, const Epi &epi,
                          bool pdl, cudaStream_t s)
{
    return pdl ? hs::launch<C, Epi, true>(p.w[l], tx, pr, p.splits, epi, s)
               : hs::launch<C, Epi, false>(p.w[l], tx, pr, p.splits, epi, s);
}

/* go(StreamCfg<T, S, GATED, PERSIST>) for the ring of `stages` (8 or 16: dr_geom's stream_stages) */
template <typename T, bool GATED, bool PERSIST, class Go> cudaError_t by_stages(int stages, Go go)
{
    if (stages == 8)
        return go(StreamCfg<T, 8, GATED, PERSIST>{});
    return stages == SSTAGES ? go(StreamCfg<T, SSTAGES, GATED, PERSIST>{}) : cudaErrorInvalidValue;
}

/* out = res + W_l x through projection p's maps of layer l (N outputs, K inputs, M sequences) */
template <typename T>
cudaError_t stream_gemv(const dr_stream_proj &p, int l, int M, int N, int K, const T *res, T *out, const StepCtl &c,
                        int stages, bool pdl, cudaStream_t s)
{
    const Resid<T> epi{res, out, M, N, c};
    const hs::Problem pr = hs::problem(M, N, K);
    return by_stages<T, false, false>(
        stages, [&](auto cfg) { return stream_launch<decltype(cfg)>(p, l, p.x, pr, epi, pdl, s); });
}

/* Projection p of layer l on RMSNorm(x) * gain (resident tokens, NormIn) with Out's epilogue: QKV (Resid,
   N outputs) or gate/up (Gated on gated tiles: N outputs, the launch's 2 N) */
template <typename T, class Out, bool GATED>
cudaError_t stream_norm_gemv(const dr_stream_proj &p, int l, int M, int N, int K, const T *x, const T *gain, float eps,
                             const Out &out, int stages, bool pdl, cudaStream_t s)
{
    NormIn<T, Out> epi;
    static_cast<Out &>(epi) = out;
    epi.x = x, epi.gain = gain, epi.K = K, epi.eps = eps;
    const hs::Problem pr = hs::problem(M, GATED ? 2 * N : N, K);
    auto go = [&](auto cfg) { return stream_launch<decltype(cfg)>(p, l, p.w[l], pr, epi, pdl, s); };
    /* gate/up at one split is persistent: more gated tiles than the device holds CTAs at once (llama8b:
       448 of ~193 KB on 132 SMs) stream through one ring a CTA, its tokens normalised once */
    return GATED && p.splits == 1 ? by_stages<T, GATED, GATED>(stages, go) : by_stages<T, GATED, false>(stages, go);
}

/* hs's resident layout at one split is what dr_stream_tokens_fit counts (decode_replay.h) */
static_assert(hs::Layout<StreamCfg<__half, SSTAGES>, true>{64}.bytes(1) == DR_STREAM_RESIDENT_BYTES(SSTAGES, 64),
              "DR_STREAM_RESIDENT_BYTES is hopper_stream.cuh's Layout");
static_assert(hs::Layout<StreamCfg<__half, 8>, true>{32}.bytes(1) == DR_STREAM_RESIDENT_BYTES(8, 32),
              "DR_STREAM_RESIDENT_BYTES is hopper_stream.cuh's Layout");

/* p's maps: layer l's weight at w + l * N * K ([N, K] each; GATED: [2 N, K], gate rows first), the input x
   [M, K] (NULL: resident tokens, no token map). */
template <typename T, bool GATED = false>
int stream_maps(dr_stream_proj *p, int64_t layers, const T *w, const T *x, int M, int N, int K, int sms, char *why,
                size_t whylen)
{
    if (x && hs::make_token_map<T, SNT>(&p->x, x, K, M, K, why, whylen))
        return -1;
    const int rows = GATED ? 2 * N : N;
    for (int64_t l = 0; l < layers; l++)
        if (GATED ? hs::make_gated_weight_map<T>(&p->w[l], w + (size_t)l * rows * K, K, N, K, why, whylen)
                  : hs::make_weight_map<T, false>(&p->w[l], w + (size_t)l * rows * K, K, N, K, why, whylen))
            return -1;
    p->splits = dr_stream_splits(rows, K, sms);
    return 0;
}

template <typename T> int stream_bind(dr_stream *m, const dr_geom *g, const dr_dev *t, char *why, size_t whylen)
{
    int dev = 0, sms = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e == cudaSuccess)
        e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    if (e != cudaSuccess) {
        snprintf(why, whylen, "gemv=stream: the device's SMs: %s", cudaGetErrorString(e));
        return -1;
    }
    const int B = (int)g->batch, H = (int)g->hidden, qd = (int)(g->heads * g->head_dim), I = (int)g->inter;
    if (stream_maps<T>(&m->q, g->layers, (const T *)t->wqkv, nullptr, B, (int)g->nqkv, H, sms, why, whylen) ||
        stream_maps<T, true>(&m->gu, g->layers, (const T *)t->wgu, nullptr, B, I, H, sms, why, whylen) ||
        stream_maps<T>(&m->o, g->layers, (const T *)t->wo, (const T *)t->attn, B, H, qd, sms, why, whylen) ||
        stream_maps<T>(&m->d, g->layers, (const T *)t->wd, (const T *)t->act, B, H, I, sms, why, whylen))
        return -1;
    return 0;
}

} // namespace

#endif
