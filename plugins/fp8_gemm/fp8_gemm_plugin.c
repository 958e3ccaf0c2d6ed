/* fp8_gemm.so: the descriptor and hooks (fp8_gemm.h says what the profiles compute). cuBLASLt:
 * lib/gemm/gemm_lt.c; quantisation: fp8_quant_kernels.cu (rules and CPU reference: fp8_quant_reference.c);
 * the case's shape: fp8_gemm_reference.c; the float64 reference: lib/gemm/gemm_reference.c.
 *
 * The case's dtype is fp8e4m3: the precision the GEMM computes in, and the peak its rows are held
 * against (the bf16 row too, so every row of a case is measured against the same ceiling). The
 * tensors themselves have their own dtypes: bf16 A and W in, bf16 D out. */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#include "fp8_gemm.h"
#include "fp8_quant.h"
#include "gemm/gemm_lt.h"
#include "klab/cuda.h"
#include "klab/plugin.h"

/* Tensors in the order setup makes them (launch->tensors); the inputs reach verify() in this order. */
enum {
    T_A = 0, /* bf16 m x k */
    T_W,     /* bf16 n x k */
    T_QA,    /* e4m3 m x k, per-tensor scale, quantised in setup */
    T_QW,    /* e4m3 n x k */
    T_S,     /* fp32: the dequantisation scales of QA and QW, at 0 and FP8Q_SCALE_STRIDE */
    T_QA_B,  /* e4m3 m x k, per row and 128 columns */
    T_QW_B,  /* e4m3 n x k, per 128 x 128 */
    T_SA_B,  /* fp32 kb x m */
    T_SW_B,  /* fp32 ceil(n / 128) x kb4 */
    T_D,     /* bf16 m x n, the output */
    T_AQ,    /* scratch for the autoquant profiles: e4m3 m x k, n x k, amax [2], scales [2] */
    T_WQ,
    T_AMAX,
    T_SCALE,
    T_SA_S,  /* scratch for autoquant_block: fp32 kb x m, ceil(n / 128) x kb4 */
    T_SW_S,
    T_WS,    /* fp32 split-K partials of the wgmma profiles: FW_MAX_SPLITS m n for m <= FG_SPLIT_ROWS,
                else 1 (unused) */
    T_COUNT
};

/* Split-K is for skinny products (decode, small batches): only for them is its workspace made. */
#define FG_SPLIT_ROWS 256

/* Outputs up to this many elements are verified whole; larger ones on FG_SAMPLE fresh elements per
   verified run (8192^3: 4096 dot products of 8192 terms, a few tens of milliseconds). */
#define FG_FULL_CHECK 65536.0
#define FG_SAMPLE 4096

typedef struct fg_state {
    klab_ctx *ctx;
    const klab_host *host;
    fp8_gemm_shape sh;
    int sms, cc;
    gemm_lt *lt;
    /* cuBLASLt profiles: NULL where there is no plan, why_not[] saying why and not_run[] what the row
       becomes: KLAB_UNSUPPORTED (no algorithm here: skipped) or KLAB_ERROR (cuBLASLt refused the plan:
       that profile fails, the case's other profiles still run) */
    gemm_lt_plan *plan[FG_NPROFILES];
    klab_status not_run[FG_NPROFILES];
    char why_not[FG_NPROFILES][320];
    /* serial split-K's tickets (fw_tickets), zero between runs, for m <= FG_SPLIT_ROWS, else NULL: the
       plugin's own memory, not a host tensor (the host poisons scratch tensors; tickets must stay zero) */
    unsigned *tickets;
} fg_state;

static void fg_free(fg_state *st)
{
    for (int p = 0; p < FG_NPROFILES; p++)
        gemm_lt_plan_free(st->plan[p]);
    gemm_lt_close(st->lt);
    cudaFree(st->tickets);
    free(st);
}

