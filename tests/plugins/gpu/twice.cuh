/* What the GPU test plugins compute, honestly or not: y = 2 x over fp32. Shared setup, verify and
 * teardown; each plugin's run() is where it misbehaves. run() finds x and y in launch->tensors
 * (TWICE_X, TWICE_Y). */
#ifndef TWICE_CUH
#define TWICE_CUH

#include <cuda_runtime.h>
#include <stdlib.h>
#include <string.h>

#include "klab/cuda.h"
#include "klab/plugin.h"

struct twice_state {
    klab_ctx *ctx;
    const klab_host *host;
    size_t n;
    int runs[8];       /* per profile */
    cudaStream_t own;  /* for plugins that keep a private stream */
    void *handle;      /* for plugins that keep a library handle */
    int bad;           /* param.bad */
};

__global__ void twice_kernel(const float *__restrict__ x, float *__restrict__ y, size_t n, float k)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        y[i] = k * x[i];
}

#define TWICE_X(launch) ((const float *)(launch)->tensors[0])
#define TWICE_Y(launch) ((float *)(launch)->tensors[1])

/* A profile of these plugins: name and summary; no flags, the plugin's archs, no tuning space. */
#define TWICE_PROFILE(name, summary) {name, summary, 0, NULL, NULL}
#define TWICE_PROFILES_END TWICE_PROFILE(NULL, NULL)

static inline unsigned twice_grid(size_t n)
{
    size_t b = (n + 255) / 256;
    return (unsigned)(b < 4096 ? (b ? b : 1) : 4096);
}

static klab_status twice_setup(klab_ctx *ctx, const klab_host *host, const klab_case *k, void **state)
{
    twice_state *st = (twice_state *)calloc(1, sizeof *st);
    if (!st)
        return host->error(ctx, "out of memory");
    st->ctx = ctx;
    st->host = host;
    st->n = klab_case_elements(k);
    const char *bad = klab_case_param(k, "bad");
    st->bad = bad ? atoi(bad) : 0;
    if (!host->tensor(ctx, "x", KLAB_INPUT, KLAB_FP32, st->n) || !host->tensor(ctx, "y", KLAB_OUTPUT, KLAB_FP32, st->n)) {
        free(st);
        return KLAB_ERROR;
    }
    *state = st;
    return KLAB_OK;
}

static klab_status twice_verify(void *state, const klab_case *k, const klab_verify_io *io)
{
    (void)state;
    (void)k;
    for (size_t i = 0; i < io->out_count[0]; i++)
        io->out[0][i] = 2.0 * io->in[0][i];
    return KLAB_OK;
}

static void twice_teardown(void *state)
{
    free(state);
}

/* The descriptor, in declaration order (C++17 has no designated initializers). */
#define TWICE_DESCRIPTOR(NAME, SUMMARY, PROFILES, SETUP, RUN, TEARDOWN, MIN_CC)                         \
    static const char *const twice_params[] = {"bad", NULL};                                            \
    static const klab_plugin twice_descriptor = {                                                       \
        KLAB_ABI_MAJOR, KLAB_ABI_MINOR, sizeof(klab_plugin), sizeof(klab_profile), NAME, "test", SUMMARY, \
        PROFILES,       NULL /* baseline */, KLAB_DTYPE_BIT(KLAB_FP32), MIN_CC, NULL /* archs */,       \
        twice_params,   NULL /* dims */, 0 /* flags */, 0 /* default_steps */, SETUP, RUN, twice_verify, \
        TEARDOWN,       NULL /* work */, NULL /* tolerance */, NULL /* run_host */, NULL /* verify_host */, \
        NULL /* check_param */};                                                                        \
    KLAB_PLUGIN_ENTRY(twice_descriptor)

#endif
