/* matmul_h200's `tiled` profile, the "before": a 128 x 128 x 32 tile a CTA of 8 warps (each 32 x 64),
 * a 3-stage cp.async ring in padded shared memory, ldmatrix (A) and ldmatrix.trans (B, stored K x N)
 * feeding mma.sync m16n8k16 with fp32 accumulators. Runs on sm_80 and later. Loads past M, N or K
 * zero-fill (cp.async with a source size of 0), stores are masked, so any K and N that are multiples
 * of 8 (16-byte rows) work. */
#include <stdio.h>

#include "klab/cuda.h"
#include "matmul_h200.h"
#include "cuda/func_attr.cuh"
#include "cuda/mma_sync.cuh"
#include "cuda/numeric.cuh"

namespace {

constexpr int BM = 128, BN = 128, BK = 32, STAGES = 3, THREADS = 256;
constexpr int A_LD = BK + 8, B_LD = BN + 8; /* 16 bytes of padding a row: ldmatrix rows hit distinct banks */
constexpr int A_ELEMS = BM * A_LD, B_ELEMS = BK * B_LD;
constexpr int SMEM = STAGES * (A_ELEMS + B_ELEMS) * 2;

__device__ __forceinline__ void cp_async16(void *dst, const void *src, bool valid)
{
    const unsigned d = (unsigned)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(d), "l"(src), "r"(valid ? 16 : 0) : "memory");
}

template <class T>
__global__ void __launch_bounds__(THREADS) tiled_kernel(const T *__restrict__ A, const T *__restrict__ B, T *__restrict__ C,
                                                        int M, int N, int K)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    extern __shared__ __align__(16) unsigned char smem_raw[];
    T *As = (T *)smem_raw, *Bs = As + STAGES * A_ELEMS;
    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int wm = warp / 2, wn = warp % 2; /* 4 x 2 warps, each 32 rows x 64 columns */
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
    const int ktiles = (K + BK - 1) / BK;

    auto load = [&](int stage, int kt) {
        const int k0 = kt * BK;
        T *as = As + stage * A_ELEMS, *bs = Bs + stage * B_ELEMS;
#pragma unroll
        for (int i = 0; i < 2; i++) {
            const int id = tid + i * THREADS;
            const int r = id / (BK / 8), cc = (id % (BK / 8)) * 8;
            const bool ok = m0 + r < M && k0 + cc < K;
            cp_async16(as + r * A_LD + cc, ok ? A + (size_t)(m0 + r) * K + k0 + cc : A, ok);
        }
#pragma unroll
        for (int i = 0; i < 2; i++) {
            const int id = tid + i * THREADS;
            const int r = id / (BN / 8), cc = (id % (BN / 8)) * 8;
            const bool ok = k0 + r < K && n0 + cc < N;
            cp_async16(bs + r * B_LD + cc, ok ? B + (size_t)(k0 + r) * N + n0 + cc : B, ok);
        }
    };

    float acc[2][8][4];
#pragma unroll
    for (int i = 0; i < 2; i++)
#pragma unroll
        for (int j = 0; j < 8; j++)
#pragma unroll
            for (int q = 0; q < 4; q++)
                acc[i][j][q] = 0.f;

