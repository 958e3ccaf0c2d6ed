/* abi2_tuning.so: a tuning space. Profile `tiled` enumerates threads=128, threads=256, threads=48 and
 * threads=2048 (its own choice, index -1, is threads=256); run() declines threads=48 before launching
 * anything (not a multiple of a warp: KLAB_UNSUPPORTED, a skipped row), and threads=2048 is a launch
 * the device refuses (a failed row). Profile `fixed` has no tuning space. */
#include <stdio.h>

#include "abi2.cuh"

enum { TILED = 0, FIXED };

static const int threads_of[] = {128, 256, 48, 2048};
static const char *const space[] = {"threads=128", "threads=256", "threads=48", "threads=2048"};

static const char *tiled_config(const klab_case *kcase, int index)
{
    (void)kcase;
    if (index < 0)
        return space[1];
    return index < 4 ? space[index] : NULL;
}

static klab_status tuning_setup(klab_ctx *ctx, const klab_host *host, const klab_case *k, void **state)
{
    return abi2_setup_xy(ctx, host, k, KLAB_FP32, state);
}

static klab_status tuning_run(void *state, const klab_launch *l)
{
    abi2_state *st = (abi2_state *)state;
    int threads = l->profile == TILED && l->config >= 0 ? threads_of[l->config] : 256;
    if (threads % 32) {
        st->host->error(st->ctx, "threads=%d is not a multiple of the warp size", threads);
        return KLAB_UNSUPPORTED;
    }
    size_t blocks = (st->n + (size_t)threads - 1) / (size_t)threads;
    abi2_twice_kernel<float><<<(unsigned)(blocks ? blocks : 1), threads, 0, l->stream>>>(
        (const float *)l->tensors[0], (float *)l->tensors[1], st->n);
    KLAB_LAUNCHED(st->host, st->ctx);
    return KLAB_OK;
}

static const klab_profile profiles[] = {ABI2_PROFILE("tiled", "y = 2 x with `threads` a block", NULL, tiled_config),
                                        ABI2_PROFILE("fixed", "y = 2 x, 256 threads a block", NULL, NULL), ABI2_END};
ABI2_DESCRIPTOR("abi2_tuning", "a tuning space with an invalid and a failing configuration", profiles,
                KLAB_DTYPE_BIT(KLAB_FP32), 0, 0, tuning_setup, tuning_run, abi2_twice_verify, NULL)
