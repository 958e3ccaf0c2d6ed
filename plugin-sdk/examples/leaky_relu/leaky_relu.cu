/*
 * leaky_relu.so: out = x >= 0 ? x : slope * x, the klab SDK's second out-of-tree example: a plugin that
 * ships its PyTorch baseline (leaky_relu_torch.py, beside the .so) with it. One file: descriptor, hooks,
 * kernels and the float64 reference.
 *
 *   param.slope  the slope below zero, 0.01 when the INI does not set it (PyTorch's default)
 *   dtypes       fp32, fp16, bf16 (the product is in float; fp16 and bf16 round once, at the store)
 *   naive        one element a thread, scalar loads
 *   vectorized   16-byte loads and stores, a scalar tail for the rest
 *
 * run() takes its tensors from the launch (x, out: the order setup made them): the host may hand it copies.
 */
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "klab/cuda.h"
#include "klab/plugin.h"

namespace {

enum { LRELU_NAIVE = 0, LRELU_VECTORIZED = 1 }; /* profiles, in the descriptor's order */

constexpr int THREADS = 256;
constexpr unsigned MAX_BLOCKS = 1u << 20; /* grid-stride loops cover anything longer */
constexpr double DEFAULT_SLOPE = 0.01;

enum { T_X = 0, T_OUT }; /* tensors, in the order setup makes them */

struct lrelu_state {
    klab_ctx *ctx;
    const klab_host *host;
    klab_dtype dtype;
    size_t n;
    float slope;
};

/* param.slope, DEFAULT_SLOPE when absent. Returns 0, or -1 when the value is not a finite number. */
int case_slope(const klab_case *k, double *slope)
{
    *slope = DEFAULT_SLOPE;
    const char *v = klab_case_param(k, "slope");
    if (!v)
        return 0;
    char *end;
    *slope = strtod(v, &end);
    return end == v || *end || !isfinite(*slope) ? -1 : 0;
}

/* ---- kernels ---- */

template <typename T> __device__ __forceinline__ float to_f(T v) { return (float)v; }
template <> __device__ __forceinline__ float to_f<__half>(__half v) { return __half2float(v); }
template <> __device__ __forceinline__ float to_f<__nv_bfloat16>(__nv_bfloat16 v) { return __bfloat162float(v); }
template <typename T> __device__ __forceinline__ T from_f(float v) { return (T)v; }
template <> __device__ __forceinline__ __half from_f<__half>(float v) { return __float2half_rn(v); }
template <> __device__ __forceinline__ __nv_bfloat16 from_f<__nv_bfloat16>(float v) { return __float2bfloat16_rn(v); }

template <typename T> __device__ __forceinline__ T lrelu(float slope, T x)
{
    float v = to_f(x);
    return from_f<T>(v >= 0.f ? v : slope * v);
}

template <typename T>
__global__ void naive_kernel(float slope, const T *__restrict__ x, T *__restrict__ out, size_t n)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        out[i] = lrelu(slope, x[i]);
}

/* n16 whole 16-byte vectors, then the tail [n16 * PER, n) element by element. */
template <typename T>
__global__ void vectorized_kernel(float slope, const T *__restrict__ x, T *__restrict__ out, size_t n16, size_t n)
{
    constexpr int PER = 16 / sizeof(T);
    const uint4 *x4 = reinterpret_cast<const uint4 *>(x);
    uint4 *o4 = reinterpret_cast<uint4 *>(out);
    size_t stride = (size_t)gridDim.x * blockDim.x, first = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (size_t v = first; v < n16; v += stride) {
        uint4 vx = x4[v], vo;
        const T *px = reinterpret_cast<const T *>(&vx);
        T *po = reinterpret_cast<T *>(&vo);
#pragma unroll
        for (int e = 0; e < PER; e++)
            po[e] = lrelu(slope, px[e]);
        o4[v] = vo;
    }
    for (size_t i = n16 * PER + first; i < n; i += stride)
        out[i] = lrelu(slope, x[i]);
}

unsigned blocks_for(size_t items)
{
    size_t b = (items + THREADS - 1) / THREADS;
    return b == 0 ? 1u : b > MAX_BLOCKS ? MAX_BLOCKS : (unsigned)b;
}

