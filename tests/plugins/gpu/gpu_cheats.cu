/* Outputs that must not pass: nothing written (the poison stays), zeros, inputs changed by the run,
 * a kernel right on its first run only, and right outputs with writes past either end of y (the
 * host's red zones must name the tensor, the side and the bytes). */
#include "twice.cuh"

enum { NOTHING = 0, ZEROS, MODIFIES_INPUT, BREAKS_LATER, OVERRUNS, UNDERRUNS };

/* y[at .. at + k) = -1: outside y, inside the host's 4 KiB red zones */
__global__ void stray_kernel(float *y, long long at, int k)
{
    if (threadIdx.x < (unsigned)k)
        y[at + threadIdx.x] = -1.0f;
}

static klab_status cheats_run(void *state, const klab_launch *l)
{
    twice_state *st = (twice_state *)state;
    int run = ++st->runs[l->profile];
    const float *x = TWICE_X(l);
    float *y = TWICE_Y(l);
    cudaStream_t s = l->stream;
    switch (l->profile) {
    case NOTHING:
        return KLAB_OK;
    case ZEROS:
        KLAB_CUDA(st->host, st->ctx, cudaMemsetAsync(y, 0, st->n * sizeof(float), s));
        return KLAB_OK;
    case MODIFIES_INPUT:
        twice_kernel<<<twice_grid(st->n), 256, 0, s>>>(x, y, st->n, 2.0f);
        KLAB_LAUNCHED(st->host, st->ctx);
        KLAB_CUDA(st->host, st->ctx, cudaMemsetAsync((void *)x, 0, st->n * sizeof(float), s));
        return KLAB_OK;
    case BREAKS_LATER:
        twice_kernel<<<twice_grid(st->n), 256, 0, s>>>(x, y, st->n, run == 1 ? 2.0f : 2.5f);
        KLAB_LAUNCHED(st->host, st->ctx);
        return KLAB_OK;
    default:
        twice_kernel<<<twice_grid(st->n), 256, 0, s>>>(x, y, st->n, 2.0f);
        /* 12 floats (48 bytes) past the end, or 4 (16 bytes) before the start */
        stray_kernel<<<1, 32, 0, s>>>(y, l->profile == OVERRUNS ? (long long)st->n : -4, l->profile == OVERRUNS ? 12 : 4);
        KLAB_LAUNCHED(st->host, st->ctx);
        return KLAB_OK;
    }
}

static const klab_profile profiles[] = {
    TWICE_PROFILE("nothing", "writes nothing"),
    TWICE_PROFILE("zeros", "writes zeros"),
    TWICE_PROFILE("modifies_input", "right output, then zeroes its input"),
    TWICE_PROFILE("breaks_later", "right on its first run, wrong after"),
    TWICE_PROFILE("overruns", "right output, and 48 bytes written past its end"),
    TWICE_PROFILE("underruns", "right output, and 16 bytes written before its start"),
    TWICE_PROFILES_END,
};
TWICE_DESCRIPTOR("gpu_cheats", "outputs that must not pass", profiles, twice_setup, cheats_run, twice_teardown, 0)
