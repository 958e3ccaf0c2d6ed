/* decode_replay's attention, two of its paths (DR_ATTN_*): the split path's attention and combine kernels,
 * and the fused path's one kernel (K/V streamed through a cp.async ring issued before the step's q is
 * awaited, the splits merged by the last CTA of each KV head). One lane layout, one online softmax
 * (attend) and one CTA merge (stash_lanes, merge_warps) serve both; fused_finish ends the fused path and
 * the mma path's kernel (decode_replay_attn_mma.cuh). Included by decode_replay_kernels.cu. */
#ifndef DECODE_REPLAY_ATTENTION_CUH
#define DECODE_REPLAY_ATTENTION_CUH

#include <math.h>

#include "decode_replay_step.cuh"
#include "cuda/numeric.cuh"
#include "row/rope_math.cuh"

namespace {

/* ---- attention ------------------------------------------------------------------------------- */

constexpr int AW = 4; /* warps a CTA */

template <typename T> struct AttnArgs {
    const T *qkv;   /* [B, nqkv]: this layer's packed q, k, v */
    T *kc, *vc;     /* this layer's caches, [B, kv_heads, kv, D] */
    const float *cos_t, *sin_t;
    const int32_t *lens;
    float *opart, *ml; /* splits > 1: [B, heads, splits, D] and [B, heads, splits, 2] */
    T *out;            /* [B, heads * D] */
    int heads, kv_heads, nqkv, kv, chunk, splits, steps;
    StepCtl c;
};

/* The lane layout both attention kernels share: a group of LP = D/8 lanes holds one position's 16-byte
   slices of k and v, SG groups a warp. */
template <int D> struct Lanes {
    static constexpr int PER = 8, LP = D / PER, SG = 32 / LP;
    int warp, lane, sub, sl, d0;
    __device__ Lanes()
        : warp((int)threadIdx.x >> 5), lane((int)threadIdx.x & 31), sub(lane / LP), sl(lane % LP), d0(sl * PER)
    {
    }
};

/* One lane's online softmax over its group's positions, for the G query heads of a KV head, in the
   log2 domain (q carries log2(e) / sqrt(D)). */
template <int G> struct Soft {
    float m[G], l[G], acc[G][8];
    __device__ void init()
    {
#pragma unroll
        for (int g = 0; g < G; g++) {
            m[g] = -INFINITY, l[g] = 0.f;
#pragma unroll
            for (int j = 0; j < 8; j++)
                acc[g][j] = 0.f;
        }
    }
};

/* Sequence b's token at position pos: its packed q, k, v and its RoPE rows. */
template <typename T, int D> struct Token {
    const T *tok;
    const float *cr, *sr;
    __device__ Token(const AttnArgs<T> &a, int b, int pos)
        : tok(a.qkv + (size_t)b * a.nqkv), cr(a.cos_t + (size_t)pos * (D / 2)), sr(a.sin_t + (size_t)pos * (D / 2))
    {
    }
    /* this lane's slice of vector v (of D), rotated (warp-wide: the partner is a shuffle away) */
    __device__ void rotated(int v, const Lanes<D> &ln, float (&f)[8]) const
    {
        float p[8];
        vec16<T>::unpack(__ldg(reinterpret_cast<const uint4 *>(tok + (size_t)v * D + ln.d0)), f);
#pragma unroll
        for (int j = 0; j < 8; j++)
            p[j] = __shfl_xor_sync(0xffffffffu, f[j], Lanes<D>::LP / 2);
        rope_rotate<8, true>(f, p, cr, sr, ln.d0, D / 2);
    }
};

/* q of the G heads of KV head kvh, rotated, scaled by log2(e) / sqrt(D). */
template <typename T, int D, int G>
__device__ __forceinline__ void load_q(const Token<T, D> &tk, int kvh, const Lanes<D> &ln, float (&q)[G][8])
{
    const float qs = ROW_LOG2E * rsqrtf((float)D);
#pragma unroll
    for (int g = 0; g < G; g++) {
        float f[8];
        tk.rotated(kvh * G + g, ln, f);
#pragma unroll
        for (int j = 0; j < 8; j++)
            q[g][j] = f[j] * qs;
    }
}

/* The append, by warp 0 of the CTA whose range holds pos: the new token's k of KV head kvh rotated, and
   its v, written at pos in the layer's caches and, where kn is given, into shared memory (kn, vn) too. */
template <typename T, int D>
__device__ __forceinline__ void append(const AttnArgs<T> &a, const Token<T, D> &tk, int b, int kvh, int pos,
                                       const Lanes<D> &ln, T *kn, T *vn)
{
    float f[8];
    tk.rotated(a.heads + kvh, ln, f);
    const uint4 k = vec16<T>::pack(f);
    const uint4 v = __ldg(reinterpret_cast<const uint4 *>(tk.tok + (size_t)(a.heads + a.kv_heads + kvh) * D + ln.d0));
    if (ln.sub != 0)
        return;
    const size_t at = (((size_t)b * a.kv_heads + kvh) * a.kv + pos) * D;
    reinterpret_cast<uint4 *>(a.kc + at)[ln.sl] = k;
    reinterpret_cast<uint4 *>(a.vc + at)[ln.sl] = v;
    if (kn) {
        reinterpret_cast<uint4 *>(kn)[ln.sl] = k;
        reinterpret_cast<uint4 *>(vn)[ln.sl] = v;
    }
}

/* After the wait, in both paths: q of the CTA's G heads (the QKV GEMV's output), then the next kernel
   may launch, then the append by the CTA whose range holds pos (owns). */
template <typename T, int D, int G>
__device__ __forceinline__ void q_then_append(const AttnArgs<T> &a, int b, int kvh, int pos, bool owns,
                                              const Lanes<D> &ln, float (&q)[G][8], T *kn, T *vn)
{
    const Token<T, D> tk(a, b, pos);
    load_q<T, D, G>(tk, kvh, ln, q);
    pdl_trigger();
    if (ln.warp == 0 && owns)
        append<T, D>(a, tk, b, kvh, pos, ln, kn, vn);
}

/* U positions of the lane's group, p0 + u * SG (those at or past c1 masked), into its softmax state: one
   max update per U positions. */
template <typename T, int D, int G, int U>
__device__ __forceinline__ void attend(Soft<G> &st, const float (&q)[G][8], const uint4 (&kr)[U],
                                       const uint4 (&vr)[U], int p0, int c1)
{
    constexpr int PER = 8, LP = D / PER, SG = 32 / LP;
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
            s[u][g] = p0 + u * SG < c1 ? t : -INFINITY;
        }
    }