template <typename T> void launch(const klab_launch *l, const lrelu_state *st)
{
    const T *x = static_cast<const T *>(l->tensors[T_X]);
    T *out = static_cast<T *>(l->tensors[T_OUT]);
    cudaStream_t s = l->stream;
    if (l->profile == LRELU_NAIVE) {
        naive_kernel<T><<<blocks_for(st->n), THREADS, 0, s>>>(st->slope, x, out, st->n);
        return;
    }
    constexpr size_t PER = 16 / sizeof(T);
    /* cudaMalloc'd tensors are 256-byte aligned; were one not, the tail loop would do it all */
    bool aligned = (((uintptr_t)x | (uintptr_t)out) & 15u) == 0;
    size_t n16 = aligned ? st->n / PER : 0;
    vectorized_kernel<T><<<blocks_for(n16 ? n16 : st->n), THREADS, 0, s>>>(st->slope, x, out, n16, st->n);
}

/* ---- hooks ---- */

klab_status lrelu_setup(klab_ctx *ctx, const klab_host *host, const klab_case *k, void **state)
{
    double slope;
    if (case_slope(k, &slope) != 0)
        return host->error(ctx, "param.slope must be a finite number");
    lrelu_state *st = static_cast<lrelu_state *>(calloc(1, sizeof *st));
    if (!st)
        return host->error(ctx, "out of memory");
    st->ctx = ctx;
    st->host = host;
    st->dtype = k->dtype;
    st->n = klab_case_elements(k);
    st->slope = (float)slope;
    if (host->tensor(ctx, "x", KLAB_INPUT, k->dtype, st->n) && host->tensor(ctx, "out", KLAB_OUTPUT, k->dtype, st->n)) {
        *state = st;
        return KLAB_OK;
    }
    free(st);
    return KLAB_ERROR; /* host->tensor recorded why */
}

klab_status lrelu_run(void *state, const klab_launch *l)
{
    const lrelu_state *st = static_cast<const lrelu_state *>(state);
    KLAB_DISPATCH_FLOAT(st->dtype, T, {
        launch<T>(l, st);
        KLAB_LAUNCHED(st->host, st->ctx);
        return KLAB_OK;
    })
    return st->host->error(st->ctx, "dtype %d is not one leaky_relu declared", (int)st->dtype);
}

/* The float64 reference on the inputs exactly as the device saw them; the slope as the kernel holds it
   (float), so the reference differs from the kernel by the kernel's roundings alone. */
klab_status lrelu_verify(void *state, const klab_case *k, const klab_verify_io *io)
{
    (void)state;
    double slope;
    if (case_slope(k, &slope) != 0)
        return KLAB_ERROR;
    slope = (double)(float)slope;
    const double *x = io->in[0];
    double *out = io->out[0];
    for (size_t i = 0; i < io->out_count[0]; i++)
        out[i] = x[i] >= 0 ? x[i] : slope * x[i];
    return KLAB_OK;
}

void lrelu_teardown(void *state)
{
    free(state);
}

/* Ideal traffic: read x and write out once each; one compare and one multiply an element. */
void lrelu_work(const klab_case *k, klab_work *w)
{
    double n = (double)klab_case_elements(k);
    w->bytes = 2 * n * (double)klab_dtype_size(k->dtype);
    w->flops = n;
}

/* name, summary, flags, archs (NULL: the plugin's), config (NULL: no tuning space) */
const klab_profile profiles[] = {
    {"naive", "one element a thread, scalar loads", 0, NULL, NULL},
    {"vectorized", "16-byte loads and stores, scalar tail", 0, NULL, NULL},
    {NULL, NULL, 0, NULL, NULL},
};

const char *const params[] = {"slope", NULL};

/* Every field by name, in declaration order (C++20 refuses another order), those unused as well:
   g++ -Wextra warns of any left out. */
const klab_plugin descriptor = {
    KLAB_DESCRIPTOR_HEADER,
    .name = "leaky_relu", /* the file is leaky_relu.so */
    .version = "1.0.0",
    .summary = "out = x >= 0 ? x : slope * x (param.slope, default 0.01), beside F.leaky_relu",
    .profiles = profiles,
    .baseline = "naive",
    .dtypes = KLAB_DTYPE_BIT(KLAB_FP32) | KLAB_DTYPE_BIT(KLAB_FP16) | KLAB_DTYPE_BIT(KLAB_BF16),
    .min_cc = 0,      /* any */
    .archs = NULL,    /* any device (PTX is JIT-compiled) */
    .params = params,
    .dims = NULL,     /* none */
    .flags = 0,
    .default_steps = 0, /* not a step plugin */
    .setup = lrelu_setup,
    .run = lrelu_run,
    .verify = lrelu_verify,
    .teardown = lrelu_teardown,
    .work = lrelu_work,
    .tolerance = NULL, /* the host's default for the dtype */
    .run_host = NULL,
    .verify_host = NULL,
    .check_param = NULL,
};

} // namespace

KLAB_PLUGIN_ENTRY(descriptor)