/* Every tensor, in T_* order, its setup-time pointer in t[]. 0, or -1 (the host has the reason). */
static int make_tensors(klab_ctx *ctx, const klab_host *host, const fp8_gemm_shape *sh, void *t[T_COUNT])
{
    const size_t mk = (size_t)sh->m * sh->k, nk = (size_t)sh->n * sh->k, mn = (size_t)sh->m * sh->n;
    const size_t sa = fp8q_kblocks(sh->k) * sh->m;
    const size_t sw = ((size_t)sh->n + FP8Q_BLOCK - 1) / FP8Q_BLOCK * fp8q_kblocks4(sh->k);
    static const struct {
        const char *name;
        klab_role role;
        klab_dtype dtype;
    } spec[T_COUNT] = {
        {"a", KLAB_INPUT, KLAB_BF16},
        {"w", KLAB_INPUT, KLAB_BF16},
        {"a_e4m3", KLAB_INPUT, KLAB_FP8_E4M3},
        {"w_e4m3", KLAB_INPUT, KLAB_FP8_E4M3},
        {"scales", KLAB_INPUT, KLAB_FP32},
        {"a_e4m3_1x128", KLAB_INPUT, KLAB_FP8_E4M3},
        {"w_e4m3_128x128", KLAB_INPUT, KLAB_FP8_E4M3},
        {"a_scales_1x128", KLAB_INPUT, KLAB_FP32},
        {"w_scales_128x128", KLAB_INPUT, KLAB_FP32},
        {"d", KLAB_OUTPUT, KLAB_BF16},
        {"aq", KLAB_SCRATCH, KLAB_FP8_E4M3},
        {"wq", KLAB_SCRATCH, KLAB_FP8_E4M3},
        {"amax", KLAB_SCRATCH, KLAB_FP32},
        {"scale", KLAB_SCRATCH, KLAB_FP32},
        {"a_scales_1x128_each_call", KLAB_SCRATCH, KLAB_FP32},
        {"w_scales_128x128_each_call", KLAB_SCRATCH, KLAB_FP32},
        {"splitk_ws", KLAB_SCRATCH, KLAB_FP32},
    };
    const size_t ws = sh->m <= FG_SPLIT_ROWS ? FW_MAX_SPLITS * mn : 1;
    const size_t sc = 2 * FP8Q_SCALE_STRIDE; /* two scales, 16 bytes apart */
    const size_t count[T_COUNT] = {mk, nk, mk, nk, sc, mk, nk, sa, sw, mn, mk, nk, 2, sc, sa, sw, ws};
    for (int i = 0; i < T_COUNT; i++)
        if (!(t[i] = host->tensor(ctx, spec[i].name, spec[i].role, spec[i].dtype, count[i])))
            return -1;
    return 0;
}

/* A and W to e4m3 with per-tensor scales, into tensors qa, qw and scales sc (T_* indices): amax of both
   (one launch), then scale and cast of both (one launch). */
static int quantise(const fg_state *st, void *const *t, int qa, int qw, int sc, klab_stream s)
{
    const size_t mk = (size_t)st->sh.m * st->sh.k, nk = (size_t)st->sh.n * st->sh.k;
    int e = fp8q_amax2_launch(t[T_A], mk, t[T_W], nk, t[T_AMAX], st->sms, s);
    return e ? e : fp8q_cast2_launch(t[T_A], mk, t[T_W], nk, t[T_AMAX], t[qa], t[qw], t[sc], st->sms, s);
}

/* The pre-quantised inputs (INPUT tensors, so rotated copies carry them and checksums guard them),
   from the bf16 A and W the host just filled, on its stream after the fills. */
static int quantise_inputs(const fg_state *st, void *const *t, int block)
{
    klab_stream s = st->host->stream(st->ctx);
    int e = quantise(st, t, T_QA, T_QW, T_S, s);
    if (e == 0 && block)
        e = fp8q_block_launch(t[T_A], (size_t)st->sh.m, t[T_W], (size_t)st->sh.n, (size_t)st->sh.k, t[T_QA_B],
                              t[T_SA_B], t[T_QW_B], t[T_SW_B], s);
    return e;
}

/* The cuBLASLt plan of each profile, or the reason it cannot run here, profile by profile: one plan
   cuBLASLt refuses fails its own profile, not the case. t: the setup-time tensors (their scales stand
   for the runs' in the heuristic). */
