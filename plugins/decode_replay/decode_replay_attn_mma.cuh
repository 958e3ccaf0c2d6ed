/* decode_replay's attention on tensor cores (DR_ATTN_MMA, `attn=mma`). The fused path's kernel
 * (its plan, CTA layout, RoPE and append, cp.async issued before griddepcontrol.wait, StepCtl, the CTA
 * and split merges: fused_finish) with each tile's q.k and p.v on mma.sync.m16n8k16 in FlashAttention-2's
 * register layout, M = the G query heads of the KV head:
 *   S = Q K^T   A = Q (heads in rows 0..G-1 of 16, loaded once into registers), B = K^T from the tile by
 *               ldmatrix (K's rows are B's columns): FT/8 n8 tiles x D/16 k16 steps;
 *   softmax     on S's accumulators: lane (g, t) holds head g's positions 2t, 2t+1 of each n8 tile, so a
 *               head's row lives in the 4 lanes of a quad: two shuffles for its max, none for its sum
 *               (each lane keeps its own part of l until the end);
 *   O += P V    P's accumulators are the next MMA's A fragment as they lie (two n8 tiles = one k16 step),
 *               B = V from the tile by ldmatrix.trans: FT/16 k16 steps x D/8 n8 tiles.
 * The fused kernel spends a 16-lane group and a 4-level shuffle on each position's q.k; here a warp takes a
 * whole tile of 16 (D = 128) or 32 (D = 64) positions in 16 + 16 MMAs.
 *
 * Each warp streams its own tiles (tile t of the CTA is warp t % AW's) through its own MW slots, so its
 * loop waits on its own copies and a warp barrier, never on the CTA: with the plan of llama8b (128
 * positions a CTA, 8 tiles of 16 at D = 128) every tile is issued before the wait. Rows of a slot are
 * swizzled (16-byte chunk c of row r at c ^ (r % 8)): ldmatrix reads 8 rows D * 2 bytes apart, one bank
 * group unswizzled. Positions past the range are copied as zeros (cp.async's zero fill) and their scores
 * masked to -inf, so the stale or unwritten bits of a slot never meet a zero weight (0 * NaN is NaN). */
#ifndef DECODE_REPLAY_ATTN_MMA_CUH
#define DECODE_REPLAY_ATTN_MMA_CUH

#include <type_traits>

#include "cuda/cluster_barrier.cuh"
#include "cuda/mma_sync.cuh"
#include "decode_replay_attention.cuh"

namespace {

/* A CTA's ring: MW tiles in flight a warp (2: 64 KB; the cluster path 4 or 3 where its grid still fits
   the GPU at once: at 4, a CTA's 256 positions of llama8b all issued before the wait) */
template <typename T, int D, int MW> struct MmaRing {
    static constexpr int FT = FusedTile<D>::N, LP = D / 8;
    static constexpr int TILE = 2 * FT * D;                              /* elements of a slot: k, then v */
    static constexpr size_t BYTES = (size_t)AW * MW * TILE * sizeof(T); /* dynamic shared memory */
};

/* element offset of (row r, 16-byte chunk c) in a slot's k or v */
template <int D> __device__ __forceinline__ int swz(int r, int c) { return r * D + ((c ^ (r & 7)) << 3); }

/* four 8x8 b16 matrices from shared memory, lanes 8i..8i+7 naming matrix i's rows; TRANS: transposed.
   volatile and a memory clobber: they read what cp.async and the patch of the new position wrote, so they
   must stay after the waits and barriers. */
template <bool TRANS> __device__ __forceinline__ void ldsm4(unsigned (&r)[4], unsigned addr)
{
    if (TRANS)
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];"
                     : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                     : "r"(addr)
                     : "memory");
    else
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                     : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                     : "r"(addr)
                     : "memory");
}

/* One warp's online softmax over its tiles, head g = lane / 4 (rows g >= G are zeros, never emitted): m in
   the log2 domain, l this lane's part of the sum, o its [dims 8n + 2t, 2t + 1] of the unnormalised output. */
template <int D> struct MmaSoft {
    float m = -INFINITY, l = 0.f, o[D / 8][2] = {};
};

