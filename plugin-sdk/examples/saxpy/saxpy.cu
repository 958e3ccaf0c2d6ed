/*
 * saxpy.so: out = a * x + y, the klab SDK's out-of-tree example. One file: descriptor, hooks, kernels
 * and the float64 reference. Build it with CMake (find_package(klab)) or with one nvcc line through
 * pkg-config: see README.md.
 *
 *   param.a      the scalar, 2.0 when the INI does not set it
 *   dtypes       fp32, fp16 (the arithmetic is in float; fp16 rounds once, at the store)
 *   naive        one element a thread, scalar loads
 *   vectorized   16-byte loads and stores (4 fp32 or 8 fp16 a vector), a scalar tail for the rest
 *
 * The output is a separate tensor (not y in place): the host poisons it before every run and checksums
 * x and y, so a kernel that skips elements or writes its inputs is caught. run() takes its tensors
 * from the launch (x, y, out: the order setup made them), never from setup: the host may hand it
 * copies.
 *
 * Plugin ABI 2.1, C++20: the descriptor and profiles by field name (a field out of order does not
 * compile), the profiles and their enum from one list, run_host and verify_host (the context and
 * host come as arguments, so the state keeps neither), check_param (klab --validate refuses
 * param.a = abc, naming the line).
 */
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "klab/cuda.h"
#include "klab/plugin.h"

namespace {

/* The profiles: their indices and their descriptor entries from this one list. */
#define SAXPY_PROFILES(X)                                                                               \
    X(SAXPY_NAIVE, .name = "naive", .summary = "one element a thread, scalar loads", .flags = 0,          \
      .archs = nullptr, .config = nullptr)                                                              \
    X(SAXPY_VECTORIZED, .name = "vectorized", .summary = "16-byte loads and stores, scalar tail", .flags = 0, \
      .archs = nullptr, .config = nullptr)
enum { KLAB_PROFILE_IDS(SAXPY_PROFILES) SAXPY_PROFILE_COUNT };

constexpr int THREADS = 256;
constexpr unsigned MAX_BLOCKS = 1u << 20; /* grid-stride loops cover anything longer */
constexpr double DEFAULT_A = 2.0;

enum { T_X = 0, T_Y, T_OUT }; /* tensors, in the order setup makes them */

struct saxpy_state {
    klab_dtype dtype;
    size_t n;
    float a;
};

/* The number `text` says, or NAN when it is not a finite number. */
double finite_number(const char *text)
{
    char *end;
    double v = strtod(text, &end);
    return end == text || *end || !isfinite(v) ? NAN : v;
}

/* param.a, DEFAULT_A when absent (check_param has refused any other value before setup). */
double case_a(const klab_case *k)
{
    const char *v = klab_case_param(k, "a");
    return v ? finite_number(v) : DEFAULT_A;
}

/* ---- kernels ---- */

template <typename T> __device__ __forceinline__ float to_f(T v) { return (float)v; }
template <> __device__ __forceinline__ float to_f<__half>(__half v) { return __half2float(v); }
template <> __device__ __forceinline__ float to_f<__nv_bfloat16>(__nv_bfloat16 v) { return __bfloat162float(v); }
template <typename T> __device__ __forceinline__ T from_f(float v) { return (T)v; }
template <> __device__ __forceinline__ __half from_f<__half>(float v) { return __float2half_rn(v); }
template <> __device__ __forceinline__ __nv_bfloat16 from_f<__nv_bfloat16>(float v) { return __float2bfloat16_rn(v); }

template <typename T> __device__ __forceinline__ T axpy(float a, T x, T y)
{
    return from_f<T>(fmaf(a, to_f(x), to_f(y)));
}

template <typename T>
__global__ void naive_kernel(float a, const T *__restrict__ x, const T *__restrict__ y, T *__restrict__ out, size_t n)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        out[i] = axpy(a, x[i], y[i]);
}

/* n16 whole 16-byte vectors, then the tail [n16 * PER, n) element by element. */
template <typename T>
__global__ void vectorized_kernel(float a, const T *__restrict__ x, const T *__restrict__ y, T *__restrict__ out,
                                  size_t n16, size_t n)
{
    constexpr int PER = 16 / sizeof(T);
    const uint4 *x4 = reinterpret_cast<const uint4 *>(x);
    const uint4 *y4 = reinterpret_cast<const uint4 *>(y);
    uint4 *o4 = reinterpret_cast<uint4 *>(out);
    size_t stride = (size_t)gridDim.x * blockDim.x, first = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (size_t v = first; v < n16; v += stride) {
        uint4 vx = x4[v], vy = y4[v], vo;
        const T *px = reinterpret_cast<const T *>(&vx);
        const T *py = reinterpret_cast<const T *>(&vy);
        T *po = reinterpret_cast<T *>(&vo);
#pragma unroll
        for (int e = 0; e < PER; e++)
            po[e] = axpy(a, px[e], py[e]);
        o4[v] = vo;
    }
    for (size_t i = n16 * PER + first; i < n; i += stride)
        out[i] = axpy(a, x[i], y[i]);
}

