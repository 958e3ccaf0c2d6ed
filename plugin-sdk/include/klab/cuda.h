/*
 * klab/cuda.h — conveniences for plugins written in CUDA C++. Header-only; nothing here is ABI.
 *
 *   KLAB_CUDA(host, ctx, call)   return host->error(...) naming the call, file and line if it fails
 *   KLAB_LAUNCHED(host, ctx)     the same for cudaGetLastError() right after a <<<launch>>>
 *   KLAB_DISPATCH(dtype, T, ...) instantiate a template body for float, __half or __nv_bfloat16
 *
 * Hooks return klab_status, so these macros `return` from the enclosing hook on failure.
 */
#ifndef KLAB_CUDA_H
#define KLAB_CUDA_H

#include <cuda_runtime.h>

#include "klab/plugin.h"

#define KLAB_CUDA(host, ctx, call)                                                            \
    do {                                                                                      \
        cudaError_t klab_e_ = (call);                                                         \
        if (klab_e_ != cudaSuccess)                                                           \
            return (host)->error((ctx), "%s:%d: %s: CUDA error %d %s: %s", __FILE__, __LINE__, \
                                 #call, (int)klab_e_, cudaGetErrorName(klab_e_),              \
                                 cudaGetErrorString(klab_e_));                                \
    } while (0)

#define KLAB_LAUNCHED(host, ctx) KLAB_CUDA(host, ctx, cudaGetLastError())

#ifdef __CUDACC__
#include <cuda_bf16.h>
#include <cuda_fp16.h>

/* Runs the braced body with T bound to the element type of `dtype`; an unknown dtype falls through
   so the caller can report it. */
#define KLAB_DISPATCH(dtype, T, ...)                 \
    switch (dtype) {                                 \
    case KLAB_FP32: {                                \
        typedef float T;                             \
        __VA_ARGS__;                                 \
    } break;                                         \
    case KLAB_FP16: {                                \
        typedef __half T;                            \
        __VA_ARGS__;                                 \
    } break;                                         \
    case KLAB_BF16: {                                \
        typedef __nv_bfloat16 T;                     \
        __VA_ARGS__;                                 \
    } break;                                         \
    default:                                         \
        break;                                       \
    }
#endif

#endif /* KLAB_CUDA_H */
