/* Declares it needs a compute capability no device has yet: every case is a skipped row that says so. */
#include "twice.cuh"

static klab_status future_run(void *state, const klab_launch *l)
{
    twice_state *st = (twice_state *)state;
    twice_kernel<<<twice_grid(st->n), 256, 0, l->stream>>>(TWICE_X(l), TWICE_Y(l), st->n, 2.0f);
    KLAB_LAUNCHED(st->host, st->ctx);
    return KLAB_OK;
}

static const klab_profile profiles[] = {TWICE_PROFILE("plain", "y = 2x"), TWICE_PROFILES_END};
TWICE_DESCRIPTOR("gpu_future", "needs compute capability 12.7", profiles, twice_setup, future_run, twice_teardown, 127)
