/* hopper_stream.cuh — klab's Hopper weight stream: out = X W for M <= 16 tokens X against a weight W, the
 * memory-bound GEMM of decoding (matmul_h200's skinny shapes; a GEMV with up to 16 sequences). Built on
 * hopper_gemm.cuh's primitives (mbarriers, TMA, descriptors, wgmma); sm_90a only.
 *
 * Computed transposed, out^T = W^T X^T, on wgmma.mma_async m64nNTk16: the weight is wgmma's A operand (64
 * outputs x 16 of K a step), the tokens its B operand (NT = 8 or 16 in the N slot), so the tensor cores
 * see full 64-row tiles however few the tokens. Each CTA owns 64 outputs and a K range. One producer
 * thread streams the weight's tiles (64 outputs x 64 of K, 8 KB) and the tokens' (NT x 64 of K) through a
 * ring of STAGES stages with TMA, one instruction a tile: STAGES x 8 KB of weight are in flight from the
 * CTA's first cycles and no register holds a load (the register mainloops of matmul_h200_skinny.cu
 * measured latency-bound, ~2 KB a warp in flight and none during the MMAs). One consumer warpgroup issues
 * four wgmmas a stage and frees the stage before. K is split over the S CTAs of a cluster (1, S, 1),
 * summed over distributed shared memory into rank 0 in rank order (deterministic; no workspace, no
 * atomics, one launch), whose consumer threads hand the sums to the epilogue policy.
 * Measured (H200, 2026-11-22, docs/measurements/2026-11-22-h200-8.md): where a CTA streams a long K range
 * it runs at ~3.9 TB/s (decode's down projection, 112 K tiles a CTA: 29.98 against the register GEMV's
 * 42.30 us); at 32 MiB both it and cuBLAS spend a third of the kernel in fixed phases (launch, first
 * bytes, the cluster sum, the tail), and with 8-32 K tiles a CTA it loses to a register GEMV.
 *
 * ---- layouts (hs::Cfg<T, NT, W_MN, STAGES>) ----
 *   X  row-major M x K (K contiguous), rows ldx elements apart: K-major; rows past M read as zero (TMA)
 *   W  W_MN = true:  row-major K x N (N contiguous, what torch.matmul(X, W) stores): MN-major tiles, read
 *                    with wgmma's A transpose (16-bit types only, as wgmma allows)
 *      W_MN = false: row-major N x K (K contiguous, nn.Linear's weight): K-major tiles
 *   Both 16-bit (bf16, fp16); rows 16-byte aligned (ldx, ldw, K multiples of 8; W_MN: N too). Edges need
 *   no masking on the load side: TMA fills past N and K with zeros.
 *
 * ---- the epilogue policy ----
 * Any copyable struct (a kernel parameter) with
 *     template <int R> __device__ void operator()(const hs::Frag &f, const float (&acc)[R]) const;
 * called once by each of rank 0's 128 consumer threads with the cluster's sums, R = NT / 2. acc[i] is
 * out[f.token(i)][f.col(i)] (hs::Frag: a row of the transposed tile is an output column); tokens past M
 * and columns past N hold zeros that MUST NOT be stored (f.live(i, M, N)). hs::StoreEpilogue<T> writes out
 * as T. A policy that reads what an earlier kernel wrote, under PDL, waits for it (pdl_wait(), pdl.cuh).
 * Optional: `__device__ void begin() const`, called by thread 0 of every CTA (a consumer thread) once the
 * ring's barriers are set up, before the mainloop: a start hook (decode_replay's probe stamp). It may
 * wait on PDL; the producer thread's weight loads do not wait for it.
 *
 * ---- resident tokens ----
 * A policy may bring the tokens itself: with the hook
 *     template <int NT> __device__ void tokens(const hs::Tokens<NT> &tk, int k0, int k1) const;
 * the producer loads weights only, and the 128 consumer threads call tokens() once, before the mainloop,
 * to write every token row m < NT at every 8 columns k of the CTA's range [k0, k1) (whole tiles: past
 * K too) through tk.put(m, k, v): zeros past M and K (the weight tile's zeros past K would not cancel
 * a NaN). The CTA then holds all of its K range's token tiles (ceil(ktiles / splits) x NT x 128 bytes
 * beside the ring; launch refuses a range that does not fit). What it is for: tokens that are a function
 * of an earlier kernel's output (decode_replay's QKV projection normalises the residual stream, RMSNorm,
 * as it writes them), without a kernel between. The hook may wait on PDL (tokens(): after the wait);
 * the producer then never waits, and a named barrier 1 of the 128 consumer threads is the hook's to use.
 * With PDL the CTA triggers its dependents once the hook is done (its reads of earlier kernels' output
 * are), not after the mainloop: an epilogue that reads earlier output waits on PDL itself.
 *
 * ---- persistent (Cfg's PERSIST) ----
 * One split only: the grid is at most the CTAs the device holds at once, and each CTA streams tiles
 * blockIdx.x, + gridDim.x, ... through one ring (the producer runs ahead into the next tile while the
 * consumers hand a tile to the policy), resident tokens written once. For more tiles
 * than fit in one wave: 448 gated tiles of ~193 KB on 132 SMs took 3.4 waves, each CTA paying its start
 * (the first fill, the tokens) again. The policy is called once a tile (a policy that counts CTAs at its
 * end must count calls: decode's Gated only stamps).
 *
 * ---- gated tiles (Cfg's GATED) ----
 * For out[j] = act(W_gate x, W_up x) (SwiGLU's gate and up projections in one [2 n, K] weight, gate rows
 * first): a CTA's 64 weight rows are 32 outputs' gate and up rows, interleaved by 8 (one 4-D TMA box a
 * stage, make_gated_weight_map), so that the wgmma accumulator hands each consumer thread both
 * rows of its outputs: acc[i] the gate row and acc[i + 2] the up row of output Frag::gated_col(), token
 * Frag::token(i), for i with (i & 2) == 0. The launch's N is 2 n (ceil(2 n / 64) CTAs of 32 outputs).
 *
 * PREFETCH (Cfg's fifth parameter, default off): once the ring's first fill is issued, the producer asks
 * L2 for the rest of its weight tiles (cp.async.bulk.prefetch.tensor). Measured slower at every skinny
 * shape (17-28 against 14 us at 16 x 4096 x 4096): a tuning option, refuted.
 *
 * ---- PDL ----
 * With PDL (a launch attribute the caller sets, programmatic stream serialization) the producer issues
 * the first STAGES weight tiles before griddepcontrol.wait (the weights are no earlier kernel's output)
 * and the token tiles only after it; every thread triggers the dependents once its mainloop is done
 * (resident tokens: earlier, above).
 *
 * ---- host side ----
 *   hs::make_maps<T, NT, W_MN>(&tw, &tx, W, ldw, X, ldx, M, N, K, why, len);   // TMA maps
 *   (or make_weight_map / make_token_map one at a time: a token map serves every layer's weight)
 *   hs::launch<Cfg, Epi, PDL>(tw, tx, hs::problem(M, N, K), splits, epi, stream);   // grid (ceil(N/64), splits)
 *   (resident tokens: tx is not read; any map, e.g. tw again)
 */
