/*
 * klab/cuda.h — conveniences for plugins written in CUDA C++. Header-only; nothing here is ABI.
 *
 *   KLAB_CUDA(host, ctx, call)         return host->error(...) naming the call, file and line if it fails
 *   KLAB_LAUNCHED(host, ctx)           the same for cudaGetLastError() right after a <<<launch>>>
 *   KLAB_DISPATCH_FLOAT(dtype, T, ...) instantiate a template body for the 16- and 32-bit float dtypes:
 *                                      T is float, __half or __nv_bfloat16
 *   KLAB_DISPATCH_FP8(dtype, T, ...)   the same for the fp8 dtypes: T is __nv_fp8_e4m3 or __nv_fp8_e5m2
 *                                      (storage types: widen with float(x), narrow with T(f), which
 *                                      rounds to nearest and saturates)
 *   KLAB_DISPATCH_INT(dtype, T, ...)   the same for the integer dtypes: T is int32_t or int64_t
 *
 * A dtype a dispatch does not cover falls through, so the caller reports it (or tries the next
 * dispatch). Hooks return klab_status, so these macros `return` from the enclosing hook on failure.
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
#include <cuda_fp8.h>
#include <stdint.h>

/* One case of a dispatch: the braced body with T bound to `type`. */
#define KLAB_DISPATCH_CASE_(value, type, T, ...) \
    case value: {                                \
        typedef type T;                          \
        __VA_ARGS__;                             \
    } break;

/* Runs the body with T bound to the element type of `dtype` when it is fp32, fp16 or bf16. */
#define KLAB_DISPATCH_FLOAT(dtype, T, ...)                           \
    switch (dtype) {                                                 \
        KLAB_DISPATCH_CASE_(KLAB_FP32, float, T, __VA_ARGS__)         \
        KLAB_DISPATCH_CASE_(KLAB_FP16, __half, T, __VA_ARGS__)        \
        KLAB_DISPATCH_CASE_(KLAB_BF16, __nv_bfloat16, T, __VA_ARGS__) \
    default:                                                         \
        break;                                                       \
    }

/* Runs the body with T bound to the element type of `dtype` when it is fp8 e4m3 or e5m2. */
#define KLAB_DISPATCH_FP8(dtype, T, ...)                                \
    switch (dtype) {                                                    \
        KLAB_DISPATCH_CASE_(KLAB_FP8_E4M3, __nv_fp8_e4m3, T, __VA_ARGS__) \
        KLAB_DISPATCH_CASE_(KLAB_FP8_E5M2, __nv_fp8_e5m2, T, __VA_ARGS__) \
    default:                                                            \
        break;                                                          \
    }

/* Runs the body with T bound to the element type of `dtype` when it is int32 or int64. */
#define KLAB_DISPATCH_INT(dtype, T, ...)                        \
    switch (dtype) {                                            \
        KLAB_DISPATCH_CASE_(KLAB_INT32, int32_t, T, __VA_ARGS__) \
        KLAB_DISPATCH_CASE_(KLAB_INT64, int64_t, T, __VA_ARGS__) \
    default:                                                    \
        break;                                                  \
    }
#endif

#endif /* KLAB_CUDA_H */
