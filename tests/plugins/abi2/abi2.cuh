/* What the ABI 2 test plugins share: a state, a grid, profile and descriptor spellings (C++17 has no
 * designated initializers: the descriptor is positional, in the struct's order). Each plugin shows one
 * 2.0 capability; their verify() hooks read only the case and the io, so tests/test_abi2_plugins.c
 * calls them on the CPU without setup. */
#ifndef ABI2_CUH
#define ABI2_CUH

#include <cuda_runtime.h>
#include <stdint.h>
#include <stdlib.h>

#include "klab/cuda.h"
#include "klab/plugin.h"

struct abi2_state {
    klab_ctx *ctx;
    const klab_host *host;
    klab_dtype dtype;
    size_t n;
    int64_t steps;
};

/* A state for setup, or NULL after recording why. */
static inline abi2_state *abi2_state_new(klab_ctx *ctx, const klab_host *host, const klab_case *k)
{
    abi2_state *st = (abi2_state *)calloc(1, sizeof *st);
    if (!st) {
        host->error(ctx, "out of memory");
        return NULL;
    }
    st->ctx = ctx;
    st->host = host;
    st->dtype = k->dtype;
    st->n = klab_case_elements(k);
    st->steps = k->steps;
    return st;
}

/* The setup of a plugin whose case is x in, y out, n elements of dtype d each. */
static inline klab_status abi2_setup_xy(klab_ctx *ctx, const klab_host *host, const klab_case *k, klab_dtype d,
                                        void **state)
{
    abi2_state *st = abi2_state_new(ctx, host, k);
    if (!st)
        return KLAB_ERROR;
    if (!host->tensor(ctx, "x", KLAB_INPUT, d, st->n) || !host->tensor(ctx, "y", KLAB_OUTPUT, d, st->n)) {
        free(st);
        return KLAB_ERROR;
    }
    *state = st;
    return KLAB_OK;
}

static inline void abi2_teardown(void *state)
{
    free(state);
}

static inline unsigned abi2_grid(size_t n)
{
    size_t b = (n + 255) / 256;
    return (unsigned)(b < 4096 ? (b ? b : 1) : 4096);
}

#define ABI2_FOR(i, n) for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < (n); i += (size_t)gridDim.x * blockDim.x)

/* y = 2 x (the plugins whose point is the host's decision, not the arithmetic): the kernel, launched
   as abi2_twice_kernel<float> (a template, so a plugin that does not launch it compiles none), and
   the float64 reference. */
template <typename T> __global__ void abi2_twice_kernel(const T *__restrict__ x, T *__restrict__ y, size_t n)
{
    ABI2_FOR(i, n) y[i] = (T)2 * x[i];
}

static inline klab_status abi2_twice_verify(void *state, const klab_case *k, const klab_verify_io *io)
{
    (void)state;
    (void)k;
    for (size_t i = 0; i < io->out_count[0]; i++)
        io->out[0][i] = 2.0 * io->in[0][i];
    return KLAB_OK;
}

/* name, summary, flags, archs (NULL: the plugin's), config (NULL: no tuning space) */
#define ABI2_PROFILE(name, summary, archs, config) {name, summary, 0, archs, config}
#define ABI2_END {NULL, NULL, 0, NULL, NULL}

#define ABI2_DESCRIPTOR(NAME, SUMMARY, PROFILES, DTYPES, FLAGS, STEPS, SETUP, RUN, VERIFY, WORK)            \
    static const klab_plugin abi2_descriptor = {                                                           \
        KLAB_ABI_MAJOR, KLAB_ABI_MINOR, sizeof(klab_plugin), sizeof(klab_profile), NAME, "test", SUMMARY, \
        PROFILES,       NULL /* baseline */, DTYPES, 0 /* min_cc */, NULL /* archs */, NULL /* params */, \
        NULL /* dims */, FLAGS, STEPS, SETUP, RUN, VERIFY, abi2_teardown, WORK, NULL /* tolerance */,    \
        NULL /* run_host */, NULL /* verify_host */, NULL /* check_param */};                             \
    KLAB_PLUGIN_ENTRY(abi2_descriptor)

#endif