#pragma unroll
    for (int g = 0; g < G; g++) {
        float mx = st.m[g];
#pragma unroll
        for (int u = 0; u < U; u++)
            mx = fmaxf(mx, s[u][g]);
        if (mx == -INFINITY) /* nothing valid yet in this group */
            continue;
        const float corr = fast_ex2(st.m[g] - mx); /* m = -inf: 0 */
        st.l[g] *= corr;
#pragma unroll
        for (int j = 0; j < PER; j++)
            st.acc[g][j] *= corr;
#pragma unroll
        for (int u = 0; u < U; u++) {
            const float pr = fast_ex2(s[u][g] - mx);
            float vf[PER];
            vec16<T>::unpack(vr[u], vf);
            st.l[g] += pr;
#pragma unroll
            for (int j = 0; j < PER; j++)
                st.acc[g][j] = fmaf(pr, vf[j], st.acc[g][j]);
        }
        st.m[g] = mx;
    }
}

/* The CTA's softmax states merged: across the warp's groups by shuffles (l is each lane's own sum of its
   group's positions: the same in every lane of a group, since every lane added the same pr), then each
   warp's state into shared memory sm in merge_warps' layout. */
template <int D, int G>
__device__ __forceinline__ void stash_lanes(Soft<G> &st, const Lanes<D> &ln, float *sm)
{
    constexpr int PER = 8, LP = D / PER;
#pragma unroll
    for (int g = 0; g < G; g++)
#pragma unroll
        for (int o = LP; o < 32; o <<= 1) {
            const float mo = __shfl_xor_sync(0xffffffffu, st.m[g], o), lo = __shfl_xor_sync(0xffffffffu, st.l[g], o);
            const float mx = fmaxf(st.m[g], mo);
            const float ca = mx == -INFINITY ? 0.f : fast_ex2(st.m[g] - mx);
            const float cb = mx == -INFINITY ? 0.f : fast_ex2(mo - mx);
            st.l[g] = st.l[g] * ca + lo * cb;
#pragma unroll
            for (int j = 0; j < PER; j++)
                st.acc[g][j] = st.acc[g][j] * ca + __shfl_xor_sync(0xffffffffu, st.acc[g][j], o) * cb;
            st.m[g] = mx;
        }
    float *sm_acc = sm, *sm_ml = sm + AW * G * D;
    if (ln.sub == 0)
#pragma unroll
        for (int g = 0; g < G; g++) {
#pragma unroll
            for (int j = 0; j < PER; j++)
                sm_acc[(ln.warp * G + g) * D + ln.d0 + j] = st.acc[g][j];
            if (ln.sl == 0)
                sm_ml[(ln.warp * G + g) * 2] = st.m[g], sm_ml[(ln.warp * G + g) * 2 + 1] = st.l[g];
        }
}

