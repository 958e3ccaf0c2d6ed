/* abi2_sampled.so: y = 2 x with sampled verification (half of the elements, fresh each verified run).
 * one_wrong writes one element wrong on every run: a run whose sample misses it passes, and the
 * element is found across runs (tests/gpu_ini/abi2_sampled.ini has many cases, each with its own
 * samples). verify() computes only the sampled elements. */
#include "abi2.cuh"

__global__ void twice_kernel(const float *__restrict__ x, float *__restrict__ y, size_t n, size_t wrong)
{
    ABI2_FOR(i, n) y[i] = 2.0f * x[i] + (i == wrong ? 1.0f : 0.0f);
}

/* The element one_wrong gets wrong. */
static size_t wrong_index(size_t n)
{
    return n / 3;
}

static klab_status sampled_setup(klab_ctx *ctx, const klab_host *host, const klab_case *k, void **state)
{
    abi2_state *st = abi2_state_new(ctx, host, k);
    if (!st)
        return KLAB_ERROR;
    if (!host->tensor(ctx, "x", KLAB_INPUT, KLAB_FP32, st->n) || !host->tensor(ctx, "y", KLAB_OUTPUT, KLAB_FP32, st->n) ||
        host->sample_outputs(ctx, st->n / 2) != KLAB_OK) {
        free(st);
        return KLAB_ERROR;
    }
    *state = st;
    return KLAB_OK;
}

static klab_status sampled_run(void *state, const klab_launch *l)
{
    abi2_state *st = (abi2_state *)state;
    twice_kernel<<<abi2_grid(st->n), 256, 0, l->stream>>>((const float *)l->tensors[0], (float *)l->tensors[1], st->n,
                                                          l->profile == 1 ? wrong_index(st->n) : (size_t)-1);
    KLAB_LAUNCHED(st->host, st->ctx);
    return KLAB_OK;
}

static klab_status sampled_verify(void *state, const klab_case *k, const klab_verify_io *io)
{
    (void)state;
    (void)k;
    const size_t *sample = io->sample ? io->sample[0] : NULL;
    for (size_t j = 0; j < io->out_count[0]; j++)
        io->out[0][j] = 2.0 * io->in[0][sample ? sample[j] : j];
    return KLAB_OK;
}

static const klab_profile profiles[] = {ABI2_PROFILE("honest", "y = 2 x", NULL, NULL),
                                        ABI2_PROFILE("one_wrong", "y = 2 x but for one element, every run", NULL, NULL),
                                        ABI2_END};
ABI2_DESCRIPTOR("abi2_sampled", "sampled verification", profiles, KLAB_DTYPE_BIT(KLAB_FP32), 0, 0, sampled_setup,
                sampled_run, sampled_verify, NULL)
