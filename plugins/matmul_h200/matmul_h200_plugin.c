/* matmul_h200.so: the descriptor and hooks (matmul_h200.h says what each profile is). Kernels:
 * matmul_h200_tiled.cu, matmul_h200_wgmma.cu (plugins/lib/hopper/hopper_gemm.cuh), matmul_h200_skinny.cu;
 * the device check:
 * matmul_h200_check.cu; the tuning space and float64 reference: matmul_h200_config.c.
 *
 * Verification, per row (the configuration's `check=`): small cases compare every element against
 * float64; larger ones MM_SAMPLES fresh elements a verified run (host->sample_outputs); outputs of
 * MM_FULL_CHECK_ELEMS or more are also compared whole, at setup, against cuBLAS's fp32-accumulate
 * result on the device, for every configuration of every profile this device runs: a configuration
 * that fails it fails its rows in run(), saying how many elements and where. */
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <stdlib.h>

#include "klab/cuda.h"
#include "klab/plugin.h"
#include "matmul_h200.h"

enum { T_A = 0, T_B, T_C, T_WS };
#define MM_MAX_CONFIGS 40 /* the longest space (wgmma_persistent: 40) */
#define CUBLAS_WS_BYTES ((size_t)32 << 20)

typedef struct mm_devcheck {
    int done;                /* 1: compared whole; 0: not (no such configuration, or declined) */
    unsigned bad;            /* elements past the bound */
    unsigned long long first; /* the lowest such element */
} mm_devcheck;

typedef struct mm_state {
    klab_ctx *ctx;
    const klab_host *host;
    klab_dtype dtype;
    mm_case c;
    int sms, cc;
    cublasHandle_t blas;
    void *blas_ws;
    /* serial split-K's tickets, zero between runs (the last split of a tile resets its own). The
       plugin's own memory, not a host tensor: the host poisons scratch tensors, while tickets must
       start at 0; runs on one stream, graphs included, are ordered, so every run finds them so. */
    unsigned *tickets;
    mm_devcheck dev[MM_PROFILES][MM_MAX_CONFIGS + 1]; /* [profile][config + 1] */
} mm_state;

static cudaDataType_t cuda_type(klab_dtype d) { return d == KLAB_BF16 ? CUDA_R_16BF : CUDA_R_16F; }

/* C (M x N, row-major) = A B through cuBLAS, with C of type ct: see matmul_h200.h for the layouts. */
static klab_status blas_gemm(mm_state *st, klab_stream s, const void *a, const void *b, void *out, cudaDataType_t ct)
{
    const float one = 1.f, zero = 0.f;
    const cudaDataType_t t = cuda_type(st->dtype);
    cublasStatus_t e = cublasSetStream(st->blas, (cudaStream_t)s);
    if (e == CUBLAS_STATUS_SUCCESS)
        e = cublasGemmEx(st->blas, CUBLAS_OP_N, CUBLAS_OP_N, (int)st->c.n, (int)st->c.m, (int)st->c.k, &one, b, t,
                         (int)st->c.n, a, t, (int)st->c.k, &zero, out, ct, (int)st->c.n, CUBLAS_COMPUTE_32F,
                         CUBLAS_GEMM_DEFAULT);
    if (e != CUBLAS_STATUS_SUCCESS)
        return st->host->error(st->ctx, "cublasGemmEx %lld x %lld x %lld: %s", (long long)st->c.m, (long long)st->c.n,
                               (long long)st->c.k, cublasGetStatusString(e));
    return KLAB_OK;
}

static int profile_runs_here(const mm_state *st, int p) { return p < MM_WGMMA || st->cc == 90; }

/* One run of (profile, config) on the given buffers. */
static klab_status mm_launch(mm_state *st, int profile, int config, klab_stream s, const void *a, const void *b,
                             void *out, float *ws)
{
    char why[512];
    int rc = 0;
    if (profile == MM_CUBLAS)
        return blas_gemm(st, s, a, b, out, cuda_type(st->dtype));
    if (profile == MM_TILED) {
        rc = mm_tiled_launch(st->dtype, &st->c, a, b, out, s, why, sizeof why);
    } else {
        mm_config cfg;
        if (!mm_config_of(profile, &st->c, config, &cfg))
            return st->host->error(st->ctx, "configuration %d is past the end of the tuning space", config);
        rc = profile == MM_SKINNY ? mm_skinny_launch(st->dtype, &st->c, &cfg, a, b, out, s, why, sizeof why)
                                  : mm_wgmma_launch(st->dtype, &st->c, &cfg, a, b, out, ws, st->tickets, st->sms, s,
                                                    why, sizeof why);
    }
    if (rc == 1) {
        st->host->error(st->ctx, "%s", why);
        return KLAB_UNSUPPORTED;
    }
    return rc ? st->host->error(st->ctx, "%s", why) : KLAB_OK;
}

