/* y = 2 x three ways, for the timing modes: honestly; skipping its work wherever its output already
 * holds the answer (a plugin that detects the runs it is timed on by their not being poisoned); and
 * through a CUDA graph of its own, made in setup on the setup tensors (owns_graph, fixed tensors). */
#include "timer_plugin.cuh"

enum { HONEST = 0, POISON_CHEAT, OWN_GRAPH };

static klab_status twice_setup(klab_ctx *ctx, const klab_host *host, const klab_case *k, void **state)
{
    klab_status rc = tp_setup(ctx, host, k, state);
    if (rc != KLAB_OK)
        return rc;
    tp_state *st = (tp_state *)*state;
    /* the graph bakes in the original tensors: hence KLAB_PROFILE_FIXED_TENSORS */
    cudaStream_t s = host->stream(ctx);
    cudaGraph_t g;
    KLAB_CUDA(host, ctx, cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    tp_twice<<<tp_grid(st->n), 256, 0, s>>>(st->x, st->y, 0, st->n, 0);
    KLAB_CUDA(host, ctx, cudaStreamEndCapture(s, &g));
    cudaError_t e = cudaGraphInstantiate(&st->graph, g, 0);
    cudaGraphDestroy(g);
    KLAB_CUDA(host, ctx, e);
    return KLAB_OK;
}

static klab_status twice_run(void *state, const klab_launch *l)
{
    tp_state *st = (tp_state *)state;
    switch (l->profile) {
    case HONEST:
    case POISON_CHEAT:
        tp_twice<<<tp_grid(st->n), 256, 0, l->stream>>>(TP_X(l), TP_Y(l), 0, st->n, l->profile == POISON_CHEAT);
        KLAB_LAUNCHED(st->host, st->ctx);
        return KLAB_OK;
    default:
        KLAB_CUDA(st->host, st->ctx, cudaGraphLaunch(st->graph, l->stream));
        return KLAB_OK;
    }
}

static const klab_profile profiles[] = {
    TP_PROFILE("honest", "one kernel on the stream it is given", 0),
    TP_PROFILE("poison_cheat", "skips every chunk whose output already holds the answer", 0),
    TP_PROFILE("own_graph", "launches a graph it captured in setup, on the original tensors",
               KLAB_PROFILE_OWNS_GRAPH | KLAB_PROFILE_FIXED_TENSORS),
    TP_PROFILE(NULL, NULL, 0),
};
TP_DESCRIPTOR("timer_twice", "y = 2 x: honest, poison-detecting, and with a graph of its own", profiles, twice_setup,
              twice_run, tp_verify, tp_teardown, 0, 0)
