/* Fused RMSNorm + RoPE: the row-kernel skeleton with the RMSNorm op (plugins/lib/row/rms_op.cuh)
 * extended by the rotation in its epilogue. A token's row is held on chip in one block (cluster 1,
 * stream 0: the plan's limits), so the normalised head is in registers when it is rotated: one read of
 * x, one write of y, no intermediate.
 * The half layout pairs element i with i + head_dim/2, a vector held by another lane: the plan keeps
 * whole heads in one thread group (tpr a multiple of the vectors a head spans), so the partner of the
 * vector in lane l is in lane l ^ (head vectors / 2) of the same slot, and a shuffle of the normalised
 * floats brings it over. The skeleton calls the epilogue for every slot of every thread, so all 32 lanes
 * reach the shuffle. */
#include <cuda_runtime.h>

#include "klab/cuda.h"
#include "rmsnorm_rope.h"
#include "row/rope_math.cuh"
#include "row/rms_op.cuh"

namespace {

template <typename T, bool HALF> struct RopeOp : RmsOp<T, false, false> {
    typedef RmsOp<T, false, false> Rms;
    static constexpr bool STREAMS = false;
    static constexpr bool RING = false; /* its limits never offer ring plans: no ring kernel compiled */
    static constexpr int PER = Rms::PER;

    const int32_t *pos;
    const float *cos_t, *sin_t;
    int head_dim, xor_lanes; /* xor_lanes: head vectors / 2, the lane distance of a half-layout partner */
    const float *cos_r, *sin_r;

    __device__ __forceinline__ void row_begin(const rowk::RowSpan &s, bool live)
    {
        Rms::row_begin(s, live);
        const int64_t p = live ? pos[s.row] : 0;
        cos_r = cos_t + p * (head_dim / 2);
        sin_r = sin_t + p * (head_dim / 2);
    }

    __device__ __forceinline__ void epilogue(uint4 raw, const rowk::Slot &sl) const
    {
        float f[PER], p[PER];
#pragma unroll
        for (int j = 0; j < PER; j++)
            f[j] = 0.f;
        if (!sl.empty())
            this->normalize(raw, sl, f);
        if (HALF) {
#pragma unroll
            for (int j = 0; j < PER; j++)
                p[j] = __shfl_xor_sync(0xffffffffu, f[j], xor_lanes);
        }
        if (sl.empty())
            return;
        rope_rotate<PER, HALF>(f, p, cos_r, sin_r, (sl.i * PER) & (head_dim - 1), head_dim / 2);
        rowk::store_vec<T>(this->yr, sl, vec16<T>::pack(f));
    }
};

template <typename T, bool HALF>
int launch(const rope_geom *g, const void *x, const void *w, const int32_t *pos, const float *cos_t,
           const float *sin_t, void *y, float eps, const row_plan *p, cudaStream_t s)
{
    RopeOp<T, HALF> op;
    op.init((const T *)x, NULL, (const T *)w, (T *)y, NULL, (int64_t)g->tokens, (int64_t)g->hidden, eps);
    op.pos = pos, op.cos_t = cos_t, op.sin_t = sin_t;
    op.head_dim = (int)g->head_dim;
    op.xor_lanes = (int)(g->head_dim * sizeof(T) / 32);
    op.cos_r = op.sin_r = NULL;
    return (int)rowk::launch(op, *p, (int64_t)g->tokens, (int64_t)g->hidden, s);
}

} // namespace

extern "C" int rmsnorm_rope_fused_launch(klab_dtype d, const rope_geom *g, const void *x, const void *w,
                                         const int32_t *pos, const float *cos_t, const float *sin_t, void *y,
                                         float eps, const row_plan *p, klab_stream s)
{
    KLAB_DISPATCH_FLOAT(d, T, {
        return g->half ? launch<T, true>(g, x, w, pos, cos_t, sin_t, y, eps, p, s)
                       : launch<T, false>(g, x, w, pos, cos_t, sin_t, y, eps, p, s);
    })
    return (int)cudaErrorInvalidValue;
}