/* The whole output of every configuration this device runs against cuBLAS's fp32 result (see top). */
static klab_status device_check(mm_state *st, const void *a, const void *b, size_t ws_floats)
{
    const size_t mn = (size_t)(st->c.m * st->c.n);
    klab_stream s = st->host->stream(st->ctx);
    float *ref = NULL, *ws = NULL;
    void *out = NULL;
    unsigned *bad = NULL;
    unsigned long long *first = NULL;
    klab_status ks = KLAB_OK;
    cudaError_t e = cudaMalloc((void **)&ref, mn * sizeof(float));
    if (e == cudaSuccess)
        e = cudaMalloc(&out, mn * klab_dtype_size(st->dtype));
    if (e == cudaSuccess && ws_floats)
        e = cudaMalloc((void **)&ws, ws_floats * sizeof(float));
    if (e == cudaSuccess)
        e = cudaMalloc((void **)&bad, 2 * sizeof(unsigned long long)); /* the count, then the first index */
    first = bad ? (unsigned long long *)(void *)(bad + 2) : NULL;
    if (e != cudaSuccess) {
        ks = st->host->error(st->ctx, "device check buffers: CUDA error %d %s", (int)e, cudaGetErrorString(e));
        goto done;
    }
    if ((ks = blas_gemm(st, s, a, b, ref, CUDA_R_32F)) != KLAB_OK)
        goto done;
    for (int p = 0; p < MM_PROFILES && ks == KLAB_OK; p++) {
        if (!profile_runs_here(st, p))
            continue;
        for (int i = -1; i < MM_MAX_CONFIGS && ks == KLAB_OK; i++) {
            mm_config cfg;
            if (i >= 0 && (p < MM_WGMMA || !mm_config_of(p, &st->c, i, &cfg)))
                break;
            mm_devcheck *d = &st->dev[p][i + 1];
            const unsigned long long none = ~0ull;
            /* all-ones halves are NaN: an element the run leaves unwritten is bad */
            if ((e = cudaMemsetAsync(out, 0xff, mn * klab_dtype_size(st->dtype), (cudaStream_t)s)) != cudaSuccess ||
                (e = cudaMemsetAsync(bad, 0, sizeof(unsigned), (cudaStream_t)s)) != cudaSuccess ||
                (e = cudaMemcpyAsync(first, &none, sizeof none, cudaMemcpyHostToDevice, (cudaStream_t)s)) !=
                    cudaSuccess) {
                ks = st->host->error(st->ctx, "device check: CUDA error %d %s", (int)e, cudaGetErrorString(e));
                break;
            }
            klab_status r = mm_launch(st, p, i, s, a, b, out, ws);
            if (r == KLAB_UNSUPPORTED)
                continue; /* run() declines it the same way */
            if (r != KLAB_OK) {
                ks = r;
                break;
            }
            if ((e = (cudaError_t)mm_check_launch(st->dtype, &st->c, out, ref, bad, first, s)) != cudaSuccess ||
                (e = cudaMemcpyAsync(&d->bad, bad, sizeof d->bad, cudaMemcpyDeviceToHost, (cudaStream_t)s)) !=
                    cudaSuccess ||
                (e = cudaMemcpyAsync(&d->first, first, sizeof d->first, cudaMemcpyDeviceToHost, (cudaStream_t)s)) !=
                    cudaSuccess ||
                (e = cudaStreamSynchronize((cudaStream_t)s)) != cudaSuccess) {
                ks = st->host->error(st->ctx, "device check of profile %d configuration %d: CUDA error %d %s", p, i,
                                     (int)e, cudaGetErrorString(e));
                break;
            }
            d->done = 1;
        }
    }
done:
    cudaFree(ref);
    cudaFree(out);
    cudaFree(ws);
    cudaFree(bad);
    return ks;
}

