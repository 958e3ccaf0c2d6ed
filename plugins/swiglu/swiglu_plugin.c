/* swiglu.so: the descriptor and hooks. Kernels and plans: lib/gated (gated_kernels.cu, gated_plan.c);
 * float64 reference and the case's shape: swiglu_reference.c. */
#include <cuda_runtime.h>
#include <stdlib.h>

#include "klab/cuda.h"
#include "klab/plugin.h"
#include "swiglu.h"

/* Tensors in the order setup makes them (launch->tensors): split gate, up, out, tmp; packed x, out,
   tmp. verify() sees the inputs in that order too. */
typedef struct sw_state {
    klab_ctx *ctx;
    const klab_host *host;
    klab_dtype dtype;
    swiglu_shape shape;
    int iout, itmp;
} sw_state;

static klab_status sw_setup(klab_ctx *ctx, const klab_host *host, const klab_case *k, void **state)
{
    char why[512];
    swiglu_shape sh;
    if (swiglu_shape_of(k, &sh, why, sizeof why) != 0)
        return host->error(ctx, "%s", why);
    sw_state *st = calloc(1, sizeof *st);
    if (!st)
        return host->error(ctx, "out of memory");
    st->ctx = ctx;
    st->host = host;
    st->dtype = k->dtype;
    st->shape = sh;
    const size_t n = sh.rows * sh.n;
    int ok = sh.layout == SW_PACKED
                 ? host->tensor(ctx, "x", KLAB_INPUT, k->dtype, 2 * n) != NULL
                 : host->tensor(ctx, "gate", KLAB_INPUT, k->dtype, n) && host->tensor(ctx, "up", KLAB_INPUT, k->dtype, n);
    st->iout = sh.layout == SW_PACKED ? 1 : 2;
    st->itmp = st->iout + 1;
    ok = ok && host->tensor(ctx, "out", KLAB_OUTPUT, k->dtype, n) && host->tensor(ctx, "tmp", KLAB_SCRATCH, k->dtype, n);
    if (!ok) {
        free(st);
        return KLAB_ERROR;
    }
    *state = st;
    return KLAB_OK;
}

/* Where row 0's gate and up start, and how far apart rows are. */
static void operands(const sw_state *st, void *const *t, const void **gate, const void **up, size_t *ld)
{
    if (st->shape.layout == SW_PACKED) {
        *gate = t[0];
        *up = (const char *)t[0] + st->shape.n * klab_dtype_size(st->dtype);
        *ld = 2 * st->shape.n;
    } else {
        *gate = t[0];
        *up = t[1];
        *ld = st->shape.n;
    }
}

static klab_status sw_run(void *state, const klab_launch *l)
{
    sw_state *st = state;
    const void *gate, *up;
    size_t ld;
    operands(st, l->tensors, &gate, &up, &ld);
    void *out = l->tensors[st->iout];
    int e;
    if (l->profile == SW_FUSED) {
        swiglu_plan p, *pp = NULL; /* NULL: the own choice */
        if (l->config >= 0) {
            if (!swiglu_plan_config(&st->shape, klab_dtype_size(st->dtype), l->config, &p)) {
                st->host->error(st->ctx, "configuration %d is not in the fused space of this case", l->config);
                return KLAB_UNSUPPORTED;
            }
            pp = &p;
        }
        e = swiglu_fused_launch(st->dtype, gate, up, ld, out, st->shape.rows, st->shape.n, pp, l->stream);
    } else {
        e = swiglu_baseline_launch(st->dtype, gate, up, ld, out, l->tensors[st->itmp], st->shape.rows, st->shape.n,
                                   l->stream);
    }
    KLAB_CUDA(st->host, st->ctx, (cudaError_t)e);
    return KLAB_OK;
}

static klab_status sw_verify(void *state, const klab_case *k, const klab_verify_io *io)
{
    (void)k;
    sw_state *st = state;
    const swiglu_shape *sh = &st->shape;
    if (sh->layout == SW_PACKED)
        swiglu_reference(st->host, st->ctx, io->in[0], io->in[0] + sh->n, 2 * sh->n, io->out[0], sh->rows, sh->n);
    else
        swiglu_reference(st->host, st->ctx, io->in[0], io->in[1], sh->n, io->out[0], sh->rows, sh->n);
    return KLAB_OK;
}

static void sw_teardown(void *state)
{
    free(state);
}

/* Gate and up read once, out written once, in either layout; what the baseline moves besides (the
   silu tensor written and read back) is what the speedup shows. */
static void sw_work(const klab_case *k, klab_work *w)
{
    char why[512];
    swiglu_shape sh;
    if (swiglu_shape_of(k, &sh, why, sizeof why) != 0)
        return; /* setup says why; nothing to count */
    double elems = (double)sh.rows * (double)sh.n;
    w->bytes = 3 * elems * (double)klab_dtype_size(k->dtype);
    w->flops = 4 * elems; /* exp, add, divide, multiply */
}

/* The vectorized kernel's plans (swiglu_plan_config): threads, vectors in flight, cache hints. */
static const char *fused_config(const klab_case *k, int index)
{
    char why[512];
    swiglu_shape sh;
    if (swiglu_shape_of(k, &sh, why, sizeof why) != 0)
        return NULL;
    return swiglu_plan_config(&sh, klab_dtype_size(k->dtype), index, NULL);
}

static const klab_profile profiles[] = {
    {.name = "baseline", .summary = "unfused, as eager: silu(gate) to a tensor, then a multiply; 2 vectorized kernels"},
    {.name = "fused",
     .summary = "one pass: 16-byte loads of gate and up, float math, one rounding, any length",
     .config = fused_config},
    {.name = NULL},
};

static const char *const params[] = {"layout", NULL};

static const klab_plugin descriptor = {
    KLAB_DESCRIPTOR_HEADER,
    .name = "swiglu",
    .version = "1.1.0",
    .summary = "SwiGLU: out = silu(gate) * up, gate and up split or packed as [gate | up] (param.layout)",
    .profiles = profiles,
    .baseline = "baseline",
    .dtypes = KLAB_FLOAT_DTYPES,
    .min_cc = 0,
    .params = params,
    .setup = sw_setup,
    .run = sw_run,
    .verify = sw_verify,
    .teardown = sw_teardown,
    .work = sw_work,
    .tolerance = NULL,
};

KLAB_PLUGIN_ENTRY(descriptor)
