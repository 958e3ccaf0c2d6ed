/* Work that escapes the timed stream, beside an honest profile doing the same two kernels:
 *   tail_escapes  the last tenth of y on a private stream forked after the first kernel, never joined:
 *                 at 2^26 floats, ~10 % of the run the events do not see (the old rule let 25 % pass)
 *   fork_nojoin   all of y on the private stream: at 2^8 floats the timed stream holds only an event,
 *                 so its median falls under the empty launch's (1.28 us against 2.6 us on an H200) */
#include "timer_plugin.cuh"

enum { HONEST = 0, TAIL_ESCAPES, FORK_NOJOIN };

static klab_status escape_run(void *state, const klab_launch *l)
{
    tp_state *st = (tp_state *)state;
    size_t split = st->n - st->n / 10;
    switch (l->profile) {
    case HONEST:
        tp_twice<<<tp_grid(split), 256, 0, l->stream>>>(TP_X(l), TP_Y(l), 0, split, 0);
        tp_twice<<<tp_grid(st->n - split), 256, 0, l->stream>>>(TP_X(l), TP_Y(l), split, st->n, 0);
        break;
    case TAIL_ESCAPES:
        tp_twice<<<tp_grid(split), 256, 0, l->stream>>>(TP_X(l), TP_Y(l), 0, split, 0);
        KLAB_CUDA(st->host, st->ctx, cudaEventRecord(st->fork, l->stream));
        KLAB_CUDA(st->host, st->ctx, cudaStreamWaitEvent(st->own, st->fork, 0));
        tp_twice<<<tp_grid(st->n - split), 256, 0, st->own>>>(TP_X(l), TP_Y(l), split, st->n, 0);
        break;
    default:
        KLAB_CUDA(st->host, st->ctx, cudaEventRecord(st->fork, l->stream));
        KLAB_CUDA(st->host, st->ctx, cudaStreamWaitEvent(st->own, st->fork, 0));
        tp_twice<<<tp_grid(st->n), 256, 0, st->own>>>(TP_X(l), TP_Y(l), 0, st->n, 0);
        break;
    }
    KLAB_LAUNCHED(st->host, st->ctx);
    return KLAB_OK;
}

static const klab_profile profiles[] = {
    TP_PROFILE("honest", "both kernels on the stream it is given", 0),
    TP_PROFILE("tail_escapes", "the last tenth on a private stream, never joined", 0),
    TP_PROFILE("fork_nojoin", "everything on a private stream, never joined", 0),
    TP_PROFILE(NULL, NULL, 0),
};
TP_DESCRIPTOR("timer_escape", "work that escapes the timed stream", profiles, tp_setup, escape_run, tp_verify,
              tp_teardown, 0, 0)