static void mm_teardown(void *state)
{
    mm_state *st = state;
    if (st->blas)
        cublasDestroy(st->blas);
    cudaFree(st->blas_ws);
    cudaFree(st->tickets);
    free(st);
}

static klab_status mm_setup(klab_ctx *ctx, const klab_host *host, const klab_case *k, void **state)
{
    char why[512];
    mm_case c;
    if (mm_case_of(k, &c, why, sizeof why) != 0)
        return host->error(ctx, "%s", why);
    mm_state *st = calloc(1, sizeof *st);
    if (!st)
        return host->error(ctx, "out of memory");
    st->ctx = ctx, st->host = host, st->dtype = k->dtype, st->c = c, st->cc = host->device_cc(ctx);
    klab_device dev;
    if (klab_device_of(host, ctx, &dev) != KLAB_OK) {
        free(st);
        return KLAB_ERROR;
    }
    st->sms = dev.sm_count;
    klab_status ks = KLAB_OK;
    cudaError_t e = cudaMalloc(&st->blas_ws, CUBLAS_WS_BYTES);
    if (e == cudaSuccess)
        e = cudaMalloc((void **)&st->tickets, mm_tickets(&c) * sizeof(unsigned));
    if (e == cudaSuccess)
        e = cudaMemsetAsync(st->tickets, 0, mm_tickets(&c) * sizeof(unsigned), (cudaStream_t)host->stream(ctx));
    if (e != cudaSuccess) {
        mm_teardown(st);
        return host->error(ctx, "CUDA error %d %s", (int)e, cudaGetErrorString(e));
    }
    /* a workspace of its own, so cuBLAS allocates nothing inside a captured graph */
    if (cublasCreate(&st->blas) != CUBLAS_STATUS_SUCCESS ||
        cublasSetWorkspace(st->blas, st->blas_ws, CUBLAS_WS_BYTES) != CUBLAS_STATUS_SUCCESS)
        ks = host->error(ctx, "cublasCreate or cublasSetWorkspace failed");
    /* split-K partials: the largest any configuration of the space needs that fits the cap */
    size_t ws = 1;
    mm_config cfg;
    for (int i = -1; mm_config_of(MM_SPLITK, &c, i, &cfg); i++) {
        size_t need = mm_workspace(&c, &cfg);
        if (need <= MM_WORKSPACE_FLOATS && need > ws)
            ws = need;
    }
    void *a = NULL, *b = NULL;
    if (ks == KLAB_OK &&
        (!(a = host->tensor(ctx, "a", KLAB_INPUT, k->dtype, (size_t)(c.m * c.k))) ||
         !(b = host->tensor(ctx, "b", KLAB_INPUT, k->dtype, (size_t)(c.k * c.n))) ||
         !host->tensor(ctx, "c", KLAB_OUTPUT, k->dtype, (size_t)(c.m * c.n)) ||
         !host->tensor(ctx, "splitk_partials", KLAB_SCRATCH, KLAB_FP32, ws)))
        ks = KLAB_ERROR;
    if (ks == KLAB_OK && strcmp(mm_check_name(&c), "full") != 0)
        ks = host->sample_outputs(ctx, MM_SAMPLES);
    if (ks == KLAB_OK && c.m * c.n >= MM_FULL_CHECK_ELEMS)
        ks = device_check(st, a, b, ws > 1 ? ws : 0);
    if (ks != KLAB_OK) {
        mm_teardown(st);
        return ks;
    }
    *state = st;
    return KLAB_OK;
}

static klab_status mm_run(void *state, const klab_launch *l)
{
    mm_state *st = state;
    const int slot = l->config + 1;
    if (slot >= 0 && slot <= MM_MAX_CONFIGS) {
        const mm_devcheck *d = &st->dev[l->profile][slot];
        if (d->done && d->bad)
            return st->host->error(st->ctx,
                                   "the full output differs from cuBLAS's fp32-accumulate result at %u of %lld "
                                   "elements (the first at row %llu, column %llu)",
                                   d->bad, (long long)(st->c.m * st->c.n), d->first / (unsigned long long)st->c.n,
                                   d->first % (unsigned long long)st->c.n);
    }
    void *const *t = l->tensors;
    return mm_launch(st, l->profile, l->config, l->stream, t[T_A], t[T_B], t[T_C], (float *)t[T_WS]);
}

