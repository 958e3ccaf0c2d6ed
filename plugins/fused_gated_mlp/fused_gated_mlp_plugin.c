/* fused_gated_mlp.so: the descriptor and hooks (fused_gated_mlp.h says what the profiles do). GEMMs:
 * lib/gemm/gemm_lt.c (cuBLASLt, bf16, TN); the activation: swiglu.so's kernels (lib/gated);
 * the fused profile: fused_gated_mlp_fused.cu (its tuning space: fused_gated_mlp_config.c); the float64
 * reference and the case's shape: fused_gated_mlp_reference.c. */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#include "gated/gated.h"
#include "gemm/gemm_lt.h"
#include "fused_gated_mlp.h"
#include "klab/cuda.h"
#include "klab/plugin.h"

/* Outputs up to this many elements are verified whole; larger ones on GM_SAMPLE fresh elements per
   verified run (two float64 dot products of k terms each). */
#define GM_FULL_CHECK 65536.0
#define GM_SAMPLE 4096

/* Tensors in the order setup makes them (launch->tensors); the inputs reach verify() in this order. */
enum {
    T_X = 0, /* bf16 m x k */
    T_WG,    /* bf16 f x k */
    T_WU,    /* bf16 f x k */
    T_WGU,   /* bf16 2f x k: [Wg; Wu], copied in setup (packed's weight, as a model would store it) */
    T_WIL,   /* bf16 2f x k: Wg and Wu interleaved in blocks of GM_HALF rows (fused's weight), from setup */
    T_OUT,   /* bf16 m x f */
    T_TMP,   /* bf16 m x 2f scratch: unfused's gate then up (m x f each), packed's [gate | up] rows */
    T_COUNT
};

typedef struct gm_state {
    klab_ctx *ctx;
    const klab_host *host;
    gated_mlp_shape sh;
    int sms;
    gemm_lt *lt;
    gemm_lt_plan *half; /* m x f x k */
    gemm_lt_plan *both; /* m x 2f x k */
} gm_state;

static void gm_free(gm_state *st)
{
    gemm_lt_plan_free(st->both);
    gemm_lt_plan_free(st->half);
    gemm_lt_close(st->lt);
    free(st);
}

static int make_tensors(klab_ctx *ctx, const klab_host *host, const gated_mlp_shape *sh, void *t[T_COUNT])
{
    const size_t mk = (size_t)sh->m * sh->k, fk = (size_t)sh->f * sh->k, mf = (size_t)sh->m * sh->f;
    static const struct {
        const char *name;
        klab_role role;
    } spec[T_COUNT] = {{"x", KLAB_INPUT},           {"w_gate", KLAB_INPUT}, {"w_up", KLAB_INPUT},
                       {"w_gate_up", KLAB_INPUT},   {"w_interleaved", KLAB_INPUT},
                       {"out", KLAB_OUTPUT},        {"tmp", KLAB_SCRATCH}};
    const size_t count[T_COUNT] = {mk, fk, fk, 2 * fk, 2 * fk, mf, 2 * mf};
    for (int i = 0; i < T_COUNT; i++)
        if (!(t[i] = host->tensor(ctx, spec[i].name, spec[i].role, KLAB_BF16, count[i])))
            return -1;
    return 0;
}

/* The packed and interleaved weights from the Wg and Wu the host filled, on its stream after the fills:
   [Wg; Wu] two copies; the interleave two strided copies of GM_HALF-row blocks (f a multiple of GM_HALF,
   else the fused profile declines the case and the tensor stays as filled). */
