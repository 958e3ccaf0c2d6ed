/* rmsnorm.so: the descriptor and hooks. Kernels: rmsnorm_fused.cu (the row-kernel skeleton) and
 * rmsnorm_baseline.cu; float64 reference: lib/row/rms.c; the per-shape layout: lib/row/row_plan.c. */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "klab/cuda.h"
#include "klab/plugin.h"
#include "rmsnorm.h"

typedef struct rms_state {
    klab_ctx *ctx;
    const klab_host *host;
    klab_dtype dtype;
    row_shape shape;
    float eps;
    int residual, cc;
    row_plan_cache plan;
    /* where run() finds each tensor in launch->tensors (-1: not made) */
    int tx, tr, tw, ty, th, tsq, tinv, tt;
} rms_state;

/* param.residual: 0 (plain) or 1 (h = x + r, y = rmsnorm(h) * w); -1 when it is neither. */
static int residual_of(const klab_case *k)
{
    const char *v = klab_case_param(k, "residual");
    if (!v || !strcmp(v, "0"))
        return 0;
    return !strcmp(v, "1") ? 1 : -1;
}

/* The plans a case may take: the residual form reads x and r, and a ring plan copies one tensor's rows;
   fp16 and fp32 kernels of 4 vectors a thread fit two blocks an SM (rms_op.cuh), bf16's spilled there. */
static const row_limits *limits_of(int residual, klab_dtype d)
{
    return residual ? &row_limits_no_ring : d == KLAB_BF16 ? &row_limits_any : &row_limits_fit4;
}

static int make(rms_state *st, const char *name, klab_role role, klab_dtype d, size_t n, int *index, int *made)
{
    if (!st->host->tensor(st->ctx, name, role, d, n))
        return -1;
    *index = (*made)++;
    return 0;
}

static klab_status rms_setup(klab_ctx *ctx, const klab_host *host, const klab_case *k, void **state)
{
    if (k->rank < 2)
        return host->error(ctx, "case %s: rmsnorm needs a shape ROWSxCOLS, got rank %d", k->name, k->rank);
    float eps = 0;
    klab_status ks = rmsnorm_eps_of(ctx, host, k, &eps);
    if (ks != KLAB_OK)
        return ks;
    int residual = residual_of(k);
    if (residual < 0)
        return host->error(ctx, "case %s: param.residual must be 0 or 1", k->name);
    rms_state *st = calloc(1, sizeof *st);
    if (!st)
        return host->error(ctx, "out of memory");
    *st = (rms_state){ctx, host, k->dtype, row_shape_of(k), eps, residual, host->device_cc(ctx), {ROW_PLAN_NONE, {0}},
                      -1, -1, -1, -1, -1, -1, -1, -1};
    size_t n = st->shape.rows * st->shape.cols;
    int made = 0;
    if (make(st, "x", KLAB_INPUT, k->dtype, n, &st->tx, &made) ||
        (residual && make(st, "r", KLAB_INPUT, k->dtype, n, &st->tr, &made)) ||
        make(st, "w", KLAB_INPUT, k->dtype, st->shape.cols, &st->tw, &made) ||
        make(st, "y", KLAB_OUTPUT, k->dtype, n, &st->ty, &made) ||
        (residual && make(st, "h", KLAB_OUTPUT, k->dtype, n, &st->th, &made)) ||
        make(st, "sq", KLAB_SCRATCH, KLAB_FP32, n, &st->tsq, &made) ||
        make(st, "inv", KLAB_SCRATCH, KLAB_FP32, st->shape.rows, &st->tinv, &made) ||
        make(st, "t", KLAB_SCRATCH, k->dtype, n, &st->tt, &made)) {
        free(st);
        return KLAB_ERROR;
    }
    *state = st;
    return KLAB_OK;
}

static void *at(void *const *t, int i)
{
    return i >= 0 ? t[i] : NULL;
}

static klab_status rms_run(void *state, const klab_launch *l)
{
    rms_state *st = state;
    void *const *t = l->tensors;
    int e;
    if (l->profile == RMS_FUSED) {
        row_plan p;
        klab_status ks = row_plan_run(st->host, st->ctx, st->cc, &st->shape, limits_of(st->residual, st->dtype),
                                     l->config, &st->plan, &p);
        if (ks != KLAB_OK)
            return ks;
        e = rmsnorm_fused_launch(st->dtype, t[st->tx], at(t, st->tr), t[st->tw], t[st->ty], at(t, st->th),
                                 st->shape.rows, st->shape.cols, st->eps, &p, l->stream);
    } else {
        e = rmsnorm_baseline_launch(st->dtype, t[st->tx], at(t, st->tr), t[st->tw], t[st->ty], at(t, st->th),
                                    (float *)t[st->tsq], (float *)t[st->tinv], t[st->tt], st->shape.rows,
                                    st->shape.cols, st->eps, l->stream);
    }
    KLAB_CUDA(st->host, st->ctx, (cudaError_t)e);
    return KLAB_OK;
}

static klab_status rms_verify(void *state, const klab_case *k, const klab_verify_io *io)
{
    rms_state *st = state;
    (void)k;
    if (st->residual)
        rmsnorm_residual_reference(st->host, st->ctx, io->in[0], io->in[1], io->in[2], io->out[0], io->out[1],
                                   st->shape.rows, st->shape.cols, st->eps);
    else
        rmsnorm_reference(st->host, st->ctx, io->in[0], io->in[1], io->out[0], st->shape.rows, st->shape.cols,
                          st->eps);
    return KLAB_OK;
}

static void rms_teardown(void *state)
{
    free(state);
}

static void rms_work(const klab_case *k, klab_work *w)
{
    row_shape s = row_shape_of(k);
    double n = (double)s.rows * (double)s.cols, elem = (double)s.elem;
    int res = residual_of(k) == 1;
    /* x (and r) read, y (and h) written, w read once */
    w->bytes = ((res ? 4.0 : 2.0) * n + (double)s.cols) * elem;
    w->flops = (res ? 5.0 : 4.0) * n; /* (add,) square-add, then two multiplies, per element */
}

static const char *fused_config(const klab_case *k, int index)
{
    if (k->rank < 2)
        return NULL;
    row_shape s = row_shape_of(k);
    int residual = residual_of(k);
    return residual < 0 ? NULL : row_plan_config(&s, limits_of(residual, k->dtype), index);
}

static const klab_profile profiles[] = {
    {.name = "baseline", .summary = "unfused: square, mean, rsqrt, two multiplies; 5 kernels, intermediates in memory"},
    {.name = "fused",
     .summary = "row-kernel skeleton: one read, one write; rows packed, split across a cluster, or streamed",
     .config = fused_config},
    {.name = NULL},
};

static const char *const params[] = {"eps", "residual", NULL};

static const klab_plugin descriptor = {
    KLAB_DESCRIPTOR_HEADER,
    .name = "rmsnorm",
    .version = "3.1.0",
    .summary = "RMSNorm over the last dimension: y = x / sqrt(mean(x^2) + eps) * w (param.residual: of x + r)",
    .profiles = profiles,
    .baseline = "baseline",
    .dtypes = KLAB_FLOAT_DTYPES,
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
