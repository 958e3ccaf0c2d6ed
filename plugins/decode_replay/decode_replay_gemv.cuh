/* decode_replay's GEMVs: out = W x for B = 1 to 8 sequences (x [B, K], W [rows, K]), RMSNorm fused into the
 * prologue (NORM), a plain store, a residual or SwiGLU in the epilogue. Bandwidth-bound at decode sizes: a
 * warp owns GR weight rows and walks them in 16-byte loads, each weight vector used for all B sequences
 * once loaded, accumulating in float. Two kernels of one function, a tuning configuration (`gemv=`):
 *
 *   plain  (gemv_kernel) a slab of GU vectors a lane a row is loaded, then used (the x vectors loaded one
 *          at a time among the FMAs), and only then the next slab's loads are issued: each slab costs a
 *          DRAM round trip plus the L2 round trips of its x, serially. Fine where many warps overlap their
 *          chains (gate/up: 14336 warps of 4 slabs); not at down (K = 14336: 2048 warps of 14 slabs, one
 *          wave), which the H200 measured at 68 % of the copy rate against gate/up's 95 %.
 *   pipe   (gemv_pipe_kernel) a register ring one slab deep, weights and x: as each vector u of the
 *          current slab is consumed, vector u of the warp's next slab (weights and the B x vectors) is
 *          issued into the registers it frees, so the weights of a whole slab are always in flight and (B <= 2)
 *          the x vectors arrive with them instead of after them. Weights stream through ld.global.nc with
 *          L1::no_allocate (read once a step: they must not evict x, which every warp of an SM re-reads
 *          from L1); x through ordinary cached loads. KS > 1 (`ksplit`, the down projection only) splits
 *          each row's K range over KS warps of a CTA, slab by slab, reduced through shared memory: KS
 *          times the independent chains, each KS times shorter. Why these depths: docs/notes/decode_replay.md,
 *          "The pipelined GEMV".
 *
 * Both share the row assignment, the RMSNorm prologue (RmsOp: partial() the sum of squares, finish() the
 * 1/rms, normalize() x * rs * gain) and the epilogue. PDL as everywhere in the step: the first weight
 * loads before griddepcontrol.wait, the trigger once the dependent prologue is done. Included by
 * decode_replay_kernels.cu (one translation unit). */
#ifndef DECODE_REPLAY_GEMV_CUH
#define DECODE_REPLAY_GEMV_CUH

#include <cuda_runtime.h>

#include "cuda/activation.cuh"
#include "row/rms_op.cuh"
#include "decode_replay_step.cuh"

