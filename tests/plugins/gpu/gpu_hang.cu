/* A kernel that never ends: the watchdog must end the case, and the run go on. */
#include "twice.cuh"

__global__ void hang_kernel(volatile int *never)
{
    while (*never == 0) {
    }
}

static klab_status hang_run(void *state, int profile, klab_stream s)
{
    (void)profile;
    twice_state *st = (twice_state *)state;
    /* spin on a word zeroed here, which nothing will ever set */
    KLAB_CUDA(st->host, st->ctx, cudaMemsetAsync(st->y, 0, sizeof(int), s));
    hang_kernel<<<1, 1, 0, s>>>((volatile int *)st->y);
    KLAB_LAUNCHED(st->host, st->ctx);
    return KLAB_OK;
}

static const klab_profile profiles[] = {{"spin", "spins forever"}, {NULL, NULL}};
TWICE_DESCRIPTOR("gpu_hang", "a kernel that never returns", profiles, twice_setup, hang_run, twice_teardown, 0)