static cudaError_t arrange_weights(const gated_mlp_shape *sh, void *const *t, klab_stream stream)
{
    const cudaStream_t s = (cudaStream_t)stream;
    const size_t row = (size_t)sh->k * 2, wbytes = (size_t)sh->f * row, block = GM_HALF * row;
    cudaError_t e = cudaMemcpyAsync(t[T_WGU], t[T_WG], wbytes, cudaMemcpyDeviceToDevice, s);
    if (e == cudaSuccess)
        e = cudaMemcpyAsync((char *)t[T_WGU] + wbytes, t[T_WU], wbytes, cudaMemcpyDeviceToDevice, s);
    if (e != cudaSuccess || sh->f % GM_HALF != 0)
        return e;
    const size_t blocks = (size_t)sh->f / GM_HALF;
    e = cudaMemcpy2DAsync(t[T_WIL], 2 * block, t[T_WG], block, block, blocks, cudaMemcpyDeviceToDevice, s);
    if (e == cudaSuccess)
        e = cudaMemcpy2DAsync((char *)t[T_WIL] + block, 2 * block, t[T_WU], block, block, blocks,
                              cudaMemcpyDeviceToDevice, s);
    return e;
}

static klab_status gm_setup(klab_ctx *ctx, const klab_host *host, const klab_case *k, void **state)
{
    char why[512];
    gated_mlp_shape sh;
    if (gated_mlp_shape_of(k, &sh, why, sizeof why) != 0)
        return host->error(ctx, "%s", why);
    klab_device dev;
    if (klab_device_of(host, ctx, &dev) != KLAB_OK)
        return KLAB_ERROR;
    int sms = dev.sm_count;
    void *t[T_COUNT];
    if (make_tensors(ctx, host, &sh, t) != 0)
        return KLAB_ERROR;
    if ((double)sh.m * (double)sh.f > GM_FULL_CHECK && host->sample_outputs(ctx, GM_SAMPLE) != KLAB_OK)
        return KLAB_ERROR;
    KLAB_CUDA(host, ctx, (cudaError_t)arrange_weights(&sh, t, host->stream(ctx)));
    gm_state *st = calloc(1, sizeof *st);
    if (!st)
        return host->error(ctx, "out of memory");
    st->ctx = ctx;
    st->host = host;
    st->sh = sh;
    st->sms = sms;
    gemm_lt_shape half = {.m = sh.m, .n = sh.f, .k = sh.k, .in = GEMM_LT_BF16};
    gemm_lt_shape both = half;
    both.n = 2 * sh.f;
    /* a bf16 GEMM cuBLASLt has no algorithm for is as much an error here as a failed call */
    if (gemm_lt_open(&st->lt, why, sizeof why) != 0 ||
        gemm_lt_plan_make(st->lt, &half, NULL, NULL, &st->half, why, sizeof why) != 0 ||
        gemm_lt_plan_make(st->lt, &both, NULL, NULL, &st->both, why, sizeof why) != 0) {
        gm_free(st);
        return host->error(ctx, "%s", why);
    }
    *state = st;
    return KLAB_OK;
}

/* act(gate) * up into out, gate and up rows ld elements apart: swiglu.so's one-pass kernel (lib/gated). */
static int activation(const gm_state *st, const void *gate, const void *up, size_t ld, void *out, klab_stream s)
{
    const size_t m = (size_t)st->sh.m, f = (size_t)st->sh.f;
    return st->sh.act == GM_GELU ? geglu_fused_launch(KLAB_BF16, gate, up, ld, out, m, f, s)
                                 : swiglu_fused_launch(KLAB_BF16, gate, up, ld, out, m, f, NULL, s);
}

