/* Work that escapes the timed stream, three ways, beside an honest profile. Each must be timed right
 * or flagged "work outside the timed stream", never get a time below its real cost. */
#include <cublas_v2.h>

#include "twice.cuh"

enum { HONEST = 0, STREAM0, PRIVATE, CUBLAS_UNBOUND };

static klab_status escape_setup(klab_ctx *ctx, const klab_host *host, const klab_case *k, void **state)
{
    klab_status rc = twice_setup(ctx, host, k, state);
    if (rc != KLAB_OK)
        return rc;
    twice_state *st = (twice_state *)*state;
    if (cudaStreamCreateWithFlags(&st->own, cudaStreamNonBlocking) != cudaSuccess)
        return host->error(ctx, "cudaStreamCreate failed");
    cublasHandle_t h;
    if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS)
        return host->error(ctx, "cublasCreate failed");
    st->handle = h; /* never bound to the stream run() gets: cuBLAS uses the legacy default stream */
    return KLAB_OK;
}

static klab_status escape_run(void *state, const klab_launch *l)
{
    twice_state *st = (twice_state *)state;
    const float *x = TWICE_X(l);
    float *y = TWICE_Y(l);
    switch (l->profile) {
    case HONEST:
        twice_kernel<<<twice_grid(st->n), 256, 0, l->stream>>>(x, y, st->n, 2.0f);
        break;
    case STREAM0:
        twice_kernel<<<twice_grid(st->n), 256, 0, 0>>>(x, y, st->n, 2.0f);
        break;
    case PRIVATE:
        twice_kernel<<<twice_grid(st->n), 256, 0, st->own>>>(x, y, st->n, 2.0f);
        break;
    default: {
        /* y = x, then y = 2 y: two cuBLAS calls on whatever stream the handle has */
        cublasHandle_t h = (cublasHandle_t)st->handle;
        if (cublasScopy(h, (int)st->n, x, 1, y, 1) != CUBLAS_STATUS_SUCCESS)
            return st->host->error(st->ctx, "cublasScopy failed");
        const float two = 2.0f;
        if (cublasSscal(h, (int)st->n, &two, y, 1) != CUBLAS_STATUS_SUCCESS)
            return st->host->error(st->ctx, "cublasSscal failed");
        return KLAB_OK;
    }
    }
    KLAB_LAUNCHED(st->host, st->ctx);
    return KLAB_OK;
}

static void escape_teardown(void *state)
{
    twice_state *st = (twice_state *)state;
    if (st->handle)
        cublasDestroy((cublasHandle_t)st->handle);
    if (st->own)
        cudaStreamDestroy(st->own);
    free(st);
}

static const klab_profile profiles[] = {
    TWICE_PROFILE("honest", "on the stream it is given"),
    TWICE_PROFILE("stream0", "on the legacy default stream"),
    TWICE_PROFILE("private", "on a stream of its own"),
    TWICE_PROFILE("cublas_unbound", "through a cuBLAS handle never bound to the stream"),
    TWICE_PROFILES_END,
};
TWICE_DESCRIPTOR("gpu_escape", "launches outside the timed stream", profiles, escape_setup, escape_run, escape_teardown, 0)
