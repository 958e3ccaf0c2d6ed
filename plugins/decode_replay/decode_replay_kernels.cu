/* decode_replay's kernels: one decode step is, per layer,
 *   gemv<NORM, STORE>    qkv = Wqkv rmsnorm(h)         (RMSNorm fused into the GEMV's prologue)
 *   attention            RoPE on q and k, the append, split-KV attention over the cache
 *   combine              the splits merged (only when the cache is split: splits > 1)
 *   gemv<RESID>          h = h + Wo o                  (residual in the epilogue)
 *   gemv<NORM, SWIGLU>   act = silu(Wg m) * (Wu m), m = rmsnorm(h)   (SwiGLU in the epilogue)
 *   gemv<RESID>          h = h + Wd act                (y instead of h at the last layer)
 *
 * The GEMV is bandwidth-bound at decode sizes (1 to 8 sequences): a warp owns two weight rows and walks
 * them in 16-byte loads, four vectors a lane in flight per row, accumulating in float; each weight vector
 * is used for all B sequences once loaded, so B = 8 reads the weights once, not eight times. Small CTAs
 * (4 warps) in large numbers let the block scheduler even the load out over the SMs.
 *
 * Reused, not copied: RMSNorm is RmsOp (plugins/common/rms_op.cuh: partial() the sum of squares, finish()
 * the 1/rms, normalize() x * rs * w), the rotation is rope_rotate (plugins/rmsnorm_rope/rope_math.cuh,
 * the half layout's partner from the lane D/16 away), SwiGLU's gate is act_silu (activation.cuh).
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
#include "../common/activation.cuh"
#include "../common/rms_op.cuh"
#include "../rmsnorm_rope/rope_math.cuh"

namespace {

__device__ unsigned int dr_ticket; /* CTAs of the step's last kernel that have finished */

__device__ __forceinline__ void pdl_wait()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

__device__ __forceinline__ void pdl_trigger()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

__device__ __forceinline__ unsigned long long gtimer()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

/* What every kernel of a step shares: the cursor, the probe ring, its own place in the step. */
struct StepCtl {
    int32_t *cursor;
    unsigned long long *probe;
    int kidx, nk, last;
};

/* Where a step stands: its cursor (stable during the step: only the last kernel's last CTA writes it,
   after every other kernel of the step has completed) and its probe slot. */
struct StepPos {
    int32_t cur;
    unsigned long long *slot; /* NULL: no probes */
};

/* Probe ring of a profile (decode_replay.h): word 0 counts the steps it has seen (never restored, unlike
   the cursor); slot i is DR_PROBE_WORDS_SLOT(nk) words: the step's cursor, a spare, then a start and an end
   stamp a kernel. The first CTA to start stamps the start (atomicMin), the last to end the end. */
__device__ __forceinline__ StepPos step_begin(const StepCtl &c)
{
    StepPos p;
    p.cur = *(volatile int32_t *)c.cursor;
    p.slot = nullptr;
    if (c.probe) {
        const unsigned long long seq = *(volatile unsigned long long *)c.probe;
        p.slot = c.probe + 1 + (size_t)(seq % DR_PROBE_STEPS) * DR_PROBE_WORDS_SLOT(c.nk);
        if (threadIdx.x == 0)
            atomicMin(p.slot + 2 + 2 * c.kidx, gtimer());
    }
    return p;
}

/* The end stamp; in the step's last kernel the last CTA to finish (every CTA has read the cursor and the
   probe counter by then) records the step's cursor in its slot, resets the next slot, advances the
   probe counter and the cursor. */
__device__ __forceinline__ void step_end(const StepCtl &c, const StepPos &p)
{
    __syncthreads();
    if (threadIdx.x != 0)
        return;
    if (p.slot)
        atomicMax(p.slot + 3 + 2 * c.kidx, gtimer());
    if (!c.last)
        return;
    __threadfence();
    const unsigned total = gridDim.x * gridDim.y * gridDim.z;
    if (atomicAdd(&dr_ticket, 1u) != total - 1)
        return;
    dr_ticket = 0;
    if (p.slot) {
        const unsigned long long seq = *(volatile unsigned long long *)c.probe;
        unsigned long long *next = c.probe + 1 + (size_t)((seq + 1) % DR_PROBE_STEPS) * DR_PROBE_WORDS_SLOT(c.nk);
        p.slot[0] = (unsigned long long)p.cur;
        for (int i = 0; i < c.nk; i++)
            next[2 + 2 * i] = ~0ull, next[3 + 2 * i] = 0;
        *(volatile unsigned long long *)c.probe = seq + 1;
    }
    __threadfence();
    *(volatile int32_t *)c.cursor = p.cur + 1;
}

