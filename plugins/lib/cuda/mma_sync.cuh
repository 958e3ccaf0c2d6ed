/* The mma.sync pieces of klab's tensor-core kernels (matmul_h200's tiled and skinny kernels,
 * decode_replay's mma attention): m16n8k16 with fp32 accumulators for bf16 and fp16 (sm_80 and later),
 * whole (MmaOp) or with rows 8..15 zero (Mma8), and the packing of two fp32 into the 16-bit pair that
 * feeds them (a single conversion is numeric.cuh's from_f). An anonymous namespace: each kernel file gets
 * its own inline copy. */
#ifndef KLAB_CUDA_MMA_SYNC_CUH
#define KLAB_CUDA_MMA_SYNC_CUH

#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace {

template <class T> struct MmaOp;
/* one specialisation a type; the PTX type name is the only difference */
#define MM_MMA_OP(T, PTX_TYPE)                                                                                     \
    template <> struct MmaOp<T> {                                                                                  \
        __device__ static void mma(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1)                \
        {                                                                                                          \
            asm volatile("mma.sync.aligned.m16n8k16.row.col.f32." PTX_TYPE "." PTX_TYPE                            \
                         ".f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"                               \
                         : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])                                          \
                         : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));                          \
        }                                                                                                          \
    };
MM_MMA_OP(__nv_bfloat16, "bf16")
MM_MMA_OP(__half, "f16")
#undef MM_MMA_OP

/* c += A B on m16n8k16 (fp32 accumulators) with A's and C's rows 8..15 zero: for callers of at most 8
   rows (decode_replay's query heads), so a lane keeps only the live half of A (a0: row g, k 2t, 2t+1; a2:
   row g, k 2t+8, 2t+9) and of C (c0, c1); the dead half's outputs land in scratch registers. MmaOp carries
   all four of each: 16 + 32 registers a lane of zeros at D = 128 in the attention. */
template <typename T> struct Mma8;
#define MMA8_OP(T, PTX)                                                                                            \
    template <> struct Mma8<T> {                                                                                   \
        __device__ static __forceinline__ void run(float (&c)[2], unsigned a0, unsigned a2, unsigned b0, unsigned b1) \
        {                                                                                                          \
            float x2, x3;                                                                                          \
            asm("mma.sync.aligned.m16n8k16.row.col.f32." PTX "." PTX ".f32 {%0,%1,%2,%3}, {%4,%5,%6,%5}, {%7,%8}, " \
                "{%0,%1,%9,%9};"                                                                                   \
                : "+f"(c[0]), "+f"(c[1]), "=f"(x2), "=f"(x3)                                                       \
                : "r"(a0), "r"(0u), "r"(a2), "r"(b0), "r"(b1), "f"(0.f));                                          \
            asm("" ::"f"(x2), "f"(x3)); /* rows 8..15: zeros, read by no one (nvcc counts no (void) as a use) */ \
        }                                                                                                          \
    };
MMA8_OP(__half, "f16")
MMA8_OP(__nv_bfloat16, "bf16")
#undef MMA8_OP

/* two floats as the dtype's pair, the bits of one 32-bit register (x in the low half) */
template <class T> __device__ __forceinline__ unsigned pack2(float x, float y);
template <> __device__ __forceinline__ unsigned pack2<__nv_bfloat16>(float x, float y)
{
    __nv_bfloat162 v = __floats2bfloat162_rn(x, y);
    return *(unsigned *)&v;
}
template <> __device__ __forceinline__ unsigned pack2<__half>(float x, float y)
{
    __half2 v = __floats2half2_rn(x, y);
    return *(unsigned *)&v;
}

} // namespace

#endif
