/* matmul_h200's mma.sync pieces, shared by the tiled and skinny kernels: m16n8k16 with fp32
 * accumulators for bf16 and fp16 (sm_80 and later), and the fp32 -> 16-bit conversions of their
 * epilogues. An anonymous namespace: each kernel file gets its own inline copy. */
#ifndef MATMUL_H200_MMA_CUH
#define MATMUL_H200_MMA_CUH

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
template <class T> __device__ __forceinline__ T narrow(float x);
template <> __device__ __forceinline__ __nv_bfloat16 narrow<__nv_bfloat16>(float x) { return __float2bfloat16_rn(x); }
template <> __device__ __forceinline__ __half narrow<__half>(float x) { return __float2half_rn(x); }

} // namespace

#endif
