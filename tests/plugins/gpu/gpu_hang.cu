/* A kernel that never ends: the watchdog must end the case, and the run go on. */
#include "twice.cuh"

__global__ void hang_kernel(volatile int *never)
{
    while (*never == 0) {
    }
}

static klab_status hang_run(void *state, const klab_launch *l)
{
    twice_state *st = (twice_state *)state;
    /* spin on a word zeroed here, which nothing will ever set */
    KLAB_CUDA(st->host, st->ctx, cudaMemsetAsync(TWICE_Y(l), 0, sizeof(int), l->stream));
    hang_kernel<<<1, 1, 0, l->stream>>>((volatile int *)TWICE_Y(l));
    KLAB_LAUNCHED(st->host, st->ctx);
    return KLAB_OK;
}

static const klab_profile profiles[] = {TWICE_PROFILE("spin", "spins forever"), TWICE_PROFILES_END};
TWICE_DESCRIPTOR("gpu_hang", "a kernel that never returns", profiles, twice_setup, hang_run, twice_teardown, 0)
