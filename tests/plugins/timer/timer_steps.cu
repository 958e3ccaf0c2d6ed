/* A step plugin (KLAB_PLUGIN_STEPS): a state s that each step advances, s += x, and an output y = 2 s.
 * After `steps` steps from s0: s = s0 + steps x, y = 2 s. Each step is one timed sample; the timer
 * restores s between sequences and keeps every sample for the row's samples file. */
#include "timer_plugin.cuh"

__global__ void step_kernel(const float *__restrict__ x, float *__restrict__ s, float *__restrict__ y, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        float v = s[i] + x[i];
        s[i] = v;
        y[i] = 2.0f * v;
    }
}

static klab_status steps_setup(klab_ctx *ctx, const klab_host *host, const klab_case *k, void **state)
{
    tp_state *st = (tp_state *)calloc(1, sizeof *st);
    if (!st)
        return host->error(ctx, "out of memory");
    st->ctx = ctx;
    st->host = host;
    st->n = klab_case_elements(k);
    /* made in this order: x (input 0), s (state: input 1 and output 0), y (output 1) */
    if (!host->tensor(ctx, "x", KLAB_INPUT, KLAB_FP32, st->n) || !host->tensor(ctx, "s", KLAB_STATE, KLAB_FP32, st->n) ||
        !host->tensor(ctx, "y", KLAB_OUTPUT, KLAB_FP32, st->n)) {
        free(st);
        return KLAB_ERROR;
    }
    *state = st;
    return KLAB_OK;
}

static klab_status steps_run(void *state, const klab_launch *l)
{
    tp_state *st = (tp_state *)state;
    step_kernel<<<tp_grid(st->n), 256, 0, l->stream>>>((const float *)l->tensors[0], (float *)l->tensors[1],
                                                       (float *)l->tensors[2], st->n);
    KLAB_LAUNCHED(st->host, st->ctx);
    return KLAB_OK;
}

static klab_status steps_verify(void *state, const klab_case *k, const klab_verify_io *io)
{
    (void)state;
    (void)k;
    /* in: x, s0; out: s after io->steps steps, y of the last step (fp32 sums of steps x, like the GPU's) */
    for (int o = 0; o < 2; o++)
        for (size_t j = 0; j < io->out_count[o]; j++) {
            size_t i = io->sample && io->sample[o] ? io->sample[o][j] : j;
            float v = (float)io->in[1][i];
            for (int64_t t = 0; t < io->steps; t++)
                v += (float)io->in[0][i];
            io->out[o][j] = o == 0 ? (double)v : 2.0 * (double)v;
        }
    return KLAB_OK;
}

static void steps_teardown(void *state)
{
    free(state);
}

static const klab_profile profiles[] = {
    TP_PROFILE("step", "s += x; y = 2 s", 0),
    TP_PROFILE(NULL, NULL, 0),
};
TP_DESCRIPTOR("timer_steps", "a sequence of steps over a state", profiles, steps_setup, steps_run, steps_verify,
              steps_teardown, KLAB_PLUGIN_STEPS, 64)
