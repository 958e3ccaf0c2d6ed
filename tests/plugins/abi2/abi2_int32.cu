/* abi2_int32.so: a structured int32 input, y = 3 lens + 1. setup computes `lens` (1..1000, from the
 * host's seed) and gives it to fill_data; verify() reads it exactly through io->in_raw. Integer
 * outputs compare exactly: off_by_one is caught at its one element. modifies_input zeroes lens[0]
 * after computing: the host must say so and refill lens from the plugin's data, not with random
 * values, or `after`, verified next, would fail. */
#include "abi2.cuh"

enum { PLAIN = 0, OFF_BY_ONE, MODIFIES_INPUT, AFTER };

__global__ void lens_kernel(const int32_t *__restrict__ lens, int32_t *__restrict__ y, size_t n, int off_by_one)
{
    ABI2_FOR(i, n) y[i] = 3 * lens[i] + 1 + (off_by_one && i == n - 1);
}

static klab_status int32_setup(klab_ctx *ctx, const klab_host *host, const klab_case *k, void **state)
{
    abi2_state *st = abi2_state_new(ctx, host, k);
    if (!st)
        return KLAB_ERROR;
    int32_t *lens = (int32_t *)malloc(st->n * sizeof *lens);
    void *t = lens ? host->tensor(ctx, "lens", KLAB_INPUT, KLAB_INT32, st->n) : NULL;
    klab_status rc = t && host->tensor(ctx, "y", KLAB_OUTPUT, KLAB_INT32, st->n) ? KLAB_OK : KLAB_ERROR;
    if (rc == KLAB_OK) {
        uint64_t x = host->seed(ctx);
        for (size_t i = 0; i < st->n; i++) {
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            lens[i] = 1 + (int32_t)((x >> 33) % 1000);
        }
        rc = host->fill_data(ctx, t, lens, st->n);
    }
    free(lens);
    if (rc != KLAB_OK) {
        free(st);
        return rc;
    }
    *state = st;
    return KLAB_OK;
}

static klab_status int32_run(void *state, const klab_launch *l)
{
    abi2_state *st = (abi2_state *)state;
    int32_t *lens = (int32_t *)l->tensors[0];
    lens_kernel<<<abi2_grid(st->n), 256, 0, l->stream>>>(lens, (int32_t *)l->tensors[1], st->n, l->profile == OFF_BY_ONE);
    KLAB_LAUNCHED(st->host, st->ctx);
    if (l->profile == MODIFIES_INPUT)
        KLAB_CUDA(st->host, st->ctx, cudaMemsetAsync(lens, 0, sizeof *lens, l->stream));
    return KLAB_OK;
}

static klab_status int32_verify(void *state, const klab_case *k, const klab_verify_io *io)
{
    (void)state;
    (void)k;
    if (io->n_in != 1 || io->in_dtype[0] != KLAB_INT32)
        return KLAB_ERROR;
    const int32_t *lens = (const int32_t *)io->in_raw[0];
    for (size_t i = 0; i < io->out_count[0]; i++)
        io->out[0][i] = 3.0 * lens[i] + 1;
    return KLAB_OK;
}

static const klab_profile profiles[] = {
    ABI2_PROFILE("plain", "y = 3 lens + 1", NULL, NULL),
    ABI2_PROFILE("off_by_one", "the last element one too large", NULL, NULL),
    ABI2_PROFILE("modifies_input", "right, then zeroes lens[0]", NULL, NULL),
    ABI2_PROFILE("after", "plain again, verified after the refill", NULL, NULL),
    ABI2_END};
ABI2_DESCRIPTOR("abi2_int32", "an int32 input the plugin computes", profiles, KLAB_DTYPE_BIT(KLAB_INT32), 0, 0,
                int32_setup, int32_run, int32_verify, NULL)
