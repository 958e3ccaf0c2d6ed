/* RMSNorm as a row-kernel op (row_kernel.cuh): y = x / sqrt(mean(x^2) + eps) * w, and with RESID the
 * residual-add form models run between layers, h = x + r (written out), y = rmsnorm(h) * w.
 * Shared by rmsnorm.so and rmsnorm_rope.so (whose op extends this one with the rotation).
 *
 *   load      x (and r: h = x + r rounded once to the dtype, stored, and kept: y normalises the h the
 *             next layer reads, as vLLM's fused_add_rms_norm does)
 *   partial   the thread's sum of squares in float (pad elements are 0)
 *   finish    rs = rsqrt(sum / N + eps)
 *   epilogue  y = x * rs * w, w loaded only now (it holds no registers across the reduction: the
 *             `w_late` choice of the first fused kernel, which kept bf16 at fp16's speed); one 16-byte
 *             load of w when the row starts on a vector boundary, else the row's elements of it.
 *             With few rows (decode: 1x4096) w is cold, and loading it only now put a second DRAM
 *             round trip after the reduction: load then prefetches w's vector into L2 (early_w),
 *             which costs no registers. With many rows the first wave's blocks all find w cold
 *             after their reductions in the same way, once the L2 is flushed (a model's previous
 *             layer has evicted it too): row 0 prefetches it for all of them, the L2 being shared.
 *             init() sets every field, for every plugin that uses the op. */
#ifndef RMS_OP_CUH
#define RMS_OP_CUH

#include "row/row_kernel.cuh"