/* ---- GEMV ------------------------------------------------------------------------------------- */

constexpr int GW = 4; /* warps a CTA */
constexpr int GR = 2; /* weight rows a warp (SWIGLU: a gate row and its up row) */
constexpr int GU = 4; /* 16-byte vectors of each row in flight a lane */
enum { EPI_STORE = 0, EPI_RESID, EPI_SWIGLU };

template <typename T> struct GemvArgs {
    const T *w;    /* [rows, K]; SWIGLU: [2 nout, K], gate rows first */
    const T *x;    /* [B, K]; NORM: the residual stream, normalised here */
    const T *gain; /* NORM: [K] */
    const T *res;  /* RESID: [B, nout] (may be out: each element is read and written by one lane) */
    T *out;        /* [B, nout] */
    int nout, K, nb;
    float eps;
    StepCtl c;
};

template <typename T, int NB, int EPI, bool NORM>
__global__ void __launch_bounds__(GW * 32) gemv_kernel(GemvArgs<T> a)
{
    constexpr int PER = 16 / sizeof(T);
    const int warp = (int)threadIdx.x >> 5, lane = (int)threadIdx.x & 31;
    const int gw = (int)blockIdx.x * GW + warp;
    const int kv = a.K / PER;
    int row[GR];
    bool live[GR];
#pragma unroll
    for (int r = 0; r < GR; r++) {
        row[r] = EPI == EPI_SWIGLU ? r * a.nout + gw : gw * GR + r;
        live[r] = EPI == EPI_SWIGLU ? gw < a.nout : gw * GR + r < a.nout;
    }
    uint4 w[GR][GU];
    auto load_w = [&](int base) {
#pragma unroll
        for (int r = 0; r < GR; r++)
#pragma unroll
            for (int u = 0; u < GU; u++) {
                const int i = base + u * 32 + lane;
                w[r][u] = live[r] && i < kv ? __ldg(reinterpret_cast<const uint4 *>(a.w + (size_t)row[r] * a.K) + i)
                                            : make_uint4(0, 0, 0, 0);
            }
    };
    load_w(0); /* the weights never change: loaded before the wait, under the previous kernel's tail */
    const StepPos sp0 = step_begin(a.c);
    pdl_wait();

    RmsOp<T, false> op[NB];
    if (NORM) {
        __shared__ float part[GW][NB];
        float ss[NB];
#pragma unroll
        for (int b = 0; b < NB; b++) {
            op[b].init(nullptr, nullptr, a.gain, nullptr, nullptr, a.nb, a.K, a.eps);
            ss[b] = 0.f;
            if (b < a.nb)
                for (int i = (int)threadIdx.x; i < kv; i += GW * 32) {
                    const uint4 v[1] = {__ldg(reinterpret_cast<const uint4 *>(a.x + (size_t)b * a.K) + i)};
                    ss[b] += op[b].partial(v);
                }
            ss[b] = warp_sum(ss[b]);
            if (lane == 0)
                part[warp][b] = ss[b];
        }
        __syncthreads();
#pragma unroll
        for (int b = 0; b < NB; b++) {
            float t = 0.f;
#pragma unroll
            for (int i = 0; i < GW; i++)
                t += part[i][b];
            op[b].finish(t, 0, false);
        }
    }
    pdl_trigger();

    float acc[GR][NB];
#pragma unroll
    for (int r = 0; r < GR; r++)
#pragma unroll
        for (int b = 0; b < NB; b++)
            acc[r][b] = 0.f;
    for (int base = 0;;) {
#pragma unroll
        for (int u = 0; u < GU; u++) {
            const int i = base + u * 32 + lane;
            if (i >= kv)
                break;
            float wf[GR][PER];
#pragma unroll
            for (int r = 0; r < GR; r++)
                vec16<T>::unpack(w[r][u], wf[r]);
#pragma unroll
            for (int b = 0; b < NB; b++) {
                if (b >= a.nb)
                    break;
                const uint4 xr = __ldg(reinterpret_cast<const uint4 *>(a.x + (size_t)b * a.K) + i);
                float xf[PER];
                if (NORM) {
                    const rowk::Slot sl = {i, 0, PER};
                    op[b].normalize(xr, sl, xf);
                } else {
                    vec16<T>::unpack(xr, xf);
                }
#pragma unroll
                for (int r = 0; r < GR; r++)
#pragma unroll
                    for (int j = 0; j < PER; j++)
                        acc[r][b] = fmaf(wf[r][j], xf[j], acc[r][b]);
            }
        }
        base += 32 * GU;
        if (base >= kv)
            break;
        load_w(base);
    }
#pragma unroll
    for (int r = 0; r < GR; r++)
#pragma unroll
        for (int b = 0; b < NB; b++)
            acc[r][b] = warp_sum(acc[r][b]);
    if (lane == 0)
#pragma unroll
        for (int b = 0; b < NB; b++) {
            if (b >= a.nb)
                break;
            if constexpr (EPI == EPI_SWIGLU) {
                if (live[0])
                    a.out[(size_t)b * a.nout + gw] = from_f<T>(act_gated<ACT_SILU>(acc[0][b], acc[1][b]));
            } else {
#pragma unroll
                for (int r = 0; r < GR; r++) {
                    if (!live[r])
                        continue;
                    const size_t o = (size_t)b * a.nout + row[r];
                    const float base_v = EPI == EPI_RESID ? to_f(a.res[o]) : 0.f;
                    a.out[o] = from_f<T>(base_v + acc[r][b]);
                }
            }
        }
    step_end(a.c, sp0);
}

