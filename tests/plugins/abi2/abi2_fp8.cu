/* abi2_fp8.so: an fp8 tensor in and an fp8 tensor out, y = 1.5 x in e4m3 or e5m2: the host fills fp8,
 * poisons fp8, widens fp8 exactly and judges with the dtype's default tolerance (one rounding). */
#include "abi2.cuh"

template <typename T> __global__ void scale_kernel(const T *__restrict__ x, T *__restrict__ y, size_t n)
{
    ABI2_FOR(i, n) y[i] = T(1.5f * float(x[i]));
}

static klab_status fp8_setup(klab_ctx *ctx, const klab_host *host, const klab_case *k, void **state)
{
    return abi2_setup_xy(ctx, host, k, k->dtype, state);
}

static klab_status fp8_run(void *state, const klab_launch *l)
{
    abi2_state *st = (abi2_state *)state;
    KLAB_DISPATCH_FP8(st->dtype, T, {
        scale_kernel<T><<<abi2_grid(st->n), 256, 0, l->stream>>>((const T *)l->tensors[0], (T *)l->tensors[1], st->n);
        KLAB_LAUNCHED(st->host, st->ctx);
        return KLAB_OK;
    })
    return st->host->error(st->ctx, "dtype %d is not fp8", (int)st->dtype);
}

static klab_status fp8_verify(void *state, const klab_case *k, const klab_verify_io *io)
{
    (void)state;
    (void)k;
    for (size_t i = 0; i < io->out_count[0]; i++)
        io->out[0][i] = 1.5 * io->in[0][i];
    return KLAB_OK;
}

static void fp8_work(const klab_case *k, klab_work *w)
{
    w->bytes = 2.0 * (double)klab_case_elements(k) * (double)klab_dtype_size(k->dtype);
    w->flops = (double)klab_case_elements(k);
}

static const klab_profile profiles[] = {ABI2_PROFILE("scale", "y = 1.5 x, rounded once to fp8", NULL, NULL), ABI2_END};
ABI2_DESCRIPTOR("abi2_fp8", "fp8 in, fp8 out", profiles,
                KLAB_DTYPE_BIT(KLAB_FP8_E4M3) | KLAB_DTYPE_BIT(KLAB_FP8_E5M2), 0, 0, fp8_setup, fp8_run, fp8_verify,
                fp8_work)