static void make_plans(fg_state *st, void *const *t)
{
    const fp8_gemm_shape *sh = &st->sh;
    for (int p = 0; p <= FG_AUTOQUANT_LT; p++) {
        gemm_lt_shape g = {.m = sh->m, .n = sh->n, .k = sh->k, .in = GEMM_LT_E4M3, .fast_accum = sh->fast_accum};
        const float *xs = t[T_S], *ws = (const float *)t[T_S] + FP8Q_SCALE_STRIDE;
        st->not_run[p] = KLAB_UNSUPPORTED;
        if (p == FG_BF16) {
            g.in = GEMM_LT_BF16;
            xs = ws = NULL;
        } else if (st->cc < 89) {
            snprintf(st->why_not[p], sizeof st->why_not[p],
                     "fp8 e4m3 tensor cores need compute capability 8.9 or later (Ada, Hopper, Blackwell); this device is "
                     "%d.%d",
                     st->cc / 10, st->cc % 10);
            continue;
        }
        if (p == FG_AUTOQUANT_LT) {
            xs = t[T_SCALE];
            ws = (const float *)t[T_SCALE] + FP8Q_SCALE_STRIDE;
        }
        if (p == FG_CUBLASLT_BLOCK) {
            g.scaling = GEMM_LT_BLOCK;
            xs = t[T_SA_B];
            ws = t[T_SW_B];
            if (sh->k % FP8Q_BLOCK != 0 || sh->m % 4 != 0) {
                snprintf(st->why_not[p], sizeof st->why_not[p],
                         sh->k % FP8Q_BLOCK ? "block scales need k a multiple of 128; dim.k is %lld"
                                            : "cuBLASLt's 1x128 scales need m a multiple of 4; dim.m is %lld",
                         (long long)(sh->k % FP8Q_BLOCK ? sh->k : sh->m));
                continue;
            }
        }
        char why[256];
        int rc = gemm_lt_plan_make(st->lt, &g, xs, ws, &st->plan[p], why, sizeof why);
        if (rc < 0)
            st->not_run[p] = KLAB_ERROR;
        if (rc != 0)
            snprintf(st->why_not[p], sizeof st->why_not[p], "%s%s", rc < 0 ? "cuBLASLt plan made in setup: " : "",
                     why);
    }
}

/* Serial split-K's tickets, zeroed, where split-K runs (m <= FG_SPLIT_ROWS); elsewhere none. */
static klab_status make_tickets(fg_state *st)
{
    if (st->sh.m > FG_SPLIT_ROWS)
        return KLAB_OK;
    const size_t bytes = fw_tickets(&st->sh) * sizeof(unsigned);
    cudaError_t e = cudaMalloc((void **)&st->tickets, bytes);
    if (e == cudaSuccess)
        e = cudaMemsetAsync(st->tickets, 0, bytes, (cudaStream_t)st->host->stream(st->ctx));
    if (e != cudaSuccess)
        return st->host->error(st->ctx, "split-K tickets (%zu bytes): CUDA error %d %s", bytes, (int)e,
                               cudaGetErrorString(e));
    return KLAB_OK;
}

static klab_status fg_setup(klab_ctx *ctx, const klab_host *host, const klab_case *k, void **state)
{
    char why[512];
    fp8_gemm_shape sh;
    if (fp8_gemm_shape_of(k, &sh, why, sizeof why) != 0)
        return host->error(ctx, "%s", why);
    klab_device dev;
    if (klab_device_of(host, ctx, &dev) != KLAB_OK)
        return KLAB_ERROR;
    int sms = dev.sm_count;
    void *t[T_COUNT];
    if (make_tensors(ctx, host, &sh, t) != 0)
        return KLAB_ERROR;
    /* a float64 dot product of k terms per element: all of a small D, a fresh sample of a large one */
    if ((double)sh.m * (double)sh.n > FG_FULL_CHECK && host->sample_outputs(ctx, FG_SAMPLE) != KLAB_OK)
        return KLAB_ERROR;
    fg_state *st = calloc(1, sizeof *st);
    if (!st)
        return host->error(ctx, "out of memory");
    st->ctx = ctx;
    st->host = host;
    st->sh = sh;
    st->sms = sms;
    st->cc = host->device_cc(ctx);
    klab_status rc = make_tickets(st);
    int e;
    if (rc == KLAB_OK && gemm_lt_open(&st->lt, why, sizeof why) != 0)
        rc = host->error(ctx, "%s", why);
    else if (rc == KLAB_OK && (e = quantise_inputs(st, t, sh.k % FP8Q_BLOCK == 0)) != 0)
        rc = host->error(ctx, "quantising the inputs in setup: CUDA error %d %s", e, cudaGetErrorString((cudaError_t)e));
    if (rc != KLAB_OK) {
        fg_free(st);
        return rc;
    }
    make_plans(st, t);
    *state = st;
    return KLAB_OK;
}

/* klab's wgmma GEMM on the e4m3 operands qa, qw with scales sa, sw (per tensor: one each; block:
   fp8_quant.h's tensors), configuration from the profile's space. */
