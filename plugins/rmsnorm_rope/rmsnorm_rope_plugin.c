/* rmsnorm_rope.so: the descriptor and hooks. Kernels: rmsnorm_rope_fused.cu (the row-kernel skeleton
 * with the RoPE op) and rmsnorm_rope_baseline.cu; geometry, tables and the float64 reference:
 * lib/row/rope.c (decode_replay.so's tables too). */
#include <cuda_runtime.h>
#include <stdlib.h>

#include "klab/cuda.h"
#include "klab/plugin.h"
#include "rmsnorm_rope.h"
#include "row/rms.h"

enum { T_X = 0, T_W, T_POS, T_COS, T_SIN, T_Y, T_T };

typedef struct rope_state {
    klab_ctx *ctx;
    const klab_host *host;
    klab_dtype dtype;
    rope_geom g;
    row_shape shape;
    row_limits lim;
    float eps;
    int cc;
    row_plan_cache fused, norm; /* the fused plan; the baseline's RMSNorm (rmsnorm.so's own choice) */
} rope_state;

/* The tables and positions the case needs, made on the host and given to the device. */
static klab_status fill(rope_state *st, void *pos, void *cos_t, void *sin_t)
{
    const size_t ntab = st->g.cache * st->g.head_dim / 2;
    int32_t *p = malloc(st->g.tokens * sizeof *p);
    float *c = malloc(ntab * sizeof *c), *s = malloc(ntab * sizeof *s);
    klab_status ks = KLAB_ERROR;
    if (p && c && s) {
        rope_positions(&st->g, st->host->seed(st->ctx), p);
        rope_tables(&st->g, c, s);
        ks = st->host->fill_data(st->ctx, pos, p, st->g.tokens);
        if (ks == KLAB_OK)
            ks = st->host->fill_data(st->ctx, cos_t, c, ntab);
        if (ks == KLAB_OK)
            ks = st->host->fill_data(st->ctx, sin_t, s, ntab);
    } else {
        st->host->error(st->ctx, "out of memory");
    }
    free(p);
    free(c);
    free(s);
    return ks;
}

static klab_status rope_setup(klab_ctx *ctx, const klab_host *host, const klab_case *k, void **state)
{
    rope_geom g;
    char why[400];
    if (rope_geometry(k, &g, why, sizeof why) != 0)
        return host->error(ctx, "%s", why);
    float eps = 0;
    klab_status ks = rmsnorm_eps_of(ctx, host, k, &eps);
    if (ks != KLAB_OK)
        return ks;
    row_shape shape = {g.tokens, g.hidden, klab_dtype_size(k->dtype)};
    row_limits lim = rope_limits(&g, shape.elem);
    row_plan p;
    if (row_plan_choose(&shape, &lim, &p, why, sizeof why) != 0)
        return host->error(ctx, "case %s: the fused kernel holds a token's row in one block: %s", k->name, why);
    rope_state *st = calloc(1, sizeof *st);
    if (!st)
        return host->error(ctx, "out of memory");
    *st = (rope_state){ctx, host, k->dtype, g, shape, lim, eps, host->device_cc(ctx),
                       {ROW_PLAN_NONE, {0}}, {ROW_PLAN_NONE, {0}}};
    const size_t n = g.tokens * g.hidden, ntab = g.cache * g.head_dim / 2;
    void *x = host->tensor(ctx, "x", KLAB_INPUT, k->dtype, n);
    void *w = x ? host->tensor(ctx, "w", KLAB_INPUT, k->dtype, g.hidden) : NULL;
    void *pos = w ? host->tensor(ctx, "pos", KLAB_INPUT, KLAB_INT32, g.tokens) : NULL;
    void *c = pos ? host->tensor(ctx, "cos", KLAB_INPUT, KLAB_FP32, ntab) : NULL;
    void *s = c ? host->tensor(ctx, "sin", KLAB_INPUT, KLAB_FP32, ntab) : NULL;
    if (!s || fill(st, pos, c, s) != KLAB_OK || !host->tensor(ctx, "y", KLAB_OUTPUT, k->dtype, n) ||
        !host->tensor(ctx, "t", KLAB_SCRATCH, k->dtype, n)) {
        free(st);
        return KLAB_ERROR;
    }
    *state = st;
    return KLAB_OK;
}