template <typename T, int EPI, bool NORM>
cudaError_t gemv(const GemvArgs<T> &a, bool pdl, cudaStream_t s);

/* ---- attention ------------------------------------------------------------------------------- */

constexpr int AW = 4; /* warps a CTA */

template <typename T> struct AttnArgs {
    const T *qkv;   /* [B, nqkv]: this layer's packed q, k, v */
    T *kc, *vc;     /* this layer's caches, [B, kv_heads, kv, D] */
    const float *cos_t, *sin_t;
    const int32_t *lens;
    float *opart, *ml; /* splits > 1: [B, heads, splits, D] and [B, heads, splits, 2] */
    T *out;            /* splits == 1: [B, heads * D] */
    int heads, kv_heads, nqkv, kv, chunk, splits, steps;
    StepCtl c;
};

/* One CTA: KV head blockIdx.x, split blockIdx.y, sequence blockIdx.z; its G query heads over positions
   [split * chunk, min(+chunk, len)). A group of D/8 lanes holds one position's 16-byte slices of k and
   v (two positions a warp at D = 128), U positions a group in flight; online softmax in the log2 domain
   per head, merged across the warp's groups by shuffles, across warps in shared memory. The CTA whose
   range holds the new position writes the rotated k and v there first and reads them back like the
   others (ordinary loads: the cache is written in this kernel, so not through the read-only path). A
   CTA whose split starts at or past the step's length marks it empty and exits, reading nothing else. */