static klab_status run_wgmma(fg_state *st, const klab_launch *l, fw_scaling sc, const void *qa, const void *qw,
                             const float *sa, const float *sw)
{
    char why[512];
    fw_config c;
    if (fw_config_of(&st->sh, sc, l->config, &c) != 0)
        return st->host->error(st->ctx, "configuration %d is not in the wgmma space", l->config);
    float *ws = st->sh.m <= FG_SPLIT_ROWS ? l->tensors[T_WS] : NULL;
    int rc = fw_launch(&st->sh, &c, qa, qw, sa, sw, l->tensors[T_D], ws, st->tickets, st->sms, l->stream, why,
                       sizeof why);
    if (rc == 0)
        return KLAB_OK;
    st->host->error(st->ctx, "%s", why);
    return rc > 0 ? KLAB_UNSUPPORTED : KLAB_ERROR;
}

/* The block profiles need k in whole 128-column blocks; both quantise per block in one pass. */
static klab_status run_block(fg_state *st, const klab_launch *l, int each_call)
{
    void *const *t = l->tensors;
    if (st->sh.k % FP8Q_BLOCK != 0) {
        st->host->error(st->ctx, "block scales need k a multiple of 128; dim.k is %lld", (long long)st->sh.k);
        return KLAB_UNSUPPORTED;
    }
    if (!each_call)
        return run_wgmma(st, l, FW_BLOCK, t[T_QA_B], t[T_QW_B], t[T_SA_B], t[T_SW_B]);
    KLAB_CUDA(st->host, st->ctx,
              (cudaError_t)fp8q_block_launch(t[T_A], (size_t)st->sh.m, t[T_W], (size_t)st->sh.n, (size_t)st->sh.k,
                                             t[T_AQ], t[T_SA_S], t[T_WQ], t[T_SW_S], l->stream));
    return run_wgmma(st, l, FW_BLOCK, t[T_AQ], t[T_WQ], t[T_SA_S], t[T_SW_S]);
}

static klab_status fg_run(void *state, const klab_launch *l)
{
    fg_state *st = state;
    void *const *t = l->tensors;
    const int p = l->profile;
    if (p < 0 || p >= FG_NPROFILES)
        return st->host->error(st->ctx, "profile %d is not one of fp8_gemm's", p);
    const float *s = t[T_S], *sc = t[T_SCALE];
    if (p == FG_PREQUANT)
        return run_wgmma(st, l, FW_TENSOR, t[T_QA], t[T_QW], s, s + FP8Q_SCALE_STRIDE);
    if (p == FG_AUTOQUANT) {
        KLAB_CUDA(st->host, st->ctx, (cudaError_t)quantise(st, t, T_AQ, T_WQ, T_SCALE, l->stream));
        return run_wgmma(st, l, FW_TENSOR, t[T_AQ], t[T_WQ], sc, sc + FP8Q_SCALE_STRIDE);
    }
    if (p == FG_PREQUANT_BLOCK || p == FG_AUTOQUANT_BLOCK)
        return run_block(st, l, p == FG_AUTOQUANT_BLOCK);
    if (!st->plan[p]) {
        st->host->error(st->ctx, "%s", st->why_not[p]);
        return st->not_run[p];
    }
    char why[512];
    int rc = 0;
    switch (p) {
    case FG_BF16: rc = gemm_lt_run(st->lt, st->plan[p], t[T_A], t[T_W], NULL, NULL, t[T_D], l->stream, why, sizeof why); break;
    case FG_CUBLASLT:
        rc = gemm_lt_run(st->lt, st->plan[p], t[T_QA], t[T_QW], s, s + FP8Q_SCALE_STRIDE, t[T_D], l->stream, why, sizeof why);
        break;
    case FG_CUBLASLT_BLOCK:
        rc = gemm_lt_run(st->lt, st->plan[p], t[T_QA_B], t[T_QW_B], t[T_SA_B], t[T_SW_B], t[T_D], l->stream, why,
                         sizeof why);
        break;
    case FG_AUTOQUANT_LT:
        KLAB_CUDA(st->host, st->ctx, (cudaError_t)quantise(st, t, T_AQ, T_WQ, T_SCALE, l->stream));
        rc = gemm_lt_run(st->lt, st->plan[p], t[T_AQ], t[T_WQ], sc, sc + FP8Q_SCALE_STRIDE, t[T_D], l->stream, why, sizeof why);
        break;
    }
    return rc != 0 ? st->host->error(st->ctx, "%s", why) : KLAB_OK;
}