/* The warps' states in sm (AW * G * (D + 2) floats: o unnormalised [AW][G][D], then (m, l) [AW][G][2]; a
   warp that saw no position has m = -inf, l = 0, o = 0) merged into the CTA's: emit(g, d, m, l, o) for
   each of the G * D outputs, o unnormalised. Begins with the barrier that publishes the warps' writes,
   ends with the CTA's threads past their last read of sm. */
template <int D, int G, typename Emit> __device__ __forceinline__ void merge_warps(const float *sm, Emit emit)
{
    const float *sm_acc = sm, *sm_ml = sm + AW * G * D;
    __syncthreads();
    for (int t = (int)threadIdx.x; t < G * D; t += AW * 32) {
        const int g = t / D, d = t % D;
        float mx = -INFINITY;
#pragma unroll
        for (int w = 0; w < AW; w++)
            mx = fmaxf(mx, sm_ml[(w * G + g) * 2]);
        float lt = 0.f, o = 0.f;
        if (mx != -INFINITY)
#pragma unroll
            for (int w = 0; w < AW; w++) {
                const float c = fast_ex2(sm_ml[(w * G + g) * 2] - mx);
                lt += sm_ml[(w * G + g) * 2 + 1] * c;
                o += sm_acc[(w * G + g) * D + d] * c;
            }
        emit(g, d, mx, lt, o);
    }
    __syncthreads();
}

/* The split path's attention. One CTA: KV head blockIdx.x, split blockIdx.y, sequence blockIdx.z; its G
   query heads over positions [split * chunk, min(+chunk, len)), U positions a group in flight, loaded
   from the cache straight into registers. The CTA whose range holds the new position writes the rotated
   k and v there first and reads them back like the others (ordinary loads: the cache is written in this
   kernel, so not through the read-only path). A CTA whose split starts at or past the step's length marks
   it empty and exits, reading nothing else. Unsplit, it writes o; split, o/l and (m, l) for the combine. */