#pragma unroll
    for (int s = 0; s < STAGES - 1; s++) {
        if (s < ktiles)
            load(s, s);
        asm volatile("cp.async.commit_group;" ::: "memory");
    }
    for (int kt = 0; kt < ktiles; kt++) {
        asm volatile("cp.async.wait_group %0;" ::"n"(STAGES - 2) : "memory");
        __syncthreads(); /* tile kt landed for every thread; everyone is done with tile kt - 1's stage */
        if (kt + STAGES - 1 < ktiles)
            load((kt + STAGES - 1) % STAGES, kt + STAGES - 1);
        asm volatile("cp.async.commit_group;" ::: "memory");
        const T *as = As + (kt % STAGES) * A_ELEMS, *bs = Bs + (kt % STAGES) * B_ELEMS;
#pragma unroll
        for (int kk = 0; kk < BK; kk += 16) {
            unsigned af[2][4], bf[8][2];
#pragma unroll
            for (int i = 0; i < 2; i++) {
                const T *p = as + (wm * 32 + i * 16 + (lane % 16)) * A_LD + kk + (lane / 16) * 8;
                asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                             : "=r"(af[i][0]), "=r"(af[i][1]), "=r"(af[i][2]), "=r"(af[i][3])
                             : "r"((unsigned)__cvta_generic_to_shared(p)));
            }
#pragma unroll
            for (int j = 0; j < 8; j += 2) {
                const int q = lane / 8;
                const T *p = bs + (kk + (q & 1) * 8 + (lane % 8)) * B_LD + wn * 64 + j * 8 + (q >> 1) * 8;
                asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];"
                             : "=r"(bf[j][0]), "=r"(bf[j][1]), "=r"(bf[j + 1][0]), "=r"(bf[j + 1][1])
                             : "r"((unsigned)__cvta_generic_to_shared(p)));
            }
#pragma unroll
            for (int i = 0; i < 2; i++)
#pragma unroll
                for (int j = 0; j < 8; j++)
                    MmaOp<T>::mma(acc[i][j], af[i], bf[j][0], bf[j][1]);
        }
    }
    asm volatile("cp.async.wait_group 0;" ::: "memory");

#pragma unroll
    for (int i = 0; i < 2; i++)
#pragma unroll
        for (int j = 0; j < 8; j++)
#pragma unroll
            for (int h = 0; h < 2; h++) {
                const int row = m0 + wm * 32 + i * 16 + lane / 4 + h * 8;
                const int col = n0 + wn * 64 + j * 8 + (lane % 4) * 2;
                if (row >= M || col >= N)
                    continue;
                T *dst = C + (size_t)row * N + col;
                if (col + 1 < N)
                    *(unsigned *)dst = pack2<T>(acc[i][j][2 * h], acc[i][j][2 * h + 1]);
                else
                    dst[0] = from_f<T>(acc[i][j][2 * h]);
            }
#else
    (void)A, (void)B, (void)C, (void)M, (void)N, (void)K;
    __trap();
#endif
}

template <class T>
int launch(const mm_case *c, const void *a, const void *b, void *out, cudaStream_t s, char *why, size_t whylen)
{
    cudaError_t e = func_attr_once<tiled_kernel<T>, cudaFuncAttributeMaxDynamicSharedMemorySize>(SMEM);
    if (e == cudaSuccess) {
        const dim3 grid((unsigned)((c->n + BN - 1) / BN), (unsigned)((c->m + BM - 1) / BM));
        tiled_kernel<T><<<grid, THREADS, SMEM, s>>>((const T *)a, (const T *)b, (T *)out, (int)c->m, (int)c->n,
                                                    (int)c->k);
        e = cudaGetLastError();
    }
    if (e != cudaSuccess) {
        snprintf(why, whylen, "tiled_kernel: CUDA error %d %s", (int)e, cudaGetErrorString(e));
        return -1;
    }
    return 0;
}

} // namespace

extern "C" int mm_tiled_launch(klab_dtype d, const mm_case *c, const void *a, const void *b, void *out, klab_stream s,
                               char *why, size_t whylen)
{
    if (!mm_tma_ok(c, why, whylen))
        return 1;
    if ((c->m + BM - 1) / BM > 65535) {
        snprintf(why, whylen, "M = %lld needs more than 65535 row tiles", (long long)c->m);
        return 1;
    }
    if (d == KLAB_BF16)
        return launch<__nv_bfloat16>(c, a, b, out, (cudaStream_t)s, why, whylen);
    if (d == KLAB_FP16)
        return launch<__half>(c, a, b, out, (cudaStream_t)s, why, whylen);
    snprintf(why, whylen, "dtype %d: bf16 and fp16 only", (int)d);
    return 1;
}