static klab_status gm_run(void *state, const klab_launch *l)
{
    gm_state *st = state;
    void *const *t = l->tensors;
    char why[512];
    const size_t mf = (size_t)st->sh.m * st->sh.f, f = (size_t)st->sh.f;
    char *tmp = t[T_TMP];
    int rc;
    switch (l->profile) {
    case GM_UNFUSED: {
        char *up = tmp + mf * 2;
        rc = gemm_lt_run(st->lt, st->half, t[T_X], t[T_WG], NULL, NULL, tmp, l->stream, why, sizeof why);
        if (rc == 0)
            rc = gemm_lt_run(st->lt, st->half, t[T_X], t[T_WU], NULL, NULL, up, l->stream, why, sizeof why);
        if (rc != 0)
            return st->host->error(st->ctx, "%s", why);
        KLAB_CUDA(st->host, st->ctx, (cudaError_t)activation(st, tmp, up, f, t[T_OUT], l->stream));
        return KLAB_OK;
    }
    case GM_PACKED:
        if (gemm_lt_run(st->lt, st->both, t[T_X], t[T_WGU], NULL, NULL, tmp, l->stream, why, sizeof why) != 0)
            return st->host->error(st->ctx, "%s", why);
        KLAB_CUDA(st->host, st->ctx, (cudaError_t)activation(st, tmp, tmp + f * 2, 2 * f, t[T_OUT], l->stream));
        return KLAB_OK;
    case GM_FUSED: {
        gv_config c;
        if (gv_config_of(&st->sh, l->config, &c) != 0)
            return st->host->error(st->ctx, "configuration %d is not in the fused space", l->config);
        int e = gv_launch(&st->sh, &c, t[T_X], t[T_WIL], t[T_OUT], st->sms, l->stream, why, sizeof why);
        if (e == 0)
            return KLAB_OK;
        st->host->error(st->ctx, "%s", why);
        return e > 0 ? KLAB_UNSUPPORTED : KLAB_ERROR;
    }
    default: return st->host->error(st->ctx, "profile %d is not one of fused_gated_mlp's", l->profile);
    }
}

static klab_status gm_verify(void *state, const klab_case *k, const klab_verify_io *io)
{
    (void)k;
    gm_state *st = state;
    const size_t *sample = io->sample ? io->sample[0] : NULL;
    if (gated_mlp_reference(st->host, st->ctx, &st->sh, io->in[T_X], io->in[T_WG], io->in[T_WU], sample,
                            io->out_count[0], io->out[0]) != 0)
        return st->host->error(st->ctx, "out of host memory for the reference");
    return KLAB_OK;
}

static void gm_teardown(void *state)
{
    gm_free(state);
}

/* The function's ideal traffic: x, Wg and Wu read once, out written once (bf16); what the unfused
   and packed profiles move besides (the m x 2f intermediate written and read back) is what fusion
   removes. Flops: the two GEMMs; the activation's are noise beside them. */
static void gm_work(const klab_case *k, klab_work *w)
{
    char why[512];
    gated_mlp_shape sh;
    if (gated_mlp_shape_of(k, &sh, why, sizeof why) != 0)
        return;
    const double m = (double)sh.m, kk = (double)sh.k, f = (double)sh.f;
    w->bytes = 2 * (m * kk + 2 * f * kk + m * f);
    w->flops = 2 * m * kk * 2 * f;
}

static const int sm90a[] = {90, 0};

static const klab_profile profiles[] = {
    {.name = "unfused",
     .summary = "cuBLASLt x Wg^T and x Wu^T (m x f each, to memory), then swiglu.so's one-pass activation kernel"},
    {.name = "packed",
     .summary = "one cuBLASLt GEMM over [Wg; Wu] (m x 2f [gate | up] to memory), then the activation kernel, packed"},
    {.name = "fused",
     .summary = "one wgmma GEMM (hopper/hopper_gemm.cuh) over interleaved Wg/Wu, act(gate) * up in its epilogue",
     .archs = sm90a,
     .config = gv_config_hook},
    {.name = NULL},
};

static const char *const params[] = {"activation", NULL};
static const char *const dims[] = {"m", "k", "f", NULL};

static const klab_plugin descriptor = {
    KLAB_DESCRIPTOR_HEADER,
    .name = "fused_gated_mlp",
    .version = "1.0.0",
    .summary = "gated MLP act(x Wg^T) * (x Wu^T), act silu or gelu (param.activation), bf16: unfused, packed, fused",
    .profiles = profiles,
    .baseline = "unfused",
    .dtypes = KLAB_DTYPE_BIT(KLAB_BF16),
    .min_cc = 80,
    .params = params,
    .dims = dims,
    .setup = gm_setup,
    .run = gm_run,
    .verify = gm_verify,
    .teardown = gm_teardown,
    .work = gm_work,
    .tolerance = NULL,
};

KLAB_PLUGIN_ENTRY(descriptor)
