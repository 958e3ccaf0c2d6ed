/* abi2_steps.so: a step plugin (KLAB_PLUGIN_STEPS, 4 steps by default). Step s adds x to the state
 * `acc` and writes it to y, and adds s + 1 to the state `count`: after a sequence of S steps from the
 * initial states, acc = acc0 + S x, y = acc and count = count0 + S (S + 1) / 2, which holds only if
 * every step ran once, in order, with its own index, on states restored before the sequence.
 * wrong_last skips the update of acc[0..63] in the last step: y is right, the state is not, and the
 * row must say so (64 elements, so no x small enough to hide in the tolerance saves it). */
#include "abi2.cuh"

enum { PLAIN = 0, WRONG_LAST };
enum { T_X = 0, T_ACC, T_COUNT, T_Y }; /* verify() sees in = {x, acc, count}, out = {acc, count, y} */

__global__ void step_kernel(const float *__restrict__ x, float *acc, int32_t *count, float *__restrict__ y, size_t n,
                            long long step, int skip_head)
{
    ABI2_FOR(i, n)
    {
        float a = acc[i] + x[i];
        if (!(skip_head && i < 64))
            acc[i] = a;
        y[i] = a;
    }
    if (blockIdx.x == 0 && threadIdx.x == 0)
        count[0] += (int32_t)(step + 1);
}

static klab_status steps_setup(klab_ctx *ctx, const klab_host *host, const klab_case *k, void **state)
{
    abi2_state *st = abi2_state_new(ctx, host, k);
    if (!st)
        return KLAB_ERROR;
    if (!host->tensor(ctx, "x", KLAB_INPUT, KLAB_FP32, st->n) || !host->tensor(ctx, "acc", KLAB_STATE, KLAB_FP32, st->n) ||
        !host->tensor(ctx, "count", KLAB_STATE, KLAB_INT32, 1) || !host->tensor(ctx, "y", KLAB_OUTPUT, KLAB_FP32, st->n)) {
        free(st);
        return KLAB_ERROR;
    }
    *state = st;
    return KLAB_OK;
}

static klab_status steps_run(void *state, const klab_launch *l)
{
    abi2_state *st = (abi2_state *)state;
    if (l->step < 0 || l->step >= st->steps)
        return st->host->error(st->ctx, "step %lld outside 0..%lld", (long long)l->step, (long long)st->steps - 1);
    void *const *t = l->tensors;
    step_kernel<<<abi2_grid(st->n), 256, 0, l->stream>>>((const float *)t[T_X], (float *)t[T_ACC], (int32_t *)t[T_COUNT],
                                                         (float *)t[T_Y], st->n, (long long)l->step,
                                                         l->profile == WRONG_LAST && l->step == st->steps - 1);
    KLAB_LAUNCHED(st->host, st->ctx);
    return KLAB_OK;
}

static klab_status steps_verify(void *state, const klab_case *k, const klab_verify_io *io)
{
    (void)state;
    (void)k;
    if (io->n_in != 3 || io->n_out != 3)
        return KLAB_ERROR;
    double s = (double)io->steps;
    const double *x = io->in[0], *acc0 = io->in[1];
    for (size_t i = 0; i < io->out_count[0]; i++)
        io->out[0][i] = io->out[2][i] = acc0[i] + s * x[i];
    io->out[1][0] = io->in[2][0] + s * (s + 1) / 2;
    return KLAB_OK;
}

static const klab_profile profiles[] = {ABI2_PROFILE("plain", "acc += x; y = acc; count += step + 1", NULL, NULL),
                                        ABI2_PROFILE("wrong_last", "the last step forgets acc[0..63]", NULL, NULL), ABI2_END};
ABI2_DESCRIPTOR("abi2_steps", "a step plugin with states", profiles, KLAB_DTYPE_BIT(KLAB_FP32), KLAB_PLUGIN_STEPS, 4,
                steps_setup, steps_run, steps_verify, NULL)