/* The tile at shared address k (v follows it), its first position pt, positions from c1 on masked, into s. */
template <typename T, int D>
__device__ __forceinline__ void mma_tile(MmaSoft<D> &s, const unsigned (&qa)[D / 16][2], unsigned k, int pt, int c1,
                                         int lane)
{
    constexpr int FT = FusedTile<D>::N, NT = FT / 8, KS = D / 16;
    const unsigned v = k + FT * D * (unsigned)sizeof(T);
    const int mi = lane >> 3, r8 = lane & 7, t = lane & 3;
    /* S: two accumulators a tile (even and odd k16 steps), halving each dependent chain of MMAs */
    float sc[NT][2];
#pragma unroll
    for (int n = 0; n < NT; n++) {
        float e[2] = {0.f, 0.f}, d[2] = {0.f, 0.f};
#pragma unroll
        for (int kk = 0; kk < KS / 2; kk++) {
            unsigned b[4]; /* k16 steps 2kk (b0, b1) and 2kk + 1 (b2, b3) of positions 8n.. */
            ldsm4<false>(b, k + swz<D>(8 * n + r8, 4 * kk + mi) * (unsigned)sizeof(T));
            Mma8<T>::run(e, qa[2 * kk][0], qa[2 * kk][1], b[0], b[1]);
            Mma8<T>::run(d, qa[2 * kk + 1][0], qa[2 * kk + 1][1], b[2], b[3]);
        }
#pragma unroll
        for (int j = 0; j < 2; j++)
            sc[n][j] = pt + 8 * n + 2 * t + j < c1 ? e[j] + d[j] : -INFINITY;
    }
    float mx = -INFINITY;
#pragma unroll
    for (int n = 0; n < NT; n++)
        mx = fmaxf(mx, fmaxf(sc[n][0], sc[n][1]));
    mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
    mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
    const float mn = fmaxf(s.m, mx); /* finite: a tile holds at least one position before c1 */
    const float corr = fast_ex2(s.m - mn); /* m = -inf: 0 */
    s.l *= corr;
#pragma unroll
    for (int n = 0; n < D / 8; n++)
        s.o[n][0] *= corr, s.o[n][1] *= corr;
    s.m = mn;
    unsigned pa[FT / 16][2]; /* P as the A fragment of k16 step kk: n8 tiles 2kk (a0) and 2kk + 1 (a2) */
#pragma unroll
    for (int n = 0; n < NT; n++) {
        const float p0 = fast_ex2(sc[n][0] - mn), p1 = fast_ex2(sc[n][1] - mn);
        s.l += p0 + p1;
        pa[n / 2][n % 2] = pack2<T>(p0, p1);
    }
    /* O += P V: matrices (positions 16kk.. and 16kk + 8.., dims 16q..) then the same of dims 16q + 8.. */
#pragma unroll
    for (int kk = 0; kk < FT / 16; kk++)
#pragma unroll
        for (int q = 0; q < D / 16; q++) {
            unsigned b[4];
            ldsm4<true>(b, v + swz<D>(16 * kk + (mi & 1) * 8 + r8, 2 * q + (mi >> 1)) * (unsigned)sizeof(T));
            Mma8<T>::run(s.o[2 * q], pa[kk][0], pa[kk][1], b[0], b[1]);
            Mma8<T>::run(s.o[2 * q + 1], pa[kk][0], pa[kk][1], b[2], b[3]);
        }
}

/* The cluster path's merge (CL): the splits of a (sequence, KV head) are the CTAs of one cluster (rank =
   split); rank r merges outputs [r * per, (r + 1) * per) of the G * D. Each rank pushes its merged state
   into the owners' shared memory (ClusterInbox, through distributed shared memory: stores, nothing waited
   on), then one barrier publishes the pushes and each rank merges from its own inbox. Pulling instead
   (each rank reading the others' states after the barrier) needs a second barrier to keep every CTA's
   shared memory alive until the last rank has read it, and its remote loads sit on the chain: at kv 512
   the two barriers were 26 % of the attention's stall samples (ncu on an H200,
   docs/measurements/2026-11-22-h200-10.md). The pushes need every
   rank's shared memory to exist: the kernel arrives at its start and waits before its first push (long
   past by then: one phase that costs no wait). A rank without positions pushes m = -inf, l = 0, o = 0:
   its weight ex2(-inf - m) is 0. Split 0 always has positions (len >= 1), so the max is finite. */