#ifndef KLAB_HOPPER_STREAM_CUH
#define KLAB_HOPPER_STREAM_CUH

#include <utility>

#include "cuda/cluster_barrier.cuh"
#include "cuda/launch_config.cuh"
#include "cuda/pdl.cuh"
#include "hopper/hopper_gemm.cuh"

namespace hs {

constexpr int COLS = 64;      /* outputs a CTA: one m64 wgmma block */
constexpr int BK = 64;        /* K a stage: one 128-byte swizzle row of 16-bit elements */
constexpr int MAX_SPLITS = 8; /* the portable cluster size */
constexpr int THREADS = 160;  /* one consumer warpgroup, one producer warp */
constexpr int SCRATCH = 256;  /* bytes of shared memory for a resident-token hook (Tokens::scratch) */

template <class T_, int NT_, bool W_MN_, int STAGES_, bool PREFETCH_ = false, bool GATED_ = false,
          bool PERSIST_ = false>
struct Cfg {
    typedef T_ T;
    static constexpr int NT = NT_, STAGES = STAGES_, R = NT_ / 2;
    static constexpr bool W_MN = W_MN_;
    static constexpr bool PREFETCH = PREFETCH_; /* see the header: refuted, a tuning option */
    static constexpr bool GATED = GATED_;       /* see "gated tiles" in the header */
    static constexpr bool PERSIST = PERSIST_;   /* see "persistent" in the header */
    static_assert(!GATED || !W_MN, "gated tiles are K-major (nn.Linear's [2 n, K])");
    static constexpr int W_BYTES = COLS * BK * 2, X_BYTES = NT * BK * 2;
    static constexpr int INBOX_SPLIT = R * 128 * 4; /* one rank's sums: R floats a consumer thread */
    static_assert(sizeof(T) == 2, "16-bit weights and tokens (wgmma transposes 16-bit operands only)");
    static_assert(NT == 8 || NT == 16, "8 or 16 tokens in wgmma's N slot");
};

/* A CTA's shared memory: the weight ring, the token tiles (a ring of STAGES beside the weights', or, with
   resident tokens, all kr tiles of the CTA's K range), the ring's 2 x STAGES barriers, then the inbox:
   rank 0's copy of ranks 1..S-1's sums. kr: ceil(ktiles / splits), read only with resident tokens. */
template <class C, bool RESIDENT> struct Layout {
    int kr;
    __host__ __device__ constexpr int tokens() const { return (RESIDENT ? kr : C::STAGES) * C::X_BYTES; }
    __host__ __device__ constexpr int bars() const { return C::STAGES * C::W_BYTES + tokens(); }
    /* resident tokens: the hook's scratch (Tokens::scratch) after the barriers */
    __host__ __device__ constexpr int scratch() const { return bars() + 16 * C::STAGES; }
    __host__ __device__ constexpr int inbox() const { return scratch() + (RESIDENT ? SCRATCH : 0); }
    /* bytes to ask for: 1024 of slack for the ring's alignment (the 128-byte swizzle's 1024-byte atoms) */
    __host__ __device__ constexpr int bytes(int splits) const { return 1024 + inbox() + (splits - 1) * C::INBOX_SPLIT; }
};
constexpr int MAX_SMEM = 227 * 1024; /* what a block may have */

/* The work: out (M x N) = X (M x K) W. ktiles = ceil(K / BK), split over the cluster's ranks. */
struct Problem {
    int M, N, K, ktiles;
};
inline Problem problem(int M, int N, int K) { return Problem{M, N, K, (K + BK - 1) / BK}; }

/* Where a consumer thread's acc[i] lands: output column col(i) (a row of the transposed tile) of token
   token(i), the wgmma accumulator map with the tile's rows as outputs. */
struct Frag {
    int n0, warp, lane;
    __device__ int col(int i) const { return n0 + 16 * warp + (lane >> 2) + 8 * ((i >> 1) & 1); }
    /* gated tiles: the output whose gate row is acc[i] and up row acc[i + 2], for i with (i & 2) == 0 */
    __device__ int gated_col() const { return n0 / 2 + 8 * warp + (lane >> 2); }
    __device__ int token(int i) const { return 8 * (i >> 2) + 2 * (lane & 3) + (i & 1); }
    __device__ bool live(int i, int M, int N) const { return token(i) < M && col(i) < N; }
};

/* Ask L2 for the box at (c0 inner, c1 outer) of map: no shared memory, no barrier, nothing to wait for. */
__device__ __forceinline__ void prefetch_l2(const CUtensorMap *map, int c0, int c1)
{
#if HG_SM90A
    asm volatile("cp.async.bulk.prefetch.tensor.2d.L2.global.tile [%0, {%1, %2}];" ::"l"((uint64_t)map), "r"(c0),
                 "r"(c1)
                 : "memory");
#else
    (void)map, (void)c0, (void)c1;
#endif
}

/* out[token][col] as T, rows ldo elements apart. */
template <class T> struct StoreEpilogue {
    T *out;
    long ldo;
    int M, N;
    template <int R> __device__ void operator()(const Frag &f, const float (&acc)[R]) const
    {
#pragma unroll
        for (int i = 0; i < R; i++)
            if (f.live(i, M, N))
                out[(size_t)f.token(i) * ldo + f.col(i)] = hg::hg_cvt<T>(acc[i]);
    }
};

/* Whether an epilogue policy has the optional start hook. */
template <class E, class = void> struct has_begin {
    static constexpr bool value = false;
};
template <class E> struct has_begin<E, std::void_t<decltype(std::declval<const E &>().begin())>> {
    static constexpr bool value = true;
};

/* A CTA's resident token tiles as its policy writes them (see "resident tokens" in the header): put()
   stores 8 elements of token m (< NT) at column k (a multiple of 8 in the CTA's range [k0, k1)) where the
   TMA token map would have put them: tile (k - k0) / BK, row m, its 16-byte chunk XORed with m % 8 (the
   128-byte swizzle of the 1024-byte atoms the tiles are aligned to). scratch: SCRATCH bytes of the CTA's
   shared memory the hook may use as it likes (a kernel with static shared memory could not ask for all
   of the 227 KB the resident tiles may need). */
template <int NT> struct Tokens {
    unsigned char *base;
    int k0;
    float *scratch;
    __device__ __forceinline__ void put(int m, int k, uint4 v) const
    {
        const int rel = k - k0, chunk = (rel % BK) / 8;
        *reinterpret_cast<uint4 *>(base + (rel / BK) * (NT * BK * 2) + m * 128 + ((chunk ^ (m & 7)) << 4)) = v;
    }
};

/* Whether an epilogue policy brings the tokens itself (the tokens() hook: resident tokens). */
template <class E, class = void> struct has_tokens {
    static constexpr bool value = false;
};
template <class E>
struct has_tokens<E, std::void_t<decltype(std::declval<const E &>().tokens(std::declval<const Tokens<8> &>(), 0, 0))>> {
    static constexpr bool value = true;
};


template <class C, class Epi, bool PDL>
__global__ void __launch_bounds__(THREADS, 1)
    stream_kernel(const __grid_constant__ CUtensorMap tw, const __grid_constant__ CUtensorMap tx, const Problem p, Epi epi)
{
#if HG_SM90A
    constexpr bool RES = has_tokens<Epi>::value; /* resident tokens: the policy writes them, no token loads */
    extern __shared__ unsigned char hs_smem_raw[];
    /* the cluster is (1, S, 1) over a grid S high: a CTA's rank in it is its blockIdx.y */
    const int S = (int)gridDim.y, rank = (int)blockIdx.y, tiles = (p.N + COLS - 1) / COLS;
    int n0 = (int)blockIdx.x * COLS; /* the tile's first output: tiles blockIdx.x, + gridDim.x, ... (persistent) */
    const Layout<C, RES> L{(p.ktiles + S - 1) / S};
    unsigned char *base = (unsigned char *)(((uintptr_t)hs_smem_raw + 1023) & ~(uintptr_t)1023);
    uint64_t *full = (uint64_t *)(base + L.bars()), *empty = full + C::STAGES;
    float *inbox = (float *)(base + L.inbox());
    unsigned char *const tok = base + (size_t)C::STAGES * C::W_BYTES;
    /* a stage's bytes: its weight tile, and its token tile unless the tokens are resident */
    constexpr uint32_t STAGE_BYTES = C::W_BYTES + (RES ? 0 : C::X_BYTES);
    auto wtile = [&](int s) { return base + (size_t)s * C::W_BYTES; };
    auto xtile = [&](int s) { return tok + (size_t)s * C::X_BYTES; }; /* resident: s is kt - kb */
    const int kb = (int)((long)rank * p.ktiles / S), ke = (int)((long)(rank + 1) * p.ktiles / S);
    const int warp = (int)threadIdx.x / 32, t = (int)threadIdx.x % 128;
    if (threadIdx.x == 0) {
        for (int s = 0; s < C::STAGES; s++) {
            hg::mbar_init(&full[s], 1);
            hg::mbar_init(&empty[s], 1);
        }
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    if (threadIdx.x == 128) {
        asm volatile("prefetch.tensormap [%0];" ::"l"((uint64_t)&tw) : "memory");
        if (!RES)
            asm volatile("prefetch.tensormap [%0];" ::"l"((uint64_t)&tx) : "memory");
    }
    __syncthreads();
    if (S > 1)
        cl::arrive_relaxed(); /* phase 1: this CTA has started (waited on before any DSMEM store) */
    if constexpr (has_begin<Epi>::value)
        if (threadIdx.x == 0)
            epi.begin();

    float acc[C::R];
#pragma unroll
    for (int i = 0; i < C::R; i++)
        acc[i] = 0.f;
    if (warp == 4) {
        if (threadIdx.x == 128) {
            int stage = 0, phase = 0;
            auto load_w = [&](int kt, int s) {
                /* the braces are needed: without them nvcc 13.0 dropped the else branch, the plain weight
                   load, from every kernel (SASS: one UTMALDG where two belong) */
                if constexpr (C::GATED) {
                    /* the map's (K, row in group, gate/up, group of 8 outputs): 4 groups from n0 / 16 */
                    hg::tma_load_4d(wtile(s), &tw, &full[s], kt * BK, 0, 0, n0 / 16);
                } else {
                    hg::tma_load(wtile(s), &tw, &full[s], C::W_MN ? n0 : kt * BK, C::W_MN ? kt * BK : n0);
                }
            };
            auto load_x = [&](int kt, int s) { hg::tma_load(xtile(s), &tx, &full[s], kt * BK, 0); };
            /* PREFETCH: once the ring's first fill is issued, L2 is asked for the rest of the K range */
            auto prefetch_rest = [&](int from) {
                if constexpr (C::PREFETCH)
                    for (int k = from; k < ke; k++)
                        prefetch_l2(&tw, C::W_MN ? n0 : k * BK, C::W_MN ? k * BK : n0);
            };
            /* a CTA a tile: one pass; PERSIST: tiles blockIdx.x, + gridDim.x, ... (the two forms the H200
               timed, each SASS-identical to its measured build) */
            for (int tile = (int)blockIdx.x; C::PERSIST ? tile < tiles : tile == (int)blockIdx.x;
                 tile += C::PERSIST ? (int)gridDim.x : 1) {
                n0 = tile * COLS;
                int kt = kb;
                if (PDL && !RES && tile == (int)blockIdx.x) {
                    /* the first ring's weights before the previous kernel ends; its tokens after (resident
                       tokens are the consumers': this thread never waits) */
                    const int first = ke - kb < C::STAGES ? ke - kb : C::STAGES;
                    for (int s = 0; s < first; s++) {
                        hg::mbar_expect_tx(&full[s], STAGE_BYTES);
                        load_w(kb + s, s);
                    }
                    pdl_wait();
                    for (int s = 0; s < first; s++)
                        load_x(kb + s, s);
                    kt = kb + first;
                    prefetch_rest(kt);
                    if (first == C::STAGES)
                        phase = 1;
                    else
                        stage = first;
                }
                for (; kt < ke; kt++) {
                    hg::mbar_wait(&empty[stage], phase ^ 1);
                    hg::mbar_expect_tx(&full[stage], STAGE_BYTES);
                    load_w(kt, stage);
                    if (!RES)
                        load_x(kt, stage);
                    if (!PDL && kt == kb + C::STAGES - 1)
                        prefetch_rest(kt + 1);
                    if (++stage == C::STAGES)
                        stage = 0, phase ^= 1;
                }
            }
        }
        __syncwarp();
    } else {
        /* bytes one k16 step moves the descriptors by: 16 rows of 128 bytes (MN-major: K is the row) or
           32 bytes along a 128-byte row (K-major) */
        constexpr uint32_t W_STEP = C::W_MN ? 16 * 128 : 32, W_LBO = C::W_MN ? C::W_BYTES : 16;
        int stage = 0, phase = 0, prev = -1;
        if constexpr (RES) {
            /* the policy's tokens, then a proxy fence: wgmma reads shared memory through the async proxy */
            epi.tokens(Tokens<C::NT>{tok, kb * BK, (float *)(base + L.scratch())}, kb * BK, ke * BK);
            asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
            asm volatile("bar.sync 1, 128;" ::: "memory");
            /* the CTA's reads of earlier kernels' output are done: the dependents may land (on the SMs
               this grid leaves free), as the register GEMVs let them after their prologue */
            if constexpr (PDL)
                pdl_trigger();
        }
        for (int tile = (int)blockIdx.x;;) {
            for (int kt = kb; kt < ke; kt++) {
                hg::mbar_wait(&full[stage], phase);
                const uint32_t a0 = hg::smem_u32(wtile(stage)), b0 = hg::smem_u32(xtile(RES ? kt - kb : stage));
                hg::fence_regs(acc);
                hg::wgmma_fence();
#pragma unroll
                for (int kk = 0; kk < BK / 16; kk++)
                    hg::Wgmma<typename C::T, C::NT>::template run<0, C::W_MN ? 1 : 0>(
                        acc, hg::smem_desc(a0 + kk * W_STEP, W_LBO, 1024), hg::smem_desc(b0 + kk * 32, 16, 1024));
                hg::wgmma_commit();
                hg::fence_regs(acc);
                /* one group in flight: the previous stage's wgmmas are done, so it is free */
                hg::wgmma_wait<1>();
                if (prev >= 0 && t == 0)
                    hg::mbar_arrive(&empty[prev]);
                prev = stage;
                if (++stage == C::STAGES)
                    stage = 0, phase ^= 1;
            }
            hg::wgmma_wait<0>();
            hg::fence_regs(acc);
            /* a CTA a tile: the code the H200 timed before PERSIST (2026-11-22-h200-14, call 9: the loop
               below cost small-16l's 32 O and down kernels 10.8 us a step, 778 against 789) */
            if constexpr (!C::PERSIST)
                break;
            /* the tile's last stage is free too */
            if (prev >= 0 && t == 0)
                hg::mbar_arrive(&empty[prev]);
            prev = -1;
            /* every tile but the last handed to the policy here, the last below */
            if (tile + (int)gridDim.x >= tiles)
                break;
            epi(Frag{tile * COLS, t / 32, t % 32}, acc);
            tile += (int)gridDim.x;
            n0 = tile * COLS;
#pragma unroll
            for (int i = 0; i < C::R; i++)
                acc[i] = 0.f;
        }
    }
    if constexpr (PDL)
        pdl_trigger();

    if (S > 1) {
        /* phase 1 done: every CTA of the cluster has started, so rank 0's shared memory exists; its inbox
           is apart from its ring */
        cl::wait();
        if (warp < 4 && rank > 0) {
            float *dst = cl::rank0(inbox + (size_t)(rank - 1) * C::R * 128 + t);
#pragma unroll
            for (int i = 0; i < C::R; i++)
                dst[i * 128] = acc[i];
        }
        /* phase 2: the release orders each rank's DSMEM stores before its arrival, rank 0's acquire-wait
           sees them all; the other ranks leave at once (nothing reads their shared memory) */
        cl::arrive_release();
        if (rank != 0)
            return;
        cl::wait();
        if (warp < 4)
            for (int r = 1; r < S; r++)
#pragma unroll
                for (int i = 0; i < C::R; i++)
                    acc[i] += inbox[((size_t)(r - 1) * C::R + i) * 128 + t];
    }
    if (warp < 4)
        epi(Frag{n0, t / 32, t % 32}, acc);
#else
    (void)tw, (void)tx, (void)p, (void)epi;
    __trap();
#endif
}

/* ---- host side ---- */
/* W (W_MN: K x N, else N x K; rows ldw elements apart) as the tensor map whose box is the kernel's weight
   tile. Returns 0, or -1 with the reason. */
template <class T, bool W_MN>
inline int make_weight_map(CUtensorMap *tw, const void *W, long ldw, int N, int K, char *why, size_t whylen)
{
    const hopper_tma_elem e = hg::tma_elem<T>();
    return W_MN ? hopper_tma_2d(tw, W, e, (uint64_t)N, (uint64_t)K, (uint64_t)ldw * 2, COLS, BK, 128, why, whylen)
                : hopper_tma_2d(tw, W, e, (uint64_t)K, (uint64_t)N, (uint64_t)ldw * 2, BK, COLS, 128, why, whylen);
}

/* W (2 nout x K, the nout gate rows first, then the up rows; rows ldw elements apart) as gated tiles' map:
   a 4-D view (K; row in a group of 8 outputs; gate or up, nout rows apart; group) whose box (64, 8, 2, 4)
   is a tile: groups of 8 gate rows then their 8 up rows. nout a multiple of 8; groups past nout / 8 read
   as zero. The launch's N is 2 nout. */
template <class T>
inline int make_gated_weight_map(CUtensorMap *tw, const void *W, long ldw, int nout, int K, char *why, size_t whylen)
{
    if (nout % 8) {
        snprintf(why, whylen, "gated weight stream: %d outputs, a multiple of 8 needed", nout);
        return -1;
    }
    const uint64_t row = (uint64_t)ldw * 2;
    const uint64_t dims[4] = {(uint64_t)K, 8, 2, (uint64_t)nout / 8}, strides[3] = {row, row * nout, row * 8};
    const uint32_t box[4] = {BK, 8, 2, COLS / 16};
    return hopper_tma_nd(tw, W, hg::tma_elem<T>(), 4, dims, strides, box, 128, why, whylen);
}

/* X (M x K, rows ldx elements apart) as the tensor map whose box is the kernel's NT-token tile. */
template <class T, int NT>
inline int make_token_map(CUtensorMap *tx, const void *X, long ldx, int M, int K, char *why, size_t whylen)
{
    return hopper_tma_2d(tx, X, hg::tma_elem<T>(), (uint64_t)K, (uint64_t)M, (uint64_t)ldx * 2, BK, NT, 128, why,
                         whylen);
}

/* Both maps. Returns 0, or -1 with the reason. */
template <class T, int NT, bool W_MN>
inline int make_maps(CUtensorMap *tw, CUtensorMap *tx, const void *W, long ldw, const void *X, long ldx, int M, int N,
                     int K, char *why, size_t whylen)
{
    return make_weight_map<T, W_MN>(tw, W, ldw, N, K, why, whylen) || make_token_map<T, NT>(tx, X, ldx, M, K, why, whylen)
               ? -1
               : 0;
}

/* CTAs of `bytes` of shared memory the device holds at once (occupancy times SMs): the persistent grid. Asked
   once an instantiation and size (a plugin runs in one worker thread). */
template <auto Kernel> inline cudaError_t resident_ctas(int bytes, int *ctas)
{
    static int for_bytes = -1, n = 0;
    if (for_bytes != bytes) {
        int dev = 0, sms = 0, per = 0;
        cudaError_t e = cudaGetDevice(&dev);
        if (e == cudaSuccess)
            e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
        if (e == cudaSuccess)
            e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, Kernel, THREADS, (size_t)bytes);
        if (e != cudaSuccess)
            return e;
        for_bytes = bytes, n = per * sms;
    }
    *ctas = n;
    return cudaSuccess;
}

/* Launches grid (ceil(N / 64), splits), clusters (1, splits, 1) past one split; PDL: with programmatic
   stream serialization and the kernel's PDL prologue (a template parameter, so a caller that never asks
   for it does not build that kernel). splits 1..MAX_SPLITS, at most p.ktiles. Cfg's PERSIST (one split
   only): at most as many CTAs as the device holds at once, each streaming tiles blockIdx.x, + gridDim.x,
   ... through one ring (see "persistent" in the header). */
template <class C, class Epi, bool PDL = false>
inline cudaError_t launch(const CUtensorMap &tw, const CUtensorMap &tx, const Problem &p, int splits, const Epi &epi,
                          cudaStream_t stream)
{
    constexpr bool RES = has_tokens<Epi>::value;
    static_assert(RES || Layout<C, false>{0}.bytes(MAX_SPLITS) <= MAX_SMEM, "past the 227 KB a block may have");
    if (splits < 1 || splits > MAX_SPLITS || splits > p.ktiles)
        return cudaErrorInvalidValue;
    /* the most a launch may ask: the ring's largest layout, or with resident tokens all that the kernel's
       static shared memory leaves (the K range a CTA holds must fit beside the ring) */
    static int cap = RES ? -1 : Layout<C, false>{0}.bytes(MAX_SPLITS);
    if (cap < 0) {
        cudaFuncAttributes fa;
        const cudaError_t e = cudaFuncGetAttributes(&fa, stream_kernel<C, Epi, PDL>);
        if (e != cudaSuccess)
            return e;
        cap = MAX_SMEM - (int)fa.sharedSizeBytes;
    }
    const int bytes = Layout<C, RES>{(p.ktiles + splits - 1) / splits}.bytes(splits);
    if (bytes > cap)
        return cudaErrorInvalidValue;
    const cudaError_t e = func_attr_once<stream_kernel<C, Epi, PDL>, cudaFuncAttributeMaxDynamicSharedMemorySize>(cap);
    if (e != cudaSuccess)
        return e;
    int ctas = (p.N + COLS - 1) / COLS; /* a CTA a tile, or PERSIST: at most what the device holds at once */
    if constexpr (C::PERSIST) {
        int most = 0;
        const cudaError_t eo = resident_ctas<stream_kernel<C, Epi, PDL>>(bytes, &most);
        if (eo != cudaSuccess)
            return eo;
        if (splits != 1 || most < 1)
            return cudaErrorInvalidValue;
        ctas = ctas < most ? ctas : most;
    }
    LaunchConfig lc(dim3((unsigned)ctas, (unsigned)splits), dim3(THREADS), (size_t)bytes, stream);
    if (splits > 1)
        lc.cluster(dim3(1, (unsigned)splits, 1));
    lc.pdl(PDL);
    return cudaLaunchKernelEx(&lc.cfg, stream_kernel<C, Epi, PDL>, tw, tx, p, epi);
}

} // namespace hs

#endif
