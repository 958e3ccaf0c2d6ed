/* What the timer's test plugins share (ABI 2): y = 2 x over fp32, each run on the tensors the host
 * hands it in launch->tensors (x first, y second), so batched timing can rotate copies. Each plugin's
 * run() is where it is honest or tries to fool the timer. */
#ifndef TIMER_PLUGIN_CUH
#define TIMER_PLUGIN_CUH

#include <cuda_runtime.h>
#include <stdlib.h>

#include "klab/cuda.h"
#include "klab/plugin.h"

struct tp_state {
    klab_ctx *ctx;
    const klab_host *host;
    size_t n;
    const float *x;        /* the original tensors, as setup made them */
    float *y;
    cudaStream_t own;      /* a private stream, for the plugins that escape to one */
    cudaEvent_t fork;      /* recorded on the timed stream, waited on by `own` */
    cudaGraphExec_t graph; /* for the profile that launches a graph of its own */
};

#define TP_X(launch) ((const float *)(launch)->tensors[0])
#define TP_Y(launch) ((float *)(launch)->tensors[1])
#define TP_BLOCKS 1024u

/* y[lo, hi) = 2 x[lo, hi), each block a contiguous chunk. With `skip_done`, a block whose first
   element already holds the answer skips its chunk: a plugin that guesses its output was not poisoned
   since its last run, so the run is "only" being timed. */
__global__ void tp_twice(const float *__restrict__ x, float *__restrict__ y, size_t lo, size_t hi, int skip_done)
{
    size_t len = hi - lo, chunk = (len + gridDim.x - 1) / gridDim.x;
    size_t a = lo + blockIdx.x * chunk, b = a + chunk < hi ? a + chunk : hi;
    if (a >= b)
        return;
    __shared__ int done;
    if (threadIdx.x == 0)
        done = skip_done && y[a] == 2.0f * x[a];
    __syncthreads();
    if (done)
        return;
    for (size_t i = a + threadIdx.x; i < b; i += blockDim.x)
        y[i] = 2.0f * x[i];
}

static inline unsigned tp_grid(size_t n)
{
    size_t b = (n + 255) / 256;
    return (unsigned)(b < TP_BLOCKS ? (b ? b : 1) : TP_BLOCKS);
}

static inline klab_status tp_setup(klab_ctx *ctx, const klab_host *host, const klab_case *k, void **state)
{
    tp_state *st = (tp_state *)calloc(1, sizeof *st);
    if (!st)
        return host->error(ctx, "out of memory");
    st->ctx = ctx;
    st->host = host;
    st->n = klab_case_elements(k);
    st->x = (const float *)host->tensor(ctx, "x", KLAB_INPUT, KLAB_FP32, st->n);
    st->y = st->x ? (float *)host->tensor(ctx, "y", KLAB_OUTPUT, KLAB_FP32, st->n) : NULL;
    if (!st->y) {
        free(st);
        return KLAB_ERROR;
    }
    if (cudaStreamCreateWithFlags(&st->own, cudaStreamNonBlocking) != cudaSuccess ||
        cudaEventCreateWithFlags(&st->fork, cudaEventDisableTiming) != cudaSuccess) {
        free(st);
        return host->error(ctx, "cannot create a private stream and event");
    }
    *state = st;
    return KLAB_OK;
}

static inline klab_status tp_verify(void *state, const klab_case *k, const klab_verify_io *io)
{
    (void)state;
    (void)k;
    for (size_t i = 0; i < io->out_count[0]; i++) {
        size_t at = io->sample && io->sample[0] ? io->sample[0][i] : i;
        io->out[0][i] = 2.0 * io->in[0][at];
    }
    return KLAB_OK;
}

static inline void tp_teardown(void *state)
{
    tp_state *st = (tp_state *)state;
    if (st->graph)
        cudaGraphExecDestroy(st->graph);
    cudaEventDestroy(st->fork);
    cudaStreamDestroy(st->own);
    free(st);
}

#define TP_PROFILE(name, summary, flags) {name, summary, flags, NULL, NULL}

/* The descriptor, in declaration order (C++17 has no designated initializers). */
#define TP_DESCRIPTOR(NAME, SUMMARY, PROFILES, SETUP, RUN, VERIFY, TEARDOWN, FLAGS, STEPS)               \
    static const klab_plugin tp_descriptor = {                                                          \
        KLAB_ABI_MAJOR, KLAB_ABI_MINOR, sizeof(klab_plugin), sizeof(klab_profile), NAME, "test", SUMMARY, \
        PROFILES,       NULL /* baseline */, KLAB_DTYPE_BIT(KLAB_FP32), 0 /* min_cc */, NULL /* archs */, \
        NULL /* params */, NULL /* dims */, FLAGS, STEPS, SETUP, RUN, VERIFY, TEARDOWN,                   \
        NULL /* work */, NULL /* tolerance */, NULL /* run_host */, NULL /* verify_host */,              \
        NULL /* check_param */};                                                                         \
    KLAB_PLUGIN_ENTRY(tp_descriptor)

#endif