static klab_status rope_run(void *state, const klab_launch *l)
{
    rope_state *st = state;
    void *const *t = l->tensors;
    row_plan p;
    klab_status ks = l->profile == ROPE_FUSED
                         ? row_plan_run(st->host, st->ctx, st->cc, &st->shape, &st->lim, l->config, &st->fused, &p)
                         : row_plan_run(st->host, st->ctx, st->cc, &st->shape, &row_limits_any, -1, &st->norm, &p);
    if (ks != KLAB_OK)
        return ks;
    int e = l->profile == ROPE_FUSED
                ? rmsnorm_rope_fused_launch(st->dtype, &st->g, t[T_X], t[T_W], t[T_POS], t[T_COS], t[T_SIN], t[T_Y],
                                            st->eps, &p, l->stream)
                : rmsnorm_rope_baseline_launch(st->dtype, &st->g, t[T_X], t[T_W], t[T_POS], t[T_COS], t[T_SIN], t[T_T],
                                               t[T_Y], st->eps, &p, l->stream);
    KLAB_CUDA(st->host, st->ctx, (cudaError_t)e);
    return KLAB_OK;
}

static klab_status rope_verify(void *state, const klab_case *k, const klab_verify_io *io)
{
    rope_state *st = state;
    (void)k;
    rmsnorm_rope_reference(st->host, st->ctx, &st->g, io->in[T_X], io->in[T_W], io->in[T_POS], io->in[T_COS],
                           io->in[T_SIN], io->out[0], st->eps);
    return KLAB_OK;
}

static void rope_teardown(void *state)
{
    free(state);
}

static void rope_work(const klab_case *k, klab_work *w)
{
    rope_geom g;
    char why[8];
    if (rope_geometry(k, &g, why, sizeof why) != 0)
        return;
    const double n = (double)g.tokens * (double)g.hidden, elem = (double)klab_dtype_size(k->dtype);
    const double rows = (double)(g.tokens < g.cache ? g.tokens : g.cache); /* table rows at most touched */
    /* x read, y written, w read once, a position a token, cos and sin rows (head_dim/2 floats each) */
    w->bytes = (2.0 * n + (double)g.hidden) * elem + 4.0 * (double)g.tokens + rows * (double)g.head_dim * 4.0;
    w->flops = 7.0 * n; /* RMSNorm's 4, the rotation's 3 (two multiplies and an add) per element */
}

static const char *fused_config(const klab_case *k, int index)
{
    rope_geom g;
    char why[8];
    if (rope_geometry(k, &g, why, sizeof why) != 0)
        return NULL;
    row_shape s = {g.tokens, g.hidden, klab_dtype_size(k->dtype)};
    row_limits lim = rope_limits(&g, s.elem);
    return row_plan_config(&s, &lim, index);
}

static const klab_profile profiles[] = {
    {.name = "baseline", .summary = "two kernels: the skeleton's RMSNorm into t, then RoPE from t"},
    {.name = "fused",
     .summary = "row-kernel skeleton with the rotation in the epilogue: one read, one write",
     .config = fused_config},
    {.name = NULL},
};

static const char *const params[] = {"eps", "layout", NULL};
static const char *const dims[] = {"head_dim", "seq", "cache", NULL};

static const klab_plugin descriptor = {
    KLAB_DESCRIPTOR_HEADER,
    .name = "rmsnorm_rope",
    .version = "1.0.0",
    .summary = "RMSNorm over the hidden size, then rotary embedding per head (param.layout half|interleaved)",
    .profiles = profiles,
    .baseline = "baseline",
    .dtypes = KLAB_FLOAT_DTYPES,
    .min_cc = 0,
    .params = params,
    .dims = dims,
    .setup = rope_setup,
    .run = rope_run,
    .verify = rope_verify,
    .teardown = rope_teardown,
    .work = rope_work,
    .tolerance = NULL,
};

KLAB_PLUGIN_ENTRY(descriptor)