template <typename T, int D, int G>
__global__ void __launch_bounds__(AW * 32) attn_kernel(AttnArgs<T> a)
{
    constexpr int SG = Lanes<D>::SG, U = G >= 8 ? 2 : 4;
    const Lanes<D> ln;
    const int kvh = (int)blockIdx.x, split = (int)blockIdx.y, b = (int)blockIdx.z;
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
    float q[G][8];
    q_then_append<T, D, G>(a, b, kvh, pos, c0 <= pos && pos < c0 + a.chunk, ln, q, nullptr, nullptr);
    __syncthreads();
    const T *kh = a.kc + ((size_t)b * a.kv_heads + kvh) * a.kv * D, *vh = a.vc + ((size_t)b * a.kv_heads + kvh) * a.kv * D;

    Soft<G> st;
    st.init();
    for (int p0 = c0 + ln.warp * SG * U; p0 < c1; p0 += AW * SG * U) {
        uint4 kr[U], vr[U];
#pragma unroll
        for (int u = 0; u < U; u++) {
            const int p = p0 + u * SG + ln.sub;
            kr[u] = p < c1 ? reinterpret_cast<const uint4 *>(kh + (size_t)p * D)[ln.sl] : make_uint4(0, 0, 0, 0);
            vr[u] = p < c1 ? reinterpret_cast<const uint4 *>(vh + (size_t)p * D)[ln.sl] : make_uint4(0, 0, 0, 0);
        }
        attend<T, D, G, U>(st, q, kr, vr, p0 + ln.sub, c1);
    }
    __shared__ float sm[AW * G * (D + 2)];
    stash_lanes<D, G>(st, ln, sm);
    merge_warps<D, G>(sm, [&](int g, int d, float mx, float lt, float o) {
        const size_t bh = (size_t)b * a.heads + kvh * G + g;
        if (a.splits == 1) {
            a.out[bh * D + d] = from_f<T>(o / lt);
        } else {
            const size_t sp = bh * a.splits + split;
            if (lt > 0.f)
                a.opart[sp * D + d] = o / lt;
            if (d == 0)
                a.ml[sp * 2] = mx, a.ml[sp * 2 + 1] = lt;
        }
    });
    step_end(a.c, sp0);
}

/* The split path's combine: the splits of one (sequence, head) merged, thread d of a CTA of D threads;
   empty splits (l = 0: past the step's length) skipped without reading their o. */
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

/* ---- the fused attention ---------------------------------------------------------------------- */

/* Counters of the CTAs of each (sequence, KV head) that have finished their split: the last to arrive
   merges the splits and puts its counter back to 0, so every launch (and every graph replay) finds them
   at 0. A layer's attention touches them only after griddepcontrol.wait, when the previous layer's has
   completed. */
__device__ unsigned int dr_head_ticket[DR_MAX_TICKETS];