static klab_status mm_verify(void *state, const klab_case *k, const klab_verify_io *io)
{
    (void)k;
    mm_state *st = state;
    mm_reference(st->host, st->ctx, &st->c, io->in[0], io->in[1], io->sample ? io->sample[0] : NULL,
                 io->out_count[0], io->out[0]);
    return KLAB_OK;
}

/* A and B read once, C written once; 2 M N K flops. */
static void mm_work(const klab_case *k, klab_work *w)
{
    char why[256];
    mm_case c;
    if (mm_case_of(k, &c, why, sizeof why) != 0)
        return;
    const double es = (double)klab_dtype_size(k->dtype);
    w->bytes = es * ((double)c.m * (double)c.k + (double)c.k * (double)c.n + (double)c.m * (double)c.n);
    w->flops = 2.0 * (double)c.m * (double)c.n * (double)c.k;
}

static const char *config_text(int profile, const klab_case *k, int index)
{
    static char ring[64][192]; /* the host may hold a whole space of them (16) at once */
    static unsigned next;
    char why[256];
    mm_case c;
    mm_config cfg = {.group = 1, .splits = 1};
    if (mm_case_of(k, &c, why, sizeof why) != 0)
        return NULL;
    if (profile < MM_WGMMA ? index >= 0 : !mm_config_of(profile, &c, index, &cfg))
        return NULL;
    return mm_config_format(profile, &c, &cfg, ring[next++ % 64], sizeof ring[0]);
}
static const char *cublas_config(const klab_case *k, int i) { return config_text(MM_CUBLAS, k, i); }
static const char *tiled_config(const klab_case *k, int i) { return config_text(MM_TILED, k, i); }
static const char *wgmma_config(const klab_case *k, int i) { return config_text(MM_WGMMA, k, i); }
static const char *persistent_config(const klab_case *k, int i) { return config_text(MM_PERSISTENT, k, i); }
static const char *splitk_config(const klab_case *k, int i) { return config_text(MM_SPLITK, k, i); }
static const char *skinny_config(const klab_case *k, int i) { return config_text(MM_SKINNY, k, i); }

static const int sm90[] = {90, 0};

static const klab_profile profiles[] = {
    {.name = "cublas", .summary = "cublasGemmEx, fp32 compute, the baseline", .config = cublas_config},
    {.name = "tiled", .summary = "shared memory + mma.sync m16n8k16, 128x128x32 tiles, cp.async ring",
     .config = tiled_config},
    {.name = "wgmma", .summary = "TMA ring on mbarriers, producer/consumer warpgroups, wgmma; a CTA a tile",
     .archs = sm90, .config = wgmma_config},
    {.name = "wgmma_persistent",
     .summary = "wgmma, one CTA a resident slot over a tile scheduler: cooperative, ping-pong or 2-CTA clusters",
     .archs = sm90, .config = persistent_config},
    {.name = "wgmma_splitk", .summary = "wgmma with K split into fp32 partials, then a reduction (skinny shapes)",
     .archs = sm90, .config = splitk_config},
    /* sm_90 for the clusters that sum its K ranges */
    {.name = "skinny",
     .summary = "M <= 16: mma.sync on B streamed through registers (v1) or a per-lane cp.async ring (v2), or "
                "wgmma on a TMA ring (v3); K split over warps and a cluster",
     .archs = sm90, .config = skinny_config},
    {.name = NULL},
};

static const char *const dims[] = {"m", "n", "k", NULL};

static const klab_plugin descriptor = {
    KLAB_DESCRIPTOR_HEADER,
    .name = "matmul_h200",
    .version = "1.0.0",
    .summary = "C = A B (row-major, as torch.matmul), bf16/fp16 in and out, fp32 accumulation: cuBLAS, "
               "mma.sync, and Hopper wgmma kernels",
    .profiles = profiles,
    .baseline = "cublas",
    .dtypes = KLAB_DTYPE_BIT(KLAB_FP16) | KLAB_DTYPE_BIT(KLAB_BF16),
    .min_cc = 80,
    .dims = dims,
    .setup = mm_setup,
    .run = mm_run,
    .verify = mm_verify,
    .teardown = mm_teardown,
    .work = mm_work,
};

KLAB_PLUGIN_ENTRY(descriptor)