template <int D, int G> struct ClusterInbox {
    static constexpr int N = G * D;
    /* o: [source rank][per] of the owner's slice (S * per <= N + S - 1), then (m, l): [source rank][G][2] */
    static constexpr int FLOATS = N + DR_MAX_CLUSTER + DR_MAX_CLUSTER * G * 2;
    static_assert(D >= DR_MAX_CLUSTER, "a head's (m, l) reach every rank from its outputs d < S");
    int S, rank, per;
    __device__ ClusterInbox(int rank_) : S((int)gridDim.y), rank(rank_), per((N + S - 1) / S) {}
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    /* output (g, d) of this rank's state to its owner; (m, l) of head g to rank d (every rank needs every
       head's: its slice may hold any) */
    __device__ __forceinline__ void push(float *box, int g, int d, float m, float l, float o) const
    {
        const int i = g * D + d, owner = i / per;
        cl::at(box, owner)[rank * per + (i - owner * per)] = o;
        if (d < S) {
            float *ml = cl::at(box, d) + N + DR_MAX_CLUSTER + (rank * G + g) * 2;
            ml[0] = m, ml[1] = l;
        }
    }
#endif
};
/* After the barrier that published the pushes: this rank's slice from its own inbox. */
template <typename T, int D, int G>
__device__ __forceinline__ void cluster_merge(const AttnArgs<T> &a, const CtaRange<T, D> &r,
                                              const ClusterInbox<D, G> &ib, const float *box)
{
    constexpr int N = G * D;
    const int S = ib.S, rank = ib.rank, per = ib.per;
    const float *box_ml = box + N + DR_MAX_CLUSTER;
    for (int j = (int)threadIdx.x; j < per && rank * per + j < N; j += AW * 32) {
        const int i = rank * per + j, g = i / D, d = i % D;
        float m[DR_MAX_CLUSTER], l[DR_MAX_CLUSTER], o[DR_MAX_CLUSTER], mx = -INFINITY;
#pragma unroll
        for (int s = 0; s < DR_MAX_CLUSTER; s++)
            if (s < S) /* every load issued before the first is used */
                o[s] = box[s * per + j], m[s] = box_ml[(s * G + g) * 2], l[s] = box_ml[(s * G + g) * 2 + 1];
#pragma unroll
        for (int s = 0; s < DR_MAX_CLUSTER; s++)
            if (s < S)
                mx = fmaxf(mx, m[s]);
        float lt = 0.f, ot = 0.f;
#pragma unroll
        for (int s = 0; s < DR_MAX_CLUSTER; s++)
            if (s < S) {
                const float c = fast_ex2(m[s] - mx);
                lt = fmaf(l[s], c, lt), ot = fmaf(o[s], c, ot);
            }
        a.out[((size_t)r.b * a.heads + (size_t)r.kvh * G + g) * D + d] = from_f<T>(ot / lt);
    }
}

/* The mma path's attention: one CTA a (KV head blockIdx.x, split blockIdx.y, sequence blockIdx.z), as the
   fused kernel; CL, the cluster path: the splits one cluster along y, merged by cluster_merge (no ticket,
   no partials in global memory), and a CTA past the step's length stays for the cluster's barriers with an
   empty state. Dynamic shared memory: MmaRing<T, D, MW>::BYTES (the launch raises the kernel's limit). */