/* EARLY_W false: no prefetch of w in load (RoPE's op: its fp32 form spilled 8 bytes with it) */
template <typename T, bool RESID, bool EARLY_W = true> struct RmsOp {
    typedef T elem_t;
    typedef float acc_t;
    static constexpr bool STREAMS = true;
    static constexpr bool ROW_OUT = true;
    static constexpr bool RING = !RESID; /* a ring plan copies one tensor's rows: x, not x and r */
    static constexpr int PER = 16 / sizeof(T);

    const T *x, *r, *w; /* r: RESID only */
    T *y, *h;           /* h: RESID only */
    int64_t cols;
    float eps;
    /* per row: the windows of x, r, y, h (pointers to the row's first vector), the row's first
       element's place in it, and, after finish, 1 / rms */
    const T *xr, *rr;
    T *yr, *hr;
    int head;
    const uint4 *wt; /* tile plans: w in shifted copies, copy h at wt + h * wt_stride (row_tile.cuh) */
    int wt_stride;
    int early_w; /* every row prefetches w into L2 in load (few rows); else row 0 alone does */
    bool pw;     /* this row prefetches */
    float rs;

    /* Every field, for rows x cols (r, h: RESID only); on the device too, for kernels that use only
       partial, finish and normalize (decode_replay's fused-norm GEMV: x, y NULL). */
    __host__ __device__ void init(const T *x_, const T *r_, const T *w_, T *y_, T *h_, int64_t rows, int64_t cols_, float eps_)
    {
        x = x_, r = r_, w = w_, y = y_, h = h_;
        cols = cols_;
        eps = eps_;
        xr = rr = NULL, yr = hr = NULL;
        head = 0;
        wt = NULL, wt_stride = 0;
        rs = 0.f;
        early_w = rows < ROW_PLAN_SMS;
        pw = false;
    }

    __device__ __forceinline__ void row_begin(const rowk::RowSpan &s, bool)
    {
        const int64_t off = s.v0 * PER;
        xr = x + off, yr = y + off;
        if (RESID)
            rr = r + off, hr = h + off;
        head = s.head;
        pw = early_w || s.row == 0;
    }

    __device__ __forceinline__ uint4 load(const rowk::Slot &sl) const
    {
        if (EARLY_W && pw && head == 0 && !sl.empty()) /* w's vector of the same columns (aligned rows) */
            asm volatile("prefetch.global.L2 [%0];" ::"l"(reinterpret_cast<const uint4 *>(w) + sl.i));
        uint4 a = rowk::load_vec<T>(xr, sl, 0.f);
        if (RESID) { /* never hinted: the residual form does not run the wide kernels (RING is false) */
            const uint4 b = rowk::load_vec<T>(rr, sl, 0.f);
            float fa[PER], fb[PER];
            vec16<T>::unpack(a, fa);
            vec16<T>::unpack(b, fb);
#pragma unroll
            for (int j = 0; j < PER; j++)
                fa[j] += fb[j];
            a = vec16<T>::pack(fa);
            if (!sl.empty())
                rowk::store_vec<T>(hr, sl, a);
        }
        return a;
    }

    __device__ __forceinline__ const T *ring_in() const { return x; }
    __device__ __forceinline__ float pad() const { return 0.f; }
    __device__ __forceinline__ T *&rows_out() { return y; }
    __device__ __forceinline__ const T *columns() const { return w; }
    __device__ __forceinline__ void tile_columns(const uint4 *copies, int stride) { wt = copies, wt_stride = stride; }

    /* pass 2 of a streaming plan: h is already written (by this thread: read it back, not x and r) */
    __device__ __forceinline__ uint4 reload(const rowk::Slot &sl) const
    {
        return RESID ? rowk::load_vec<T, false>(hr, sl, 0.f) : rowk::load_vec<T>(xr, sl, 0.f);
    }

    template <int V> __device__ __forceinline__ float partial(const uint4 (&raw)[V]) const
    {
        float ss = 0.f;
#pragma unroll
        for (int k = 0; k < V; k++) {
            float f[PER];
            vec16<T>::unpack(raw[k], f);
#pragma unroll
            for (int j = 0; j < PER; j++)
                ss = fmaf(f[j], f[j], ss);
        }
        return ss;
    }
    __device__ __forceinline__ float identity() const { return 0.f; }
    __device__ __forceinline__ float merge(float a, float b) const { return a + b; }
    __device__ __forceinline__ void finish(float total, int64_t, bool) { rs = rsqrtf(total / (float)cols + eps); }

    /* x * rs * w in float for vector sl of the row */
    __device__ __forceinline__ void normalize(uint4 raw, const rowk::Slot &sl, float *f) const
    {
        vec16<T>::unpack(raw, f);
        float g[PER];
        if (head == 0 && sl.full(PER)) {
            /* a streaming plan's second pass (sl.hint set): w, read again by every row, kept in L1 beside
               the part; the on-chip plans' plain load is the measured one */
            const uint4 *wv = reinterpret_cast<const uint4 *>(w) + sl.i;
            vec16<T>::unpack(sl.hint != rowk::HINT_NONE ? rowk::ldg_hint<rowk::HINT_KEEP>(wv) : __ldg(wv), g);
        } else if (wt) { /* a tile plan's row: its gains one vector of the copy shifted by head */
            vec16<T>::unpack(wt[head * wt_stride + sl.i], g);
        } else {
            const T *wc = w + (sl.i * PER - head); /* column of element 0 of this vector */
#pragma unroll
            for (int j = 0; j < PER; j++)
                g[j] = j >= sl.lo && j < sl.hi ? to_f(wc[j]) : 0.f;
        }
        scale(f, g);
    }

    /* f = f * rs * g: x's elements normalised and scaled by the gain's (both unpacked to float) */
    __device__ __forceinline__ void scale(float *f, const float *g) const
    {
#pragma unroll
        for (int j = 0; j < PER; j++)
            f[j] = f[j] * rs * g[j];
    }

    __device__ __forceinline__ void epilogue(uint4 raw, const rowk::Slot &sl) const
    {
        if (sl.empty())
            return;
        float f[PER];
        normalize(raw, sl, f);
        rowk::store_vec<T>(yr, sl, vec16<T>::pack(f));
    }
};

/* fp16 and fp32 RMSNorm's aligned on-chip kernel of 4 vectors a thread: two blocks of 1024 an SM
   (row_kernel.cuh's four_vector_blocks; row_limits_fit4 offers the plans that count on it) */
namespace rowk {
template <bool E> struct four_vector_blocks<RmsOp<float, false, E>> {
    static constexpr int value = 2;
};
template <bool E> struct four_vector_blocks<RmsOp<__half, false, E>> {
    static constexpr int value = 2;
};
/* w staged in shifted copies by the tile plan (row_tile.cuh) */
template <typename T, bool E> struct tile_columns<RmsOp<T, false, E>> {
    static constexpr bool value = true;
};
/* RMSNorm's on-chip epilogue in whole rows (row_kernel.cuh's whole_epilogue): bf16's always, fp16's
   where the grid is small (row_plan_few_threads); fp32's never: on small grids it moved 0.95-1.02x
   (128x4096 0.952x, 16x5120 0.968x, 8x4096 1.019x; H200, docs/measurements/2026-11-23-h200-21.md
   section 3) */
template <bool E> struct whole_epilogue<RmsOp<__half, false, E>> {
    static constexpr int value = WHOLE_FEW;
};
template <bool E> struct whole_epilogue<RmsOp<__nv_bfloat16, false, E>> {
    static constexpr int value = WHOLE_ALWAYS;
};
} // namespace rowk

#endif