template <typename T, int D, int G>
__global__ void __launch_bounds__(AW * 32) attn_kernel(AttnArgs<T> a)
{
    constexpr int PER = 8, LP = D / PER, SG = 32 / LP, U = G >= 8 ? 2 : 4;
    const int warp = (int)threadIdx.x >> 5, lane = (int)threadIdx.x & 31, sub = lane / LP, sl = lane % LP;
    const int d0 = sl * PER, kvh = (int)blockIdx.x, split = (int)blockIdx.y, b = (int)blockIdx.z;
    const StepPos sp0 = step_begin(a.c);
    pdl_wait();
    const int len = a.lens[(size_t)(sp0.cur % a.steps) * gridDim.z + b], pos = len - 1;
    const int c0 = split * a.chunk, c1 = min(c0 + a.chunk, len);
    if (c0 >= len) { /* a split past this step's length (only splits > 0, so split): marked empty, nothing read */
        if (threadIdx.x < G) {
            const size_t sp = ((size_t)b * a.heads + kvh * G + threadIdx.x) * a.splits + split;
            a.ml[sp * 2] = -INFINITY, a.ml[sp * 2 + 1] = 0.f;
        }
        step_end(a.c, sp0);
        return;
    }
    const float *cr = a.cos_t + (size_t)pos * (D / 2), *sr = a.sin_t + (size_t)pos * (D / 2);
    const T *tok = a.qkv + (size_t)b * a.nqkv;

    /* q of the G heads, rotated, scaled by log2(e) / sqrt(D) */
    float q[G][PER];
    const float qs = ROW_LOG2E * rsqrtf((float)D);
#pragma unroll
    for (int g = 0; g < G; g++) {
        float f[PER], p[PER];
        vec16<T>::unpack(__ldg(reinterpret_cast<const uint4 *>(tok + (size_t)(kvh * G + g) * D + d0)), f);
#pragma unroll
        for (int j = 0; j < PER; j++)
            p[j] = __shfl_xor_sync(0xffffffffu, f[j], LP / 2);
        rope_rotate<PER, true>(f, p, cr, sr, d0, D / 2);
#pragma unroll
        for (int j = 0; j < PER; j++)
            q[g][j] = f[j] * qs;
    }
    pdl_trigger();
    T *kh = a.kc + ((size_t)b * a.kv_heads + kvh) * a.kv * D, *vh = a.vc + ((size_t)b * a.kv_heads + kvh) * a.kv * D;
    if (warp == 0 && c0 <= pos && pos < c0 + a.chunk) {
        float f[PER], p[PER];
        vec16<T>::unpack(__ldg(reinterpret_cast<const uint4 *>(tok + (size_t)(a.heads + kvh) * D + d0)), f);
#pragma unroll
        for (int j = 0; j < PER; j++)
            p[j] = __shfl_xor_sync(0xffffffffu, f[j], LP / 2);
        rope_rotate<PER, true>(f, p, cr, sr, d0, D / 2);
        if (sub == 0) {
            reinterpret_cast<uint4 *>(kh + (size_t)pos * D)[sl] = vec16<T>::pack(f);
            reinterpret_cast<uint4 *>(vh + (size_t)pos * D)[sl] =
                __ldg(reinterpret_cast<const uint4 *>(tok + (size_t)(a.heads + a.kv_heads + kvh) * D + d0));
        }
    }
    __syncthreads();

    float m[G], l[G], acc[G][PER];
#pragma unroll
    for (int g = 0; g < G; g++) {
        m[g] = -INFINITY, l[g] = 0.f;
#pragma unroll
        for (int j = 0; j < PER; j++)
            acc[g][j] = 0.f;
    }
    for (int p0 = c0 + warp * SG * U; p0 < c1; p0 += AW * SG * U) {
        uint4 kr[U], vr[U];
#pragma unroll
        for (int u = 0; u < U; u++) {
            const int p = p0 + u * SG + sub;
            kr[u] = p < c1 ? reinterpret_cast<const uint4 *>(kh + (size_t)p * D)[sl] : make_uint4(0, 0, 0, 0);
            vr[u] = p < c1 ? reinterpret_cast<const uint4 *>(vh + (size_t)p * D)[sl] : make_uint4(0, 0, 0, 0);
        }
        float s[U][G];
#pragma unroll
        for (int u = 0; u < U; u++) {
            float kf[PER];
            vec16<T>::unpack(kr[u], kf);
#pragma unroll
            for (int g = 0; g < G; g++) {
                float t = 0.f;
#pragma unroll
                for (int j = 0; j < PER; j++)
                    t = fmaf(q[g][j], kf[j], t);
#pragma unroll
                for (int o = LP / 2; o > 0; o >>= 1)
                    t += __shfl_xor_sync(0xffffffffu, t, o);
                s[u][g] = p0 + u * SG + sub < c1 ? t : -INFINITY;
            }
        }
#pragma unroll
        for (int g = 0; g < G; g++) {
            float mx = m[g];
#pragma unroll
            for (int u = 0; u < U; u++)
                mx = fmaxf(mx, s[u][g]);
            if (mx == -INFINITY) /* nothing valid yet in this group */
                continue;
            const float corr = fast_ex2(m[g] - mx); /* m = -inf: 0 */
            l[g] *= corr;
#pragma unroll
            for (int j = 0; j < PER; j++)
                acc[g][j] *= corr;
#pragma unroll
            for (int u = 0; u < U; u++) {
                const float pr = fast_ex2(s[u][g] - mx);
                float vf[PER];
                vec16<T>::unpack(vr[u], vf);
                l[g] += pr;
#pragma unroll
                for (int j = 0; j < PER; j++)
                    acc[g][j] = fmaf(pr, vf[j], acc[g][j]);
            }
            m[g] = mx;
        }
    }
    /* the warp's groups merged (l is each lane's own sum of its group's positions: the same in every
       lane of a group, since every lane added the same pr) */
#pragma unroll
    for (int g = 0; g < G; g++)
#pragma unroll
        for (int o = LP; o < 32; o <<= 1) {
            const float mo = __shfl_xor_sync(0xffffffffu, m[g], o), lo = __shfl_xor_sync(0xffffffffu, l[g], o);
            const float mx = fmaxf(m[g], mo);
            const float ca = mx == -INFINITY ? 0.f : fast_ex2(m[g] - mx), cb = mx == -INFINITY ? 0.f : fast_ex2(mo - mx);
            l[g] = l[g] * ca + lo * cb;
#pragma unroll
            for (int j = 0; j < PER; j++)
                acc[g][j] = acc[g][j] * ca + __shfl_xor_sync(0xffffffffu, acc[g][j], o) * cb;
            m[g] = mx;
        }
    __shared__ float sm_acc[AW][G][D];
    __shared__ float sm_ml[AW][G][2];
    if (sub == 0)
#pragma unroll
        for (int g = 0; g < G; g++) {
#pragma unroll
            for (int j = 0; j < PER; j++)
                sm_acc[warp][g][d0 + j] = acc[g][j];
            if (sl == 0)
                sm_ml[warp][g][0] = m[g], sm_ml[warp][g][1] = l[g];
        }
    __syncthreads();
    for (int t = (int)threadIdx.x; t < G * D; t += AW * 32) {
        const int g = t / D, d = t % D, j = kvh * G + g;
        float mx = -INFINITY;
#pragma unroll
        for (int w = 0; w < AW; w++)
            mx = fmaxf(mx, sm_ml[w][g][0]);
        float lt = 0.f, o = 0.f;
        if (mx != -INFINITY)
#pragma unroll
            for (int w = 0; w < AW; w++) {
                const float c = fast_ex2(sm_ml[w][g][0] - mx);
                lt += sm_ml[w][g][1] * c;
                o += sm_acc[w][g][d] * c;
            }
        const size_t bh = (size_t)b * a.heads + j;
        if (a.splits == 1) {
            a.out[bh * D + d] = from_f<T>(o / lt);
        } else {
            const size_t sp = bh * a.splits + split;
            if (lt > 0.f)
                a.opart[sp * D + d] = o / lt;
            if (d == 0)
                a.ml[sp * 2] = mx, a.ml[sp * 2 + 1] = lt;
        }
    }
    step_end(a.c, sp0);
}

