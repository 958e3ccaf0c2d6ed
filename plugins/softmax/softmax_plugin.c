/* softmax.so: the descriptor and hooks. Kernels: softmax_fused.cu (the row-kernel skeleton) and
 * softmax_baseline.cu; float64 reference: softmax_reference.c; the per-shape layout: lib/row/row_plan.c. */
#include <cuda_runtime.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "klab/cuda.h"
#include "klab/plugin.h"
#include "softmax.h"

enum { T_X = 0, T_Y, T_E, T_M, T_S };

typedef struct smx_state {
    klab_dtype dtype;
    row_shape shape;
    int cc;
    row_plan_cache plan;
} smx_state;

/* param.spread as a number, or NAN when it is not one. */
static double spread_of(const char *value)
{
    char *end;
    double v = strtod(value, &end);
    return end != value && *end == 0 ? v : NAN;
}

static const char *smx_check_param(const char *key, const char *value)
{
    double v = strcmp(key, "spread") == 0 ? spread_of(value) : 1;
    return v > 0 && v <= 60000 ? NULL : "a number in (0, 60000]";
}

static klab_status smx_setup(klab_ctx *ctx, const klab_host *host, const klab_case *k, void **state)
{
    if (k->rank < 1)
        return host->error(ctx, "case %s: softmax needs a shape [ROWSx]COLS", k->name);
    const char *sp = klab_case_param(k, "spread");
    double spread = sp ? spread_of(sp) : SMX_DEFAULT_SPREAD;
    if (!(spread > 0 && spread <= 60000))
        return host->error(ctx, "case %s: param.spread must be in (0, 60000] (inputs in [-spread, spread))", k->name);
    smx_state *st = calloc(1, sizeof *st);
    if (!st)
        return host->error(ctx, "out of memory");
    *st = (smx_state){k->dtype, row_shape_of(k), host->device_cc(ctx), {ROW_PLAN_NONE, {0}}};
    size_t n = st->shape.rows * st->shape.cols;
    void *x = host->tensor(ctx, "x", KLAB_INPUT, k->dtype, n);
    if (!x || host->fill_uniform(ctx, x, -spread, spread) != KLAB_OK || !host->tensor(ctx, "y", KLAB_OUTPUT, k->dtype, n) ||
        !host->tensor(ctx, "e", KLAB_SCRATCH, KLAB_FP32, n) || !host->tensor(ctx, "m", KLAB_SCRATCH, KLAB_FP32, st->shape.rows) ||
        !host->tensor(ctx, "s", KLAB_SCRATCH, KLAB_FP32, st->shape.rows)) {
        free(st);
        return KLAB_ERROR;
    }
    *state = st;
    return KLAB_OK;
}

static klab_status smx_run(void *state, klab_ctx *ctx, const klab_host *host, const klab_launch *l)
{
    smx_state *st = state;
    void *const *t = l->tensors;
    int e;
    if (l->profile == SMX_FUSED) {
        row_plan p;
        klab_status ks = row_plan_run(host, ctx, st->cc, &st->shape, &row_limits_heavy, l->config, &st->plan, &p);
        if (ks != KLAB_OK)
            return ks;
        e = softmax_fused_launch(st->dtype, t[T_X], t[T_Y], st->shape.rows, st->shape.cols, &p, l->stream);
    } else {
        e = softmax_baseline_launch(st->dtype, t[T_X], t[T_Y], (float *)t[T_E], (float *)t[T_M], (float *)t[T_S],
                                    st->shape.rows, st->shape.cols, l->stream);
    }
    KLAB_CUDA(host, ctx, (cudaError_t)e);
    return KLAB_OK;
}

static klab_status smx_verify(void *state, klab_ctx *ctx, const klab_host *host, const klab_case *k,
                              const klab_verify_io *io)
{
    smx_state *st = state;
    (void)k;
    softmax_reference(host, ctx, io->in[0], io->out[0], st->shape.rows, st->shape.cols);
    return KLAB_OK;
}

static void smx_teardown(void *state)
{
    free(state);
}

static void smx_work(const klab_case *k, klab_work *w)
{
    row_shape s = row_shape_of(k);
    double n = (double)s.rows * (double)s.cols;
    w->bytes = 2.0 * n * (double)s.elem; /* x read, y written */
    w->flops = 5.0 * n;                  /* max, scale-subtract, exp, add, multiply per element */
}

static const char *fused_config(const klab_case *k, int index)
{
    if (k->rank < 1)
        return NULL;
    row_shape s = row_shape_of(k);
    return row_plan_config(&s, &row_limits_heavy, index);
}

static const klab_profile profiles[] = {
    {.name = "baseline", .summary = "unfused: row max, subtract-exp, row sum, divide; 4 kernels, exponentials in memory"},
    {.name = "fused",
     .summary = "row-kernel skeleton: one read, one write on chip; online two-pass where the row does not fit",
     .config = fused_config},
    {.name = NULL},
};

static const char *const params[] = {"spread", NULL};

static const klab_plugin descriptor = {
    KLAB_DESCRIPTOR_HEADER,
    .name = "softmax",
    .version = "1.1.0",
    .summary = "softmax over the last dimension: y = exp(x - max) / sum(exp(x - max))",
    .profiles = profiles,
    .baseline = "baseline",
    .dtypes = KLAB_FLOAT_DTYPES,
    .min_cc = 0,
    .params = params,
    .setup = smx_setup,
    .teardown = smx_teardown,
    .work = smx_work,
    .tolerance = NULL,
    .run_host = smx_run,
    .verify_host = smx_verify,
    .check_param = smx_check_param,
};

KLAB_PLUGIN_ENTRY(descriptor)
