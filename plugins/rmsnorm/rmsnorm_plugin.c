/* rmsnorm.so: the descriptor and hooks. Kernels: rmsnorm_fused.cu and rmsnorm_baseline.cu; float64
 * reference: rmsnorm_reference.c. */
#include <cuda_runtime.h>
#include <stdlib.h>

#include "klab/cuda.h"
#include "klab/plugin.h"
#include "rmsnorm.h"

/* The tensors, in the order setup makes them: where run() finds them in launch->tensors. */
enum { T_X = 0, T_W, T_Y, T_SQ, T_INV, T_T };

typedef struct rms_state {
    klab_ctx *ctx;
    const klab_host *host;
    klab_dtype dtype;
    size_t rows, cols;
    float eps;
    rmsnorm_tuning tuning;
} rms_state;

/* The last dimension is normalised; all leading ones are rows. */
static void shape(const klab_case *k, size_t *rows, size_t *cols)
{
    *cols = (size_t)k->dims[k->rank - 1];
    *rows = 1;
    for (int i = 0; i < k->rank - 1; i++)
        *rows *= (size_t)k->dims[i];
}

static int int_param(const klab_case *k, const char *key, int dflt)
{
    const char *v = klab_case_param(k, key);
    return v ? atoi(v) : dflt;
}

static klab_status rms_setup(klab_ctx *ctx, const klab_host *host, const klab_case *k, void **state)
{
    if (k->rank < 2)
        return host->error(ctx, "rmsnorm needs a shape ROWSxCOLS, got rank %d", k->rank);
    const char *e = klab_case_param(k, "eps");
    double eps = e ? strtod(e, NULL) : RMS_DEFAULT_EPS;
    if (!(eps > 0 && eps < 1))
        return host->error(ctx, "param.eps must be in (0, 1)");
    rms_state *st = calloc(1, sizeof *st);
    if (!st)
        return host->error(ctx, "out of memory");
    st->ctx = ctx;
    st->host = host;
    st->dtype = k->dtype;
    st->eps = (float)eps;
    st->tuning.threads = int_param(k, "threads", 0);
    st->tuning.w_late = int_param(k, "w_late", 1); /* the H200 sweep's choice (docs/notes/rmsnorm.md) */
    st->tuning.prefetch = int_param(k, "prefetch", 0);
    if (st->tuning.threads != 0 && (st->tuning.threads < 32 || st->tuning.threads > 1024)) {
        free(st);
        return host->error(ctx, "param.threads must be 0 (automatic) or 32..1024");
    }
    shape(k, &st->rows, &st->cols);
    size_t n = st->rows * st->cols;
    if (host->tensor(ctx, "x", KLAB_INPUT, k->dtype, n) && host->tensor(ctx, "w", KLAB_INPUT, k->dtype, st->cols) &&
        host->tensor(ctx, "y", KLAB_OUTPUT, k->dtype, n) && host->tensor(ctx, "sq", KLAB_SCRATCH, KLAB_FP32, n) &&
        host->tensor(ctx, "inv", KLAB_SCRATCH, KLAB_FP32, st->rows) &&
        host->tensor(ctx, "t", KLAB_SCRATCH, k->dtype, n)) {
        *state = st;
        return KLAB_OK;
    }
    free(st);
    return KLAB_ERROR;
}

static klab_status rms_run(void *state, const klab_launch *l)
{
    rms_state *st = state;
    void *const *t = l->tensors;
    int e = l->profile == RMS_FUSED
                ? rmsnorm_fused_launch(st->dtype, t[T_X], t[T_W], t[T_Y], st->rows, st->cols, st->eps, &st->tuning,
                                       l->stream)
                : rmsnorm_baseline_launch(st->dtype, t[T_X], t[T_W], t[T_Y], (float *)t[T_SQ], (float *)t[T_INV],
                                          t[T_T], st->rows, st->cols, st->eps, l->stream);
    KLAB_CUDA(st->host, st->ctx, (cudaError_t)e);
    return KLAB_OK;
}

static klab_status rms_verify(void *state, const klab_case *k, const klab_verify_io *io)
{
    rms_state *st = state;
    (void)k;
    rmsnorm_reference(io->in[0], io->in[1], io->out[0], st->rows, st->cols, st->eps);
    return KLAB_OK;
}

static void rms_teardown(void *state)
{
    free(state);
}

static void rms_work(const klab_case *k, klab_work *w)
{
    size_t rows, cols;
    shape(k, &rows, &cols);
    double elem = (double)klab_dtype_size(k->dtype);
    w->bytes = (2.0 * rows * cols + cols) * elem; /* x read, y written, w read once */
    w->flops = 4.0 * rows * cols;                 /* square-add, then two multiplies, per element */
}

static const klab_profile profiles[] = {
    {.name = "baseline", .summary = "unfused: square, mean, rsqrt, two multiplies; 5 kernels, intermediates in memory"},
    {.name = "fused", .summary = "one pass: 16-byte loads, row in registers, float accumulation, one rounding"},
    {.name = NULL},
};

static const char *const params[] = {"eps", "threads", "w_late", "prefetch", NULL};

static const klab_plugin descriptor = {
    KLAB_DESCRIPTOR_HEADER,
    .name = "rmsnorm",
    .version = "2.0.0",
    .summary = "RMSNorm over the last dimension: y = x / sqrt(mean(x^2) + eps) * w",
    .profiles = profiles,
    .baseline = "baseline",
    .dtypes = KLAB_DTYPE_BIT(KLAB_FP32) | KLAB_DTYPE_BIT(KLAB_FP16) | KLAB_DTYPE_BIT(KLAB_BF16),
    .min_cc = 0,
    .params = params,
    .setup = rms_setup,
    .run = rms_run,
    .verify = rms_verify,
    .teardown = rms_teardown,
    .work = rms_work,
    .tolerance = NULL,
};

KLAB_PLUGIN_ENTRY(descriptor)