/* 16 bytes global -> shared, asynchronously: the first n read from src, the rest zeros (n = 0: nothing read) */
__device__ __forceinline__ void cp_async16(void *dst, const void *src, unsigned n = 16)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"((unsigned)__cvta_generic_to_shared(dst)),
                 "l"(src), "r"(n)
                 : "memory");
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
template <int N> __device__ __forceinline__ void cp_async_wait() { asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory"); }

constexpr int FS = 4;                                       /* tiles in flight a CTA */
template <int D> struct FusedTile {
    static constexpr int N = DR_TILE_POSITIONS(D); /* positions a tile: 8 KB of k and v */
};

/* A one-kernel path's CTA (fused, mma): KV head blockIdx.x, split blockIdx.y, sequence blockIdx.z; the step's
   length (at cursor cur) and new position, the CTA's positions [c0, c1) in ntile tiles of FT (none past the
   length), and its KV head's caches. */
template <typename T, int D> struct CtaRange {
    int kvh, split, b, len, pos, c0, c1, ntile;
    const T *kh, *vh;
    __device__ CtaRange(const AttnArgs<T> &a, int cur, int ft)
        : kvh((int)blockIdx.x), split((int)blockIdx.y), b((int)blockIdx.z),
          len(a.lens[(size_t)(cur % a.steps) * gridDim.z + b]), pos(len - 1), c0(split * a.chunk),
          c1(min(c0 + a.chunk, len)), ntile(c0 < len ? (c1 - c0 + ft - 1) / ft : 0),
          kh(a.kc + ((size_t)b * a.kv_heads + kvh) * a.kv * D), vh(a.vc + ((size_t)b * a.kv_heads + kvh) * a.kv * D)
    {
    }
    /* griddepcontrol.wait, then whether the CTA has work: one past the step's length ends its step here and
       returns false (no ticket: the split merge counts the active splits) */
    __device__ bool wait_active(const AttnArgs<T> &a, const StepPos &sp0) const
    {
        pdl_wait();
        if (ntile == 0)
            step_end(a.c, sp0);
        return ntile > 0;
    }
};

/* The end of both one-kernel paths (fused, mma), once each warp's state is in sm (merge_warps' layout):
   the CTA's merge; then, where the step has one active split, o itself; else the split's o/l and (m, l),
   and the last CTA of the step's active splits of its (sequence, KV head) to finish merges them into o. */
template <typename T, int D, int G>
__device__ __forceinline__ void fused_finish(const AttnArgs<T> &a, const CtaRange<T, D> &r, const float *sm)
{
    __shared__ unsigned last_arrival;
    const int b = r.b, kvh = r.kvh, split = r.split, len = r.len;
    const int nact = dr_active_splits(len, a.chunk);
    const size_t bh0 = (size_t)b * a.heads + (size_t)kvh * G;
    merge_warps<D, G>(sm, [&](int g, int d, float mx, float lt, float o) {
        if (nact == 1) { /* split 0 alone has work: its o is the head's */
            a.out[(bh0 + g) * D + d] = from_f<T>(o / lt);
        } else {
            const size_t sp = (bh0 + g) * a.splits + split;
            a.opart[sp * D + d] = o / lt;
            if (d == 0)
                a.ml[sp * 2] = mx, a.ml[sp * 2 + 1] = lt;
        }
    });
    if (nact > 1) {
        __threadfence(); /* this thread's o/l and (m, l) before the ticket that publishes them */
        __syncthreads();
        if (threadIdx.x == 0) {
            unsigned *tk = &dr_head_ticket[(size_t)b * a.kv_heads + kvh];
            last_arrival = atomicAdd(tk, 1u) == (unsigned)nact - 1;
            if (last_arrival)
                *tk = 0;
        }
        __syncthreads();
        if (last_arrival) {
            __threadfence();
            /* thread c: 4 outputs (g, d4 * 4 ..) over the active splits, read past L1 (other SMs wrote
               them) */
            for (int c = (int)threadIdx.x; c < G * D / 4; c += AW * 32) {
                const int g = c / (D / 4), d4 = c % (D / 4);
                const size_t bh = bh0 + g;
                const float *mlh = a.ml + bh * a.splits * 2;
                /* one pass, the running max rescaling what is summed (a first pass for the max would
                   be a round trip of its own); unrolled, the splits' loads are independent of the
                   chain: 8 in flight a thread. m of an active split is finite, so the first rescale is
                   ex2(-inf) = 0. */
                float mx = -INFINITY, lt = 0.f;
                float4 o = make_float4(0.f, 0.f, 0.f, 0.f);
#pragma unroll 8
                for (int s = 0; s < nact; s++) {
                    const float ms = __ldcg(mlh + 2 * s), ls = __ldcg(mlh + 2 * s + 1);
                    const float4 v = __ldcg(reinterpret_cast<const float4 *>(a.opart + (bh * a.splits + s) * D) + d4);
                    const float nm = fmaxf(mx, ms), sc = fast_ex2(mx - nm), w = ls * fast_ex2(ms - nm);
                    lt = fmaf(lt, sc, w);
                    o.x = fmaf(w, v.x, o.x * sc), o.y = fmaf(w, v.y, o.y * sc), o.z = fmaf(w, v.z, o.z * sc),
                    o.w = fmaf(w, v.w, o.w * sc);
                    mx = nm;
                }
                const float r = 1.f / lt;
                float f[4] = {o.x * r, o.y * r, o.z * r, o.w * r};
                T *dst = a.out + bh * D + d4 * 4;
#pragma unroll
                for (int j = 0; j < 4; j++)
                    dst[j] = from_f<T>(f[j]);
            }
        }
    }
}

/* The fused path's attention: the split path's CTA layout and softmax, with
   - the K/V of the CTA's range streamed through a ring of FS tiles in shared memory (cp.async, 16 bytes
     a lane), the first FS issued before griddepcontrol.wait: the cache, the lengths and the cursor are
     written by no earlier kernel of the step (the previous layer's attention writes its own layer's
     cache), so only q waits for the QKV GEMV. The cursor and the previous step's append are safe to
     read early only because steps are never chained by PDL: each step is its own launch (graph or
     eager), so the last step's kernels are complete. With part = attn this kernel is the step's last
     and triggers before its own append and the cursor's move: chaining two steps under PDL would let
     the next step read the old cursor and slot (review of 2026-11-22);
   - the new position read from the rotated k and v the CTA holds (kn, vn), not from the ring, whose copy
     of it may predate this kernel's append;
   - no combine kernel: each CTA of a split step writes o/l and (m, l) for its split, and the last of the
     step's active splits of its (sequence, KV head) to finish merges them into o;
   - CTAs past the step's length exit after the wait without a ticket (the merge counts active splits). */
template <typename T, int D, int G>
__global__ void __launch_bounds__(AW * 32) attn_fused_kernel(AttnArgs<T> a)
{
    constexpr int FT = FusedTile<D>::N, SG = Lanes<D>::SG, LP = Lanes<D>::LP, TU = FT / (AW * SG);
    static_assert(TU * AW * SG == FT, "a tile is TU positions a lane group");
    static_assert(AW * G * (D + 2) * sizeof(float) <= FS * 2 * FT * D * sizeof(T), "the merge fits in the ring");
    __shared__ __align__(16) T ring[FS][2][FT * D]; /* [slot][k, v][position in tile * D + d] */
    __shared__ __align__(16) T kn[D], vn[D];
    const Lanes<D> ln;
    const StepPos sp0 = step_begin(a.c);
    const CtaRange<T, D> r(a, sp0.cur, FT);
    const int pos = r.pos, c0 = r.c0, c1 = r.c1;
    auto issue = [&](int t) {
        if (t < r.ntile)
            for (int i = (int)threadIdx.x; i < 2 * FT * LP; i += AW * 32) {
                const int kv = i / (FT * LP), j = i % (FT * LP), p = c0 + t * FT + j / LP;
                if (p < c1)
                    cp_async16(&ring[t % FS][kv][j * 8], (kv ? r.vh : r.kh) + (size_t)p * D + (j % LP) * 8);
            }
        cp_async_commit(); /* one group a tile, empty or not: the wait below counts groups */
    };
#pragma unroll
    for (int t = 0; t < FS; t++)
        issue(t);
    if (!r.wait_active(a, sp0))
        return;
    float q[G][8];
    q_then_append<T, D, G>(a, r.b, r.kvh, pos, c0 <= pos && pos < c1, ln, q, kn, vn);

    Soft<G> st;
    st.init();
    for (int t = 0; t < r.ntile; t++) {
        cp_async_wait<FS - 1>();
        __syncthreads(); /* tile t landed for every thread's copies; kn, vn written */
        const int pt = c0 + t * FT, p0 = pt + ln.warp * SG * TU + ln.sub;
        const T *ks = ring[t % FS][0], *vs = ring[t % FS][1];
        uint4 kr[TU], vr[TU];
#pragma unroll
        for (int u = 0; u < TU; u++) {
            /* past c1 the slot holds an older tile's positions or nothing yet (possibly NaN patterns,
               and 0 * NaN is NaN): zeros, as the split path loads */
            const int p = p0 + u * SG;
            const T *kp = p == pos ? kn : ks + (p - pt) * D, *vp = p == pos ? vn : vs + (p - pt) * D;
            kr[u] = p < c1 ? reinterpret_cast<const uint4 *>(kp)[ln.sl] : make_uint4(0, 0, 0, 0);
            vr[u] = p < c1 ? reinterpret_cast<const uint4 *>(vp)[ln.sl] : make_uint4(0, 0, 0, 0);
        }
        attend<T, D, G, TU>(st, q, kr, vr, p0, c1);
        __syncthreads(); /* slot t % FS read by all: refill it */
        issue(t + FS);
    }
    stash_lanes<D, G>(st, ln, reinterpret_cast<float *>(&ring[0][0][0]));
    fused_finish<T, D, G>(a, r, reinterpret_cast<float *>(&ring[0][0][0]));
    step_end(a.c, sp0);
}

} // namespace

#endif