/* Every profile computes A · W^T of the bf16 inputs: the float64 product of those, on the host's
   sample. */
static klab_status fg_verify(void *state, const klab_case *k, const klab_verify_io *io)
{
    (void)k;
    fg_state *st = state;
    const size_t *sample = io->sample ? io->sample[0] : NULL;
    gemm_reference_tn(st->host, st->ctx, io->in[T_A], io->in[T_W], (size_t)st->sh.m, (size_t)st->sh.n,
                      (size_t)st->sh.k, sample, io->out_count[0], io->out[0]);
    return KLAB_OK;
}

static void fg_teardown(void *state)
{
    fg_free(state);
}

/* The traffic of the rows this plugin is about: e4m3 A and W read once (1 byte an element), bf16 D
   written once; the per-tensor scales are 8 bytes. The bf16 and autoquant rows read bf16 A and W (twice
   as many bytes of operands) and are charged the same: their GB/s understates what they move, the fp8
   rows' GB/s is what theirs do. */
static void fg_work(const klab_case *k, klab_work *w)
{
    char why[512];
    fp8_gemm_shape sh;
    if (fp8_gemm_shape_of(k, &sh, why, sizeof why) != 0)
        return;
    const double m = (double)sh.m, n = (double)sh.n, kk = (double)sh.k;
    w->bytes = m * kk + n * kk + 2 * m * n;
    w->flops = 2 * m * n * kk;
}

/* e4m3's own tolerance: one rounding of each operand to 3 mantissa bits gives a relative l2 error of
   about 0.036 on random data (docs/notes/fp8_gemm.md); the bf16 row is held to it too, and is far
   inside. */
static double fg_tolerance(const klab_case *k)
{
    (void)k;
    return 6.25e-2;
}

static const int sm90a[] = {90, 0};

static const klab_profile profiles[] = {
    {.name = "bf16", .summary = "cuBLASLt bf16 GEMM of the same inputs (TN, fp32 accumulation): the error fp8 is set beside"},
    {.name = "cublaslt", .summary = "cuBLASLt fp8 e4m3, per-tensor scales, inputs quantised in setup (TN, bf16 out)"},
    {.name = "cublaslt_block",
     .summary = "cuBLASLt fp8 e4m3 with 1x128 (A) and 128x128 (W) block scales, DeepSeek's, quantised in setup"},
    {.name = "autoquant_lt",
     .summary = "from bf16 each call: amax (1 launch), scale + cast (1 launch) for A and W, then cuBLASLt fp8"},
    {.name = "prequant",
     .summary = "klab's wgmma e4m3 GEMM (hopper/hopper_gemm.cuh) on the setup-quantised inputs, scales in the epilogue",
     .archs = sm90a,
     .config = fw_config_hook},
    {.name = "autoquant",
     .summary = "from bf16 each call: klab's amax and cast launches, then klab's wgmma e4m3 GEMM",
     .archs = sm90a,
     .config = fw_config_hook},
    {.name = "prequant_block",
     .summary = "klab's wgmma e4m3 GEMM, 1x128/128x128 scales folded in per 128-K block (promotion), setup-quantised",
     .archs = sm90a,
     .config = fw_block_config_hook},
    {.name = "autoquant_block",
     .summary = "from bf16 each call: one pass of 1x128/128x128 quantisation, then klab's block-scaled wgmma GEMM",
     .archs = sm90a,
     .config = fw_block_config_hook},
    {.name = NULL},
};

static const char *const params[] = {"fast_accum", NULL};
static const char *const dims[] = {"m", "n", "k", NULL};

static const klab_plugin descriptor = {
    KLAB_DESCRIPTOR_HEADER,
    .name = "fp8_gemm",
    .version = "1.0.0",
    .summary = "fp8 e4m3 GEMM D = A W^T from bf16 A (m x k) and W (n x k): pre-quantised and quantise-each-call, "
               "errors beside the bf16 GEMM's",
    .profiles = profiles,
    .baseline = "cublaslt",
    .dtypes = KLAB_DTYPE_BIT(KLAB_FP8_E4M3),
    .min_cc = 80,
    .params = params,
    .dims = dims,
    .setup = fg_setup,
    .run = fg_run,
    .verify = fg_verify,
    .teardown = fg_teardown,
    .work = fg_work,
    .tolerance = fg_tolerance,
};

KLAB_PLUGIN_ENTRY(descriptor)
