/* y = 2 x, and a run() that leaves L2's persisting state set for the next sample: the persisting-L2
 * limit (cudaDeviceSetLimit) or an access-policy window on the stream it is given, which would keep x in
 * L2 across the flush a cold sample starts with. The timer must fail those rows, naming what was set,
 * and the honest profile timed beside them must not inherit it (tests/test_gpu_timing.c). */
#include "timer_plugin.cuh"

enum { HONEST = 0, LIMIT, WINDOW };

static klab_status l2_run(void *state, const klab_launch *l)
{
    tp_state *st = (tp_state *)state;
    if (l->profile == LIMIT || l->profile == WINDOW) {
        /* a set-aside for persisting lines, as a plugin tuning for L2 residency would make */
        KLAB_CUDA(st->host, st->ctx, cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, (size_t)4 << 20));
    }
    if (l->profile == WINDOW) {
        cudaStreamAttrValue v = {};
        v.accessPolicyWindow.base_ptr = (void *)TP_X(l);
        v.accessPolicyWindow.num_bytes = st->n * sizeof(float) < ((size_t)4 << 20) ? st->n * sizeof(float)
                                                                                   : ((size_t)4 << 20);
        v.accessPolicyWindow.hitRatio = 1.0f;
        v.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
        v.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
        KLAB_CUDA(st->host, st->ctx, cudaStreamSetAttribute(l->stream, cudaStreamAttributeAccessPolicyWindow, &v));
    }
    tp_twice<<<tp_grid(st->n), 256, 0, l->stream>>>(TP_X(l), TP_Y(l), 0, st->n, 0);
    KLAB_LAUNCHED(st->host, st->ctx);
    return KLAB_OK;
}

static const klab_profile profiles[] = {
    TP_PROFILE("honest", "one kernel on the stream it is given", 0),
    TP_PROFILE("limit", "sets a 4 MiB persisting-L2 limit in every run", 0),
    TP_PROFILE("window", "sets the limit and a persisting access-policy window over x on the timed stream", 0),
    TP_PROFILE(NULL, NULL, 0),
};
TP_DESCRIPTOR("timer_l2", "y = 2 x: honest, and leaving L2's persisting state set", profiles, tp_setup, l2_run,
              tp_verify, tp_teardown, 0, 0)
