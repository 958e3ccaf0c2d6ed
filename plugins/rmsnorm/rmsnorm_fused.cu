/* Fused RMSNorm: the row-kernel skeleton (plugins/lib/row/row_kernel.cuh) with the RMSNorm op
 * (plugins/lib/row/rms_op.cuh). The skeleton gives every shape one read and one write: short rows
 * packed several a block (or a warp), long rows split across a thread-block cluster, rows longer than
 * a cluster holds streamed twice, ragged rows through masked 16-byte vectors. */
#include <cuda_runtime.h>

#include "klab/cuda.h"
#include "rmsnorm.h"
#include "row/rms_op.cuh"

namespace {

template <typename T, bool RESID>
int launch(const void *x, const void *r, const void *w, void *y, void *h, size_t rows, size_t cols, float eps,
           const row_plan *p, cudaStream_t s)
{
    RmsOp<T, RESID> op;
    op.init((const T *)x, (const T *)r, (const T *)w, (T *)y, (T *)h, (int64_t)rows, (int64_t)cols, eps);
    return (int)rowk::launch(op, *p, (int64_t)rows, (int64_t)cols, s);
}

} // namespace

extern "C" int rmsnorm_fused_launch(klab_dtype d, const void *x, const void *r, const void *w, void *y, void *h,
                                    size_t rows, size_t cols, float eps, const row_plan *p, klab_stream s)
{
    KLAB_DISPATCH_FLOAT(d, T, {
        return r ? launch<T, true>(x, r, w, y, h, rows, cols, eps, p, s)
                 : launch<T, false>(x, r, w, y, h, rows, cols, eps, p, s);
    })
    return (int)cudaErrorInvalidValue;
}