unsigned blocks_for(size_t items)
{
    size_t b = (items + THREADS - 1) / THREADS;
    return b == 0 ? 1u : b > MAX_BLOCKS ? MAX_BLOCKS : (unsigned)b;
}

bool aligned16(const void *p)
{
    return ((uintptr_t)p & 15u) == 0;
}

template <typename T> void launch(const klab_launch *l, const saxpy_state *st)
{
    const T *x = static_cast<const T *>(l->tensors[T_X]), *y = static_cast<const T *>(l->tensors[T_Y]);
    T *out = static_cast<T *>(l->tensors[T_OUT]);
    cudaStream_t s = l->stream;
    if (l->profile == SAXPY_NAIVE) {
        naive_kernel<T><<<blocks_for(st->n), THREADS, 0, s>>>(st->a, x, y, out, st->n);
        return;
    }
    constexpr size_t PER = 16 / sizeof(T);
    /* cudaMalloc'd tensors are 256-byte aligned; were one not, the tail loop would do it all */
    size_t n16 = aligned16(x) && aligned16(y) && aligned16(out) ? st->n / PER : 0;
    vectorized_kernel<T><<<blocks_for(n16 ? n16 : st->n), THREADS, 0, s>>>(st->a, x, y, out, n16, st->n);
}

/* ---- hooks ---- */

/* Every param.* the INI sets, before any setup and without a GPU (params lists only "a"). */
const char *saxpy_check_param(const char *key, const char *value)
{
    (void)key;
    return isnan(finite_number(value)) ? "a finite number" : nullptr;
}

klab_status saxpy_setup(klab_ctx *ctx, const klab_host *host, const klab_case *k, void **state)
{
    saxpy_state *st = static_cast<saxpy_state *>(calloc(1, sizeof *st));
    if (!st)
        return host->error(ctx, "out of memory");
    st->dtype = k->dtype;
    st->n = klab_case_elements(k);
    st->a = (float)case_a(k);
    if (host->tensor(ctx, "x", KLAB_INPUT, k->dtype, st->n) && host->tensor(ctx, "y", KLAB_INPUT, k->dtype, st->n) &&
        host->tensor(ctx, "out", KLAB_OUTPUT, k->dtype, st->n)) {
        *state = st;
        return KLAB_OK;
    }
    free(st);
    return KLAB_ERROR; /* host->tensor recorded why */
}

klab_status saxpy_run(void *state, klab_ctx *ctx, const klab_host *host, const klab_launch *l)
{
    const saxpy_state *st = static_cast<const saxpy_state *>(state);
    KLAB_DISPATCH_FLOAT(st->dtype, T, {
        launch<T>(l, st);
        KLAB_LAUNCHED(host, ctx);
        return KLAB_OK;
    })
    return host->error(ctx, "dtype %d is not one saxpy declared", (int)st->dtype);
}

/* The float64 reference: out = a * x + y on the inputs exactly as the device saw them. */
klab_status saxpy_verify(void *state, klab_ctx *ctx, const klab_host *host, const klab_case *k,
                         const klab_verify_io *io)
{
    (void)state;
    (void)ctx;
    (void)host;
    double a = case_a(k);
    const double *x = io->in[0], *y = io->in[1];
    double *out = io->out[0];
    for (size_t i = 0; i < io->out_count[0]; i++)
        out[i] = a * x[i] + y[i];
    return KLAB_OK;
}

void saxpy_teardown(void *state)
{
    free(state);
}

/* Ideal traffic: read x and y, write out, once each; one multiply and one add an element. */
void saxpy_work(const klab_case *k, klab_work *w)
{
    double n = (double)klab_case_elements(k);
    w->bytes = 3 * n * (double)klab_dtype_size(k->dtype);
    w->flops = 2 * n;
}

const klab_profile profiles[] = {KLAB_PROFILE_TABLE(SAXPY_PROFILES)};

const char *const params[] = {"a", nullptr};

/* Every field by name, in declaration order (C++20 refuses another order), those unused as well:
   g++ -Wextra warns of any left out. */
const klab_plugin descriptor = {
    KLAB_DESCRIPTOR_HEADER,
    .name = "saxpy", /* the file is saxpy.so */
    .version = "2.1.0",
    .summary = "out = a * x + y (param.a, default 2): the SDK example",
    .profiles = profiles,
    .baseline = "naive",
    .dtypes = KLAB_DTYPE_BIT(KLAB_FP32) | KLAB_DTYPE_BIT(KLAB_FP16),
    .min_cc = 0,                /* any */
    .archs = nullptr,           /* any device (PTX is JIT-compiled) */
    .params = params,
    .dims = nullptr,            /* none */
    .flags = 0,
    .default_steps = 0,         /* not a step plugin */
    .setup = saxpy_setup,
    .run = nullptr,             /* run_host below */
    .verify = nullptr,          /* verify_host below */
    .teardown = saxpy_teardown,
    .work = saxpy_work,
    .tolerance = nullptr,       /* the host's default for the dtype */
    .run_host = saxpy_run,
    .verify_host = saxpy_verify,
    .check_param = saxpy_check_param,
};

} // namespace

KLAB_PLUGIN_ENTRY(descriptor)
