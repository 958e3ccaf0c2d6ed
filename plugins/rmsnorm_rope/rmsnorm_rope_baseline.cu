/* RMSNorm + RoPE in two kernels, as a framework runs them: the skeleton's RMSNorm writes t (the plan
 * rmsnorm.so would choose for the shape), then a RoPE kernel reads t and writes y. A thread of the RoPE
 * kernel rotates one 16-byte vector; its half-layout partner vector, head_dim/2 elements away, is read
 * again from memory (the neighbouring thread's load put it in L1). Twice the ideal bytes: what the
 * fused kernel removes. */
#include <cuda_runtime.h>

#include "klab/cuda.h"
#include "rmsnorm_rope.h"
#include "row/rope_math.cuh"
#include "row/rms_op.cuh"

namespace {

template <typename T, bool HALF>
__global__ void rope_kernel(const T *__restrict__ t, const int32_t *__restrict__ pos, const float *__restrict__ cos_t,
                            const float *__restrict__ sin_t, T *__restrict__ y, size_t nvec, int hvec, int head_dim)
{
    constexpr int PER = 16 / sizeof(T);
    const uint4 *t4 = reinterpret_cast<const uint4 *>(t);
    uint4 *y4 = reinterpret_cast<uint4 *>(y);
    const int half_vec = head_dim / 2 / PER;
    for (size_t v = blockIdx.x * (size_t)blockDim.x + threadIdx.x; v < nvec; v += (size_t)gridDim.x * blockDim.x) {
        const size_t token = v / (size_t)hvec;
        const int d0 = (int)((v % (size_t)hvec) * PER) & (head_dim - 1);
        float f[PER], p[PER];
        vec16<T>::unpack(__ldg(t4 + v), f);
        if (HALF)
            vec16<T>::unpack(__ldg(t4 + (d0 < head_dim / 2 ? v + half_vec : v - half_vec)), p);
        const int64_t ps = pos[token];
        rope_rotate<PER, HALF>(f, p, cos_t + ps * (head_dim / 2), sin_t + ps * (head_dim / 2), d0, head_dim / 2);
        y4[v] = vec16<T>::pack(f);
    }
}

template <typename T, bool HALF>
int launch(const rope_geom *g, const void *x, const void *w, const int32_t *pos, const float *cos_t,
           const float *sin_t, void *t, void *y, float eps, const row_plan *p, cudaStream_t s)
{
    RmsOp<T, false> op;
    op.init((const T *)x, NULL, (const T *)w, (T *)t, NULL, (int64_t)g->tokens, (int64_t)g->hidden, eps);
    cudaError_t e = rowk::launch(op, *p, (int64_t)g->tokens, (int64_t)g->hidden, s);
    if (e != cudaSuccess)
        return (int)e;
    constexpr int PER = 16 / sizeof(T);
    const size_t nvec = g->tokens * g->hidden / PER, blocks = (nvec + 255) / 256;
    rope_kernel<T, HALF><<<(unsigned)(blocks < 65536 ? blocks : 65536), 256, 0, s>>>(
        (const T *)t, pos, cos_t, sin_t, (T *)y, nvec, (int)(g->hidden / PER), (int)g->head_dim);
    return (int)cudaGetLastError();
}

} // namespace

extern "C" int rmsnorm_rope_baseline_launch(klab_dtype d, const rope_geom *g, const void *x, const void *w,
                                            const int32_t *pos, const float *cos_t, const float *sin_t, void *t,
                                            void *y, float eps, const row_plan *p, klab_stream s)
{
    KLAB_DISPATCH_FLOAT(d, T, {
        return g->half ? launch<T, true>(g, x, w, pos, cos_t, sin_t, t, y, eps, p, s)
                       : launch<T, false>(g, x, w, pos, cos_t, sin_t, t, y, eps, p, s);
    })
    return (int)cudaErrorInvalidValue;
}
