/* A kernel that writes out of bounds when param.bad = 1: the CUDA context is lost (error 700), which
 * must cost only that case; the plugin's other cases run in a fresh worker, other plugins normally. */
#include "twice.cuh"

__global__ void oob_kernel(const float *x, float *y, size_t n, int bad)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = 2.0f * x[i];
    if (bad && i == 0)
        *(volatile float *)(uintptr_t)0x100 = 1.0f; /* nothing is mapped there */
}

static klab_status oob_run(void *state, const klab_launch *l)
{
    twice_state *st = (twice_state *)state;
    oob_kernel<<<(unsigned)((st->n + 255) / 256), 256, 0, l->stream>>>(TWICE_X(l), TWICE_Y(l), st->n, st->bad);
    KLAB_LAUNCHED(st->host, st->ctx);
    return KLAB_OK;
}

static const klab_profile profiles[] = {TWICE_PROFILE("write", "y = 2x, and with bad=1 a write to address 0x100"), TWICE_PROFILES_END};
TWICE_DESCRIPTOR("gpu_oob", "writes out of bounds on demand", profiles, twice_setup, oob_run, twice_teardown, 0)