namespace {

constexpr int GW = 4; /* warps a CTA */
constexpr int GR = 2; /* weight rows a warp (SWIGLU: a gate row and its up row) */
constexpr int GU = 4; /* plain: 16-byte vectors of each row in flight a lane */
enum { EPI_STORE = 0, EPI_RESID, EPI_SWIGLU };

/* pipe: vectors a lane a row in the ring (GR * PU * 512 bytes of weights in flight a warp at all times),
   and whether the x vectors ride in it too. With x the ring holds (GR + NB) * PU 16-byte registers a
   lane: at NB >= 4 that is 96 registers or more, and the kernel 166 to 254 with spills (ptxas, sm_90a);
   there x is loaded where it is used, from L1/L2, its latency hidden by the other warps while the
   weights' stream goes on regardless. */
constexpr int PU = 4;
template <int NB> struct PipeX {
    static constexpr bool value = NB <= 2;
};
/* pipe: CTAs an SM the registers must allow. At B = 1 six (80 registers a thread): the QKV GEMV's 768 CTAs
   (llama8b) then fit in one wave of 6 x 132, where five (its 88 registers unbounded) leave 108 CTAs for a
   second wave with a sixth of the bytes in flight. Past B = 1 the ring takes 120 to 128 registers: four.
   sm_80's code spills at 80 (ptxas: up to 44 bytes): four there. */
template <int NB> struct PipeCtas {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
    static constexpr int value = 4;
#else
    static constexpr int value = NB == 1 ? 6 : 4;
#endif
};

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

/* The rows of row group gw: SWIGLU a gate row and its up row, else GR consecutive rows. */
template <typename T, int EPI>
__device__ __forceinline__ void gemv_rows(const GemvArgs<T> &a, int gw, int (&row)[GR], bool (&live)[GR])
{
#pragma unroll
    for (int r = 0; r < GR; r++) {
        row[r] = EPI == EPI_SWIGLU ? r * a.nout + gw : gw * GR + r;
        live[r] = EPI == EPI_SWIGLU ? gw < a.nout : gw * GR + r < a.nout;
    }
}

/* NORM's prologue: each sequence's 1/rms over the whole of x, the CTA's threads together. Every thread of
   the CTA calls it (a block barrier). */
template <typename T, int NB>
__device__ __forceinline__ void gemv_norm(const GemvArgs<T> &a, RmsOp<T, false> (&op)[NB])
{
    const int warp = (int)threadIdx.x >> 5, lane = (int)threadIdx.x & 31, kv = a.K / (16 / (int)sizeof(T));
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

/* Between the weights' first loads and the main loop: the step's position, the wait on the previous
   kernel (x is its output), NORM's 1/rms, then the trigger that lets the next kernel's CTAs land. */
template <typename T, int NB, bool NORM>
__device__ __forceinline__ StepPos gemv_begin(const GemvArgs<T> &a, RmsOp<T, false> (&op)[NB])
{
    const StepPos sp = step_begin(a.c);
    pdl_wait();
    if (NORM)
        gemv_norm<T, NB>(a, op);
    pdl_trigger();
    return sp;
}

/* The epilogue of row group gw's sums (acc: whole dot products), by one lane. */
template <typename T, int NB, int EPI>
__device__ __forceinline__ void gemv_store(const GemvArgs<T> &a, const float (&acc)[GR][NB], const int (&row)[GR],
                                           const bool (&live)[GR], int gw)
{
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
}

/* acc[r][b] += w[r] . x (one 16-byte vector of each), x normalised first under NORM (vector i of K) */
template <typename T, int NB, bool NORM>
__device__ __forceinline__ void gemv_fma(float (&acc)[GR][NB], const float (&wf)[GR][16 / sizeof(T)], uint4 xr,
                                         const RmsOp<T, false> &op, int i, int b)
{
    constexpr int PER = 16 / sizeof(T);
    float xf[PER];
    if (NORM) {
        const rowk::Slot sl = {i, 0, PER};
        op.normalize(xr, sl, xf);
    } else {
        vec16<T>::unpack(xr, xf);
    }
#pragma unroll
    for (int r = 0; r < GR; r++)
#pragma unroll
        for (int j = 0; j < PER; j++)
            acc[r][b] = fmaf(wf[r][j], xf[j], acc[r][b]);
}

template <typename T, int NB, int EPI, bool NORM>
__global__ void __launch_bounds__(GW * 32) gemv_kernel(GemvArgs<T> a)
{
    constexpr int PER = 16 / sizeof(T);
    const int warp = (int)threadIdx.x >> 5, lane = (int)threadIdx.x & 31;
    const int gw = (int)blockIdx.x * GW + warp;
    const int kv = a.K / PER;
    int row[GR];
    bool live[GR];
    gemv_rows<T, EPI>(a, gw, row, live);
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
    RmsOp<T, false> op[NB];
    const StepPos sp0 = gemv_begin<T, NB, NORM>(a, op);

    float acc[GR][NB] = {};
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
                gemv_fma<T, NB, NORM>(acc, wf, __ldg(reinterpret_cast<const uint4 *>(a.x + (size_t)b * a.K) + i),
                                      op[b], i, b);
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
        gemv_store<T, NB, EPI>(a, acc, row, live, gw);
    step_end(a.c, sp0);
}

/* A weight vector, streamed: not kept in L1 (read once a step), so x stays there. */
__device__ __forceinline__ uint4 ld_stream(const uint4 *p)
{
    uint4 v;
    asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "l"(p));
    return v;
}

template <typename T, int NB, int EPI, bool NORM, int KS>
__global__ void __launch_bounds__(GW * 32, PipeCtas<NB>::value) gemv_pipe_kernel(GemvArgs<T> a)
{
    static_assert(GW % KS == 0, "a CTA's warps split into whole row groups");
    constexpr int PER = 16 / sizeof(T), SLAB = 32 * PU, STRIDE = KS * SLAB;
    constexpr bool XR = PipeX<NB>::value;
    const int warp = (int)threadIdx.x >> 5, lane = (int)threadIdx.x & 31;
    const int part = warp % KS;                                  /* this warp's slabs: part, part + KS, ... */
    const int gw = (int)blockIdx.x * (GW / KS) + warp / KS;      /* the row group */
    const int kv = a.K / PER;
    int row[GR];
    bool live[GR];
    gemv_rows<T, EPI>(a, gw, row, live);
    const uint4 *wrow[GR];
#pragma unroll
    for (int r = 0; r < GR; r++)
        wrow[r] = reinterpret_cast<const uint4 *>(a.w + (size_t)(live[r] ? row[r] : 0) * a.K) + lane;
    const uint4 *xrow = reinterpret_cast<const uint4 *>(a.x) + lane;
    const int xs = a.K / PER; /* vectors a sequence */
    const uint4 zero = make_uint4(0, 0, 0, 0);

    uint4 w[GR][PU], xv[XR ? NB : 1][PU];
    const int first = part * SLAB;
#pragma unroll
    for (int u = 0; u < PU; u++)
#pragma unroll
        for (int r = 0; r < GR; r++)
            w[r][u] = live[r] && first + u * 32 + lane < kv ? ld_stream(wrow[r] + first + u * 32) : zero;
    RmsOp<T, false> op[NB];
    const StepPos sp0 = gemv_begin<T, NB, NORM>(a, op);
    if constexpr (XR)
#pragma unroll
        for (int u = 0; u < PU; u++)
#pragma unroll
            for (int b = 0; b < NB; b++)
                xv[b][u] = b < a.nb && first + u * 32 + lane < kv ? __ldg(xrow + (size_t)b * xs + first + u * 32)
                                                                   : zero;

    float acc[GR][NB] = {};
    for (int base = first; base < kv; base += STRIDE) {
#pragma unroll
        for (int u = 0; u < PU; u++) {
            const int i = base + u * 32 + lane, next = base + STRIDE + u * 32;
            const bool have = i < kv, more = next + lane < kv;
            float wf[GR][PER];
#pragma unroll
            for (int r = 0; r < GR; r++) {
                vec16<T>::unpack(w[r][u], wf[r]);
                w[r][u] = live[r] && more ? ld_stream(wrow[r] + next) : zero;
            }
#pragma unroll
            for (int b = 0; b < NB; b++) {
                uint4 xr;
                if constexpr (XR) {
                    xr = xv[b][u];
                    xv[b][u] = b < a.nb && more ? __ldg(xrow + (size_t)b * xs + next) : zero;
                } else {
                    xr = b < a.nb && have ? __ldg(xrow + (size_t)b * xs + base + u * 32) : zero;
                }
                if (b < a.nb && have) /* past K: the gain's vector i is not there to normalise with */
                    gemv_fma<T, NB, NORM>(acc, wf, xr, op[b], i, b);
            }
        }
    }
#pragma unroll
    for (int r = 0; r < GR; r++)
#pragma unroll
        for (int b = 0; b < NB; b++)
            acc[r][b] = warp_sum(acc[r][b]);
    if constexpr (KS > 1) {
        __shared__ float red[GW][GR][NB];
        if (lane == 0)
#pragma unroll
            for (int r = 0; r < GR; r++)
#pragma unroll
                for (int b = 0; b < NB; b++)
                    red[warp][r][b] = acc[r][b];
        __syncthreads();
        if (part == 0 && lane == 0)
#pragma unroll
            for (int j = 1; j < KS; j++)
#pragma unroll
                for (int r = 0; r < GR; r++)
#pragma unroll
                    for (int b = 0; b < NB; b++)
                        acc[r][b] += red[warp + j][r][b];
    }
    if (part == 0 && lane == 0)
        gemv_store<T, NB, EPI>(a, acc, row, live, gw);
    step_end(a.c, sp0);
}

} // namespace

#endif
