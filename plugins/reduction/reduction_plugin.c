/* reduction.so: the descriptor and hooks. Kernels: reduction_kernels.cu (two_pass, last_block,
 * atomic), reduction_cluster.cu (cluster); the plan and tolerance: reduction_plan.c; float64
 * reference: reduction_reference.c. */
#include <cuda_runtime.h>
#include <stdlib.h>

#include "klab/cuda.h"
#include "klab/plugin.h"
#include "reduction.h"

/* Tensors in the order setup makes them (launch->tensors). */
enum { T_X = 0, T_OUT, T_PARTIAL };

typedef struct rd_state {
    klab_dtype dtype;
    reduction_case rc;
    reduction_plan plan[RD_PROFILES];
    /* one ticket a row for last_block and cluster, zero between runs (the last block of a row sets it
       back). The plugin's own memory, not a host tensor: the host poisons scratch tensors, and their
       rotated copies, while tickets must start at 0. Runs on one stream, graphs included, are
       ordered, so every run finds them at 0. */
    unsigned *tickets;
} rd_state;

static klab_status rd_setup(klab_ctx *ctx, const klab_host *host, const klab_case *k, void **state)
{
    char why[512];
    reduction_case rc;
    if (reduction_case_of(k, &rc, why, sizeof why) != 0)
        return host->error(ctx, "%s", why);
    rd_state *st = calloc(1, sizeof *st);
    if (!st)
        return host->error(ctx, "out of memory");
    st->dtype = k->dtype;
    st->rc = rc;
    size_t groups = 1;
    for (int p = 0; p < RD_PROFILES; p++) {
        if (reduction_plan_of(&rc, p, k->dtype, &st->plan[p], why, sizeof why) != 0) {
            free(st);
            return host->error(ctx, "case '%s': %s", k->name, why);
        }
        groups = (size_t)st->plan[p].groups > groups ? (size_t)st->plan[p].groups : groups;
    }
    void *x = host->tensor(ctx, "x", KLAB_INPUT, k->dtype, rc.rows * rc.cols);
    klab_status s = x ? KLAB_OK : KLAB_ERROR;
    if (s == KLAB_OK && rc.fill != RD_SIGNED)
        /* negative is [-2, -1): a max of 2^20 values of [-1, 0) lands within 1e-6 of 0, where an
           identity of 0 would pass and the reference fails its "not nearly zero" check */
        s = host->fill_uniform(ctx, x, rc.fill == RD_POSITIVE ? 0.0 : -2.0, rc.fill == RD_POSITIVE ? 1.0 : -1.0);
    if (s == KLAB_OK && (!host->tensor(ctx, "out", KLAB_OUTPUT, KLAB_FP32, rc.rows) ||
                         !host->tensor(ctx, "partial", KLAB_SCRATCH, KLAB_FP32, rc.rows * groups)))
        s = KLAB_ERROR;
    cudaError_t e = cudaSuccess;
    if (s == KLAB_OK && (e = cudaMalloc((void **)&st->tickets, rc.rows * sizeof(unsigned))) == cudaSuccess)
        e = cudaMemsetAsync(st->tickets, 0, rc.rows * sizeof(unsigned), host->stream(ctx));
    if (s == KLAB_OK && e != cudaSuccess)
        s = host->error(ctx, "tickets for %zu rows: CUDA error %d %s", rc.rows, (int)e, cudaGetErrorString(e));
    if (s != KLAB_OK) {
        if (st->tickets)
            cudaFree(st->tickets);
        free(st);
        return s;
    }
    *state = st;
    return KLAB_OK;
}

static klab_status rd_run(void *state, klab_ctx *ctx, const klab_host *host, const klab_launch *l)
{
    rd_state *st = state;
    void *const *t = l->tensors;
    const reduction_plan *p = &st->plan[l->profile];
    int e = l->profile == RD_CLUSTER
                ? reduction_cluster_launch(st->rc.op, st->dtype, p, t[T_X], t[T_OUT], t[T_PARTIAL], st->tickets, l->stream)
                : reduction_launch(l->profile, st->rc.op, st->dtype, p, t[T_X], t[T_OUT], t[T_PARTIAL], st->tickets,
                                   l->stream);
    KLAB_CUDA(host, ctx, (cudaError_t)e);
    return KLAB_OK;
}

static klab_status rd_verify(void *state, klab_ctx *ctx, const klab_host *host, const klab_case *k,
                             const klab_verify_io *io)
{
    (void)k;
    rd_state *st = state;
    reduction_reference(host, ctx, st->rc.op, io->in[0], st->rc.rows, st->rc.cols, io->out[0]);
    return KLAB_OK;
}

static void rd_teardown(void *state)
{
    rd_state *st = state;
    cudaFree(st->tickets);
    free(st);
}

/* The input read once, one float written a row. A read-only stream: against klab's copy of the same
   bytes (half read, half written) the fraction can pass 1 (docs/notes/reduction.md). */
static void rd_work(const klab_case *k, klab_work *w)
{
    char why[512];
    reduction_case rc;
    if (reduction_case_of(k, &rc, why, sizeof why) != 0)
        return;
    double n = (double)rc.rows * (double)rc.cols;
    w->bytes = n * (double)klab_dtype_size(k->dtype) + (double)rc.rows * sizeof(float);
    w->flops = n;
}

static const int sm90[] = {90, 0};

static const klab_profile profiles[] = {
    {.name = "two_pass", .summary = "block partials to scratch, then a second kernel finishes each row"},
    {.name = "last_block", .summary = "one kernel: partials, a fence and a ticket; the last block finishes"},
    {.name = "atomic", .summary = "output set in run(), then one atomic a block (sum order varies)"},
    {.name = "cluster", .summary = "sm_90 clusters meet in distributed shared memory; the last cluster finishes",
     .archs = sm90},
    {.name = NULL},
};

static const char *const params[] = {"op", "fill", "blocks", NULL};

static const klab_plugin descriptor = {
    KLAB_DESCRIPTOR_HEADER,
    .name = "reduction",
    .version = "1.0.0",
    .summary = "sum or max (param.op) of a vector or of each row, fp32 accumulation, in four strategies",
    .profiles = profiles,
    .baseline = "two_pass",
    .dtypes = KLAB_FLOAT_DTYPES,
    .min_cc = 0,
    .params = params,
    .setup = rd_setup,
    .teardown = rd_teardown,
    .work = rd_work,
    .tolerance = reduction_tolerance,
    .run_host = rd_run,
    .verify_host = rd_verify,
};

KLAB_PLUGIN_ENTRY(descriptor)