/* The splits of one (sequence, head) merged: thread d of a CTA of D threads; empty splits (l = 0: past
   the step's length) skipped without reading their o. */
template <typename T, int D>
__global__ void __launch_bounds__(D) combine_kernel(const float *opart, const float *ml, T *out, int splits, StepCtl c)
{
    const StepPos sp0 = step_begin(c);
    pdl_wait();
    pdl_trigger();
    const size_t bh = (size_t)blockIdx.y * gridDim.x + blockIdx.x;
    const float *mlh = ml + bh * splits * 2;
    float mx = -INFINITY;
    for (int s = 0; s < splits; s++)
        if (mlh[2 * s + 1] > 0.f)
            mx = fmaxf(mx, mlh[2 * s]);
    float lt = 0.f, o = 0.f;
    for (int s = 0; s < splits; s++) {
        const float ls = mlh[2 * s + 1];
        if (ls > 0.f) {
            const float w = ls * fast_ex2(mlh[2 * s] - mx);
            lt += w;
            o = fmaf(w, opart[(bh * splits + s) * D + threadIdx.x], o);
        }
    }
    out[bh * D + threadIdx.x] = from_f<T>(o / lt);
    step_end(c, sp0);
}

/* ---- launches -------------------------------------------------------------------------------- */

template <typename... P, typename... A>
cudaError_t launch(void (*k)(P...), dim3 grid, dim3 block, bool pdl, cudaStream_t s, A... args)
{
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = grid;
    cfg.blockDim = block;
    cfg.stream = s;
    cudaLaunchAttribute at[1];
    at[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    at[0].val.programmaticStreamSerializationAllowed = 1;
    cfg.attrs = at;
    cfg.numAttrs = pdl ? 1 : 0;
    return cudaLaunchKernelEx(&cfg, k, args...);
}

template <typename T, int EPI, bool NORM>
cudaError_t gemv(const GemvArgs<T> &a, bool pdl, cudaStream_t s)
{
    const int warps = EPI == EPI_SWIGLU ? a.nout : (a.nout + GR - 1) / GR;
    const dim3 grid((unsigned)((warps + GW - 1) / GW));
    const int nb = a.nb;
    if (nb <= 1)
        return launch(gemv_kernel<T, 1, EPI, NORM>, grid, dim3(GW * 32), pdl, s, a);
    if (nb <= 2)
        return launch(gemv_kernel<T, 2, EPI, NORM>, grid, dim3(GW * 32), pdl, s, a);
    if (nb <= 4)
        return launch(gemv_kernel<T, 4, EPI, NORM>, grid, dim3(GW * 32), pdl, s, a);
    return launch(gemv_kernel<T, 8, EPI, NORM>, grid, dim3(GW * 32), pdl, s, a);
}

template <typename T, int D>
cudaError_t attention(const AttnArgs<T> &a, int batch, int grp, bool pdl, cudaStream_t s)
{
    const dim3 grid((unsigned)a.kv_heads, (unsigned)a.splits, (unsigned)batch), block(AW * 32);
    switch (grp) {
    case 1: return launch(attn_kernel<T, D, 1>, grid, block, pdl, s, a);
    case 2: return launch(attn_kernel<T, D, 2>, grid, block, pdl, s, a);
    case 4: return launch(attn_kernel<T, D, 4>, grid, block, pdl, s, a);
    case 8: return launch(attn_kernel<T, D, 8>, grid, block, pdl, s, a);
    default: return cudaErrorInvalidValue;
    }
}

template <typename T>
cudaError_t enqueue(const dr_geom *g, const dr_dev *t, int l0, int l1, bool pdl, cudaStream_t s)
{
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
            if ((e = gemv<T, EPI_STORE, true>(q, pdl, s)) != cudaSuccess)
                return e;
        }
        const bool split = g->splits > 1;
        T *o = g->attn_only ? y + (size_t)l * B * qd : (T *)t->attn;
        AttnArgs<T> at = {g->attn_only ? x + (size_t)l * B * g->nqkv : (const T *)t->qkv,
                          (T *)t->kc + l * cache_layer, (T *)t->vc + l * cache_layer, t->cos_t, t->sin_t, t->lens,
                          t->opart, t->ml, o, (int)g->heads, (int)g->kv_heads, (int)g->nqkv, (int)g->kv,
                          (int)g->chunk, (int)g->splits, (int)g->steps,
                          ctl(DR_K_ATTN, g->attn_only && last_layer && !split)};
        const int grp = (int)(g->heads / g->kv_heads);
        e = D == 64 ? attention<T, 64>(at, B, grp, pdl, s) : attention<T, 128>(at, B, grp, pdl, s);
        if (e != cudaSuccess)
            return e;
        if (split) {
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
        if ((e = gemv<T, EPI_RESID, false>(op, pdl, s)) != cudaSuccess)
            return e;
        GemvArgs<T> gu = {(const T *)t->wgu + (size_t)l * 2 * I * H, h, (const T *)t->g_mlp + (size_t)l * H, nullptr,
                          (T *)t->act, I, H, B, (float)g->eps, ctl(DR_K_GATEUP, false)};
        if ((e = gemv<T, EPI_SWIGLU, true>(gu, pdl, s)) != cudaSuccess)
            return e;
        GemvArgs<T> dn = {(const T *)t->wd + (size_t)l * H * I, (const T *)t->act, nullptr, h,
                          last_layer ? y : h, H, I, B, (float)g->eps, ctl(DR_K_DOWN, last_layer)};
        if ((e = gemv<T, EPI_RESID, false>(dn, pdl, s)) != cudaSuccess)
            return e;
    }
    return cudaSuccess;
}

} // namespace

extern "C" int dr_enqueue(klab_dtype d, const dr_geom *g, const dr_dev *t, int l0, int l1, int pdl, klab_stream s)
{
    if (d == KLAB_FP16)
        return (int)enqueue<__half>(g, t, l0, l1, pdl != 0, s);
    if (d == KLAB_BF16)
        return (int)enqueue<__nv_bfloat16>(g, t, l0, l1, pdl != 0, s);
    return (int)cudaErrorInvalidValue;
}
