/* vector_add.so: the descriptor and hooks. Kernels: vector_add_kernels.cu; float64 reference:
 * vector_add_reference.c. */
#include <cuda_runtime.h>
#include <stdlib.h>
#include <string.h>

#include "klab/cuda.h"
#include "klab/plugin.h"
#include "vector_add.h"

/* Tensor indices in launch->tensors: a, then b (add, triad), then c. */
typedef struct va_state {
    int op;
    klab_dtype dtype;
    size_t n;
    int ia, ib, ic;
} va_state;

/* param.op, copy when absent; -1 when it names no op. */
static int case_op(const klab_case *k)
{
    const char *op = klab_case_param(k, "op");
    return op ? vector_add_op(op) : VA_COPY;
}

static klab_status va_setup(klab_ctx *ctx, const klab_host *host, const klab_case *k, void **state)
{
    int op = case_op(k);
    if (op < 0)
        return host->error(ctx, "param.op must be copy, add or triad");
    va_state *st = calloc(1, sizeof *st);
    if (!st)
        return host->error(ctx, "out of memory");
    st->op = op;
    st->dtype = k->dtype;
    st->n = klab_case_elements(k);
    int made = 0, ok = host->tensor(ctx, "a", KLAB_INPUT, k->dtype, st->n) != NULL;
    st->ia = made++;
    if (ok && op != VA_COPY) {
        ok = host->tensor(ctx, "b", KLAB_INPUT, k->dtype, st->n) != NULL;
        st->ib = made++;
    }
    if (ok) {
        ok = host->tensor(ctx, "c", KLAB_OUTPUT, k->dtype, st->n) != NULL;
        st->ic = made++;
    }
    if (!ok) {
        free(st);
        return KLAB_ERROR;
    }
    *state = st;
    return KLAB_OK;
}

static klab_status va_run(void *state, klab_ctx *ctx, const klab_host *host, const klab_launch *l)
{
    va_state *st = state;
    void *const *t = l->tensors;
    void *b = st->op == VA_COPY ? NULL : t[st->ib];
    if (l->profile == VA_MEMCPY) {
        if (st->op != VA_COPY) {
            host->error(ctx, "memcpy does only op = copy");
            return KLAB_UNSUPPORTED;
        }
        KLAB_CUDA(host, ctx, cudaMemcpyAsync(t[st->ic], t[st->ia], st->n * klab_dtype_size(st->dtype),
                                             cudaMemcpyDeviceToDevice, l->stream));
        return KLAB_OK;
    }
    KLAB_CUDA(host, ctx,
              (cudaError_t)vector_add_launch(l->profile, st->op, st->dtype, t[st->ia], b, t[st->ic], st->n, l->stream));
    return KLAB_OK;
}

static klab_status va_verify(void *state, klab_ctx *ctx, const klab_host *host, const klab_case *k,
                             const klab_verify_io *io)
{
    (void)k;
    va_state *st = state;
    vector_add_reference(host, ctx, st->op, io->in[0], st->op == VA_COPY ? NULL : io->in[1], io->out[0],
                         io->out_count[0]);
    return KLAB_OK;
}

static void va_teardown(void *state)
{
    free(state);
}

static void va_work(const klab_case *k, klab_work *w)
{
    int op = case_op(k);
    double n = (double)klab_case_elements(k), bytes = n * (double)klab_dtype_size(k->dtype);
    w->bytes = (op == VA_COPY ? 2 : 3) * bytes;
    w->flops = op == VA_ADD ? n : op == VA_TRIAD ? 2 * n : 0;
}

static const char *va_check_param(const char *key, const char *value)
{
    return strcmp(key, "op") == 0 && vector_add_op(value) < 0 ? "copy, add or triad" : NULL;
}

static const klab_profile profiles[] = {KLAB_PROFILE_TABLE(VA_PROFILES)};

static const char *const params[] = {"op", NULL};

static const klab_plugin descriptor = {
    KLAB_DESCRIPTOR_HEADER,
    .name = "vector_add",
    .version = "2.0.0",
    .summary = "memory primitives (param.op = copy, add, triad) in versions, naive to fast",
    .profiles = profiles,
    .baseline = "naive",
    .dtypes = KLAB_DTYPE_BIT(KLAB_FP32) | KLAB_DTYPE_BIT(KLAB_FP16) | KLAB_DTYPE_BIT(KLAB_BF16),
    .min_cc = 0,
    .params = params,
    .setup = va_setup,
    .teardown = va_teardown,
    .work = va_work,
    .tolerance = NULL,
    .run_host = va_run,
    .verify_host = va_verify,
    .check_param = va_check_param,
};

KLAB_PLUGIN_ENTRY(descriptor)