template <typename T, int D, int G, bool CL, int MW>
__global__ void __launch_bounds__(AW * 32, 1) attn_mma_kernel(AttnArgs<T> a)
{
    using R = MmaRing<T, D, MW>;
    constexpr int FT = R::FT, LP = R::LP;
    static_assert(G <= 8, "the heads fill rows 0..7 of the m16 operand");
    static_assert(AW * G * (D + 2) * sizeof(float) <= R::BYTES, "the merge fits in the ring");
    extern __shared__ __align__(16) unsigned char dr_mma_ring[];
    __shared__ __align__(16) T kn[D], vn[D], qs[G * D];
    __shared__ __align__(16) float inbox[CL ? ClusterInbox<D, G>::FLOATS : 1]; /* CL: the ranks' pushes */
    const Lanes<D> ln;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    if (CL)
        cl::arrive_relaxed(); /* this CTA's inbox exists (cluster_merge's first phase) */
#endif
    const StepPos sp0 = step_begin(a.c);
    const CtaRange<T, D> r(a, sp0.cur, FT);
    const int pos = r.pos, c0 = r.c0, c1 = r.c1;
    T *const mine = reinterpret_cast<T *>(dr_mma_ring) + (size_t)ln.warp * MW * R::TILE; /* this warp's slots */
    auto slot = [&](int t) { return mine + (size_t)((t / AW) % MW) * R::TILE; };
    static_assert(2 * FT * LP % 32 == 0, "a tile is whole copies of the warp");
    auto issue = [&](int t) { /* tile t, this warp's: one group, empty or not (the wait counts groups) */
        if (t < r.ntile) {
            T *sl = slot(t);
            const int p0 = c0 + t * FT;
            /* unrolled, copy j's k/v half and its row past the lane's are constants; a tile wholly inside the
               range (all but a CTA's last) needs no clamp and no zero fill, so its copies are the LDGSTS
               and the swizzle's few operations (the rolled, clamped loop spent ~15 instructions a copy:
               ~1000 a warp before the wait at llama8b's 4 tiles) */
            const T *kb = r.kh + (size_t)p0 * D, *vb = r.vh + (size_t)p0 * D;
            auto copies = [&](auto whole_tile) { /* std::true_type: no clamp and no zero fill */
                constexpr bool whole = decltype(whole_tile)::value;
#pragma unroll
                for (int j = 0; j < 2 * FT * LP / 32; j++) {
                    const int i = ln.lane + 32 * j;
                    const int kv = i / (FT * LP), row = i / LP % FT, c = i % LP;
                    const int at = whole ? row : min(row, c1 - 1 - p0); /* past c1: the last row, zero-filled */
                    cp_async16(sl + kv * FT * D + swz<D>(row, c), (kv ? vb : kb) + at * D + c * 8,
                               whole || p0 + row < c1 ? 16u : 0u);
                }
            };
            if (p0 + FT <= c1)
                copies(std::true_type());
            else
                copies(std::false_type());
        }
        cp_async_commit();
    };
#pragma unroll
    for (int j = 0; j < MW; j++)
        issue(ln.warp + j * AW);
    if (CL) {
        pdl_wait();
        if (r.ntile == 0)
            pdl_trigger(); /* q_then_append's, for a CTA that stays for the barriers only */
    } else if (!r.wait_active(a, sp0)) {
        return;
    }
    if (r.ntile > 0) {
        float q[G][8];
        q_then_append<T, D, G>(a, r.b, r.kvh, pos, c0 <= pos && pos < c1, ln, q, kn, vn);
        if (ln.warp == 0 && ln.sub == 0)
#pragma unroll
            for (int g = 0; g < G; g++)
                reinterpret_cast<uint4 *>(qs + g * D)[ln.sl] = vec16<T>::pack(q[g]);
    }
    __syncthreads(); /* q, kn and vn written */
    const int g = ln.lane >> 2, t4 = ln.lane & 3;
    unsigned qa[D / 16][2];
#pragma unroll
    for (int s = 0; s < D / 16; s++)
#pragma unroll
        for (int h = 0; h < 2; h++)
            qa[s][h] = g < G ? *reinterpret_cast<const unsigned *>(qs + g * D + 16 * s + 8 * h + 2 * t4) : 0u;

    MmaSoft<D> st;
    for (int t = ln.warp; t < r.ntile; t += AW) {
        cp_async_wait<MW - 1>();
        __syncwarp(); /* tile t landed for every lane's copies */
        T *sl = slot(t);
        const int pt = c0 + t * FT;
        /* the new position from kn, vn (written only by the CTA whose range holds it): the slot's copy may
           predate the append */
        if (pt <= pos && pos < min(pt + FT, c1)) {
            if (ln.lane < 2 * LP)
                reinterpret_cast<uint4 *>(sl + (ln.lane / LP) * FT * D + swz<D>(pos - pt, ln.lane % LP))[0] =
                    reinterpret_cast<const uint4 *>(ln.lane < LP ? kn : vn)[ln.lane % LP];
            __syncwarp();
        }
        mma_tile<T, D>(st, qa, (unsigned)__cvta_generic_to_shared(sl), pt, c1, ln.lane);
        __syncwarp(); /* the slot read by every lane: refill it */
        issue(t + MW * AW);
    }
    st.l += __shfl_xor_sync(0xffffffffu, st.l, 1);
    st.l += __shfl_xor_sync(0xffffffffu, st.l, 2);
    float *sm = reinterpret_cast<float *>(dr_mma_ring);
    __syncthreads(); /* every warp past its slots: the ring becomes the merge's */
    if (g < G) {
        float *acc = sm + (ln.warp * G + g) * D, *ml = sm + AW * G * D + (ln.warp * G + g) * 2;
#pragma unroll
        for (int n = 0; n < D / 8; n++)
            acc[8 * n + 2 * t4] = st.o[n][0], acc[8 * n + 2 * t4 + 1] = st.o[n][1];
        if (t4 == 0)
            ml[0] = st.m, ml[1] = st.l;
    }
    if (CL) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
        const ClusterInbox<D, G> ib(r.split); /* the cluster spans the grid's y: its rank is the split */
        cl::wait(); /* the start's phase: every rank's inbox exists */
        merge_warps<D, G>(sm, [&](int g, int d, float mx, float lt, float o) { ib.push(inbox, g, d, mx, lt, o); });
        cl::arrive_release(); /* the pushes, before the arrival */
        cl::wait();
        cluster_merge<T, D, G>(a, r, ib, inbox);
#else
        (void)inbox;
        __trap();
#endif
    } else {
        fused_finish<T, D, G>(a, r, sm);
    }
    step_end(a.c, sp0);
}

} // namespace

#endif
