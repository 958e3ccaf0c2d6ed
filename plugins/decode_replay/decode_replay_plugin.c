/* decode_replay.so: the descriptor and hooks. The step: decode_replay.h; kernels: decode_replay_kernels.cu
 * (the GEMV, the launches), decode_replay_attention.cuh (the split and fused attention paths),
 * decode_replay_attn_mma.cuh (the mma path: the fused one on tensor cores), decode_replay_stream.cuh
 * (gemv=stream: O and down on the TMA weight stream, its maps), decode_replay_step.cuh (PDL, the cursor,
 * the probes' stamps); geometry, bytes and schedule: decode_replay_geom.c; the float64
 * reference: decode_replay_reference.c; probes: decode_replay_probes.c.
 *
 * Profiles, one function:
 *   eager            every kernel launched from the host each step (launch->tensors)
 *   graph            the whole step captured once in setup, one cudaGraphLaunch a step
 *   graph_piecewise  a graph per layer, replayed one after another on the stream
 *   graph_pdl        the whole step captured with programmatic dependent launch edges (sm_90)
 * The graphs bake in setup's tensors (KLAB_PROFILE_FIXED_TENSORS) and are the plugin's own
 * (KLAB_PROFILE_OWNS_GRAPH). Fixed and dynamic are cases (param.schedule), not profiles: their
 * functions differ. Every profile's tuning space is the attention's path (`attn=fused`, `attn=split`,
 * `attn=mma`, the own choice, and `attn=mma_cluster`, sm_90a only) times the GEMV (`gemv=plain`, the own
 * choice, `gemv=pipe,ksplit=1|2|4` and `gemv=stream`, sm_90a only): 20 configurations and the own choice a
 * profile, 84 entries over the four profiles (--tune's cap for a case and dtype is 96). graph_pdl, sm_90a
 * only, has an own choice of its own (dr_pdl_own_config: the cluster attention and the stream, its ring
 * by hidden: dr_stream_stages), so `klab --tune` times them in the same rounds: setup captures each graph
 * once a configuration. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <cuda_runtime.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "klab/cuda.h"
#include "klab/plugin.h"
#include "decode_replay.h"
#include "decode_replay_probes.h"
#include "row/rope.h"

typedef struct dr_state {
    klab_ctx *ctx;
    const klab_host *host;
    klab_dtype dtype;
    dr_geom g;
    int idx[DR_T_COUNT];    /* launch->tensors index of each tensor (DR_T_*), -1 when absent */
    int ntensors;
    void *made[DR_T_COUNT]; /* setup's pointers in launch->tensors' order: what the graphs are bound to */
    cudaGraphExec_t whole[DR_NCONFIGS], pdl[DR_NCONFIGS], *piece[DR_NCONFIGS]; /* by configuration */
    int cc;                        /* the device's compute capability: gemv=stream needs sm_90a */
    dr_stream *maps, *eager_maps;  /* gemv=stream's TMA maps of setup's tensors (the graphs'), of eager's */
    dr_probes probes;
    const char *case_name;
    /* the reference of the last verify, and what it was computed from */
    double *memo[4];
    size_t memo_n[4];
    uint64_t memo_key;
    int memo_ok;
} dr_state;

static const char *const profile_names[DR_NPROFILES] = {"eager", "graph", "graph_piecewise", "graph_pdl"};

/* Setup's pointer of tensor id (DR_T_*), NULL when the case has none. */
static void *made(const dr_state *st, int id)
{
    return st->idx[id] >= 0 ? st->made[st->idx[id]] : NULL;
}

/* configuration c's graph of layers [l0, l1) */
static klab_status capture(dr_state *st, int c, int l0, int l1, int pdl, unsigned long long *probe,
                           cudaGraphExec_t *exec)
{
    int attn, gemv;
    if (dr_config_paths(c, &attn, &gemv) != 0)
        return st->host->error(st->ctx, "no configuration %d", c);
    const klab_host *host = st->host;
    cudaStream_t s = (cudaStream_t)host->stream(st->ctx);
    dr_dev d;
    dr_bind(st->idx, st->made, probe, &d);
    d.stream = st->maps;
    cudaGraph_t graph = NULL;
    KLAB_CUDA(host, st->ctx, cudaStreamSynchronize(s));
    KLAB_CUDA(host, st->ctx, cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    const int e = dr_enqueue(st->dtype, &st->g, &d, attn, gemv, l0, l1, pdl, s);
    const cudaError_t ec = cudaStreamEndCapture(s, &graph);
    KLAB_CUDA(host, st->ctx, (cudaError_t)e);
    KLAB_CUDA(host, st->ctx, ec);
    const cudaError_t ei = cudaGraphInstantiate(exec, graph, 0);
    cudaGraphDestroy(graph);
    KLAB_CUDA(host, st->ctx, ei);
    KLAB_CUDA(host, st->ctx, cudaGraphUpload(*exec, s));
    return KLAB_OK;
}

/* The weights' values: uniform with variance 1/K so every projection of a unit-rms input has unit variance
   (fp16 would overflow at llama8b's sizes with weights in [-1, 1)); the norms' gains around 1. */
static klab_status fill_weights(dr_state *st)
{
    const klab_host *h = st->host;
    const dr_geom *g = &st->g;
    const double qd = (double)(g->heads * g->head_dim);
    const struct { int t; double k; } w[] = {{DR_T_WQKV, (double)g->hidden}, {DR_T_WO, qd},
                                             {DR_T_WGU, (double)g->hidden}, {DR_T_WD, (double)g->inter}};
    for (size_t i = 0; i < sizeof w / sizeof w[0]; i++) {
        const double a = sqrt(3.0 / w[i].k);
        if (h->fill_uniform(st->ctx, made(st, w[i].t), -a, a) != KLAB_OK)
            return KLAB_ERROR;
    }
    if (h->fill_uniform(st->ctx, made(st, DR_T_GATTN), 0.5, 1.5) != KLAB_OK ||
        h->fill_uniform(st->ctx, made(st, DR_T_GMLP), 0.5, 1.5) != KLAB_OK)
        return KLAB_ERROR;
    return KLAB_OK;
}

/* RoPE tables (rmsnorm_rope's, for positions 0 .. kv-1), the schedule, the cursor at 0. */
static klab_status fill_tables(dr_state *st)
{
    const dr_geom *g = &st->g;
    rope_geom rg;
    memset(&rg, 0, sizeof rg);
    rg.head_dim = (size_t)g->head_dim;
    rg.cache = (size_t)g->kv;
    const size_t ntab = (size_t)g->kv * (size_t)g->head_dim / 2, nsch = (size_t)(g->steps * g->batch);
    float *c = malloc(ntab * sizeof *c), *s = malloc(ntab * sizeof *s);
    int32_t *lens = malloc(nsch * sizeof *lens);
    const int32_t zero = 0;
    klab_status ks = KLAB_ERROR;
    if (c && s && lens) {
        rope_tables(&rg, c, s);
        dr_schedule(g, st->host->seed(st->ctx), lens);
        ks = st->host->fill_data(st->ctx, made(st, DR_T_COS), c, ntab);
        if (ks == KLAB_OK)
            ks = st->host->fill_data(st->ctx, made(st, DR_T_SIN), s, ntab);
        if (ks == KLAB_OK)
            ks = st->host->fill_data(st->ctx, made(st, DR_T_LENS), lens, nsch);
        if (ks == KLAB_OK)
            ks = st->host->fill_data(st->ctx, made(st, DR_T_CURSOR), &zero, 1);
    } else {
        st->host->error(st->ctx, "out of memory");
    }
    free(c);
    free(s);
    free(lens);
    return ks;
}

static klab_status make_tensors(dr_state *st)
{
    dr_tensor_spec spec[DR_T_COUNT];
    const int n = dr_tensor_specs(&st->g, st->dtype, spec);
    dr_tensor_index(spec, n, st->idx);
    for (int i = 0; i < n; i++)
        if (!(st->made[i] = st->host->tensor(st->ctx, spec[i].name, spec[i].role, spec[i].dtype, spec[i].count)))
            return KLAB_ERROR;
    st->ntensors = n;
    if (!st->g.attn_only && fill_weights(st) != KLAB_OK)
        return KLAB_ERROR;
    return fill_tables(st);
}

static void dr_teardown(void *state);

/* Whether configuration c runs here; if not, why. gemv=stream's and attn=mma_cluster's kernels are
   sm_90a code (elsewhere a trap); the cluster path needs its splits in one cluster. */
static const char *config_refusal(const dr_state *st, int c)
{
    int attn, gemv;
    if (dr_config_paths(c, &attn, &gemv) != 0)
        return "no such configuration";
    if (gemv == DR_GEMV_STREAM && st->cc != 90)
        return "gemv=stream: the TMA weight stream is sm_90a code";
    if (attn == DR_ATTN_MMA_CLUSTER && st->cc != 90)
        return "attn=mma_cluster: thread-block clusters are sm_90a code here";
    if (attn == DR_ATTN_MMA_CLUSTER && !dr_cluster_fits(&st->g))
        return "attn=mma_cluster: dim.chunk makes more splits than a cluster holds (16)";
    return NULL;
}

static int config_runs(const dr_state *st, int c)
{
    return config_refusal(st, c) == NULL;
}

/* gemv=stream's maps of setup's tensors, and room for eager's: encoded once, here */
static klab_status make_maps(dr_state *st)
{
    if (st->g.attn_only || st->cc != 90)
        return KLAB_OK; /* no O or down projection; no stream kernel to run */
    if (!(st->maps = dr_stream_new(st->g.layers)) || !(st->eager_maps = dr_stream_new(st->g.layers)))
        return st->host->error(st->ctx, "out of memory");
    char why[400];
    dr_dev d;
    dr_bind(st->idx, st->made, NULL, &d);
    if (dr_stream_bind(st->maps, st->dtype, &st->g, &d, why, sizeof why) != 0)
        return st->host->error(st->ctx, "case %s: %s", st->case_name, why);
    return KLAB_OK;
}

static klab_status dr_setup(klab_ctx *ctx, const klab_host *host, const klab_case *k, void **state)
{
    char why[400];
    dr_geom g;
    if (dr_geometry(k, &g, why, sizeof why) != 0)
        return host->error(ctx, "%s", why);
    const char *pr = klab_case_param(k, "probes");
    const int stamps = pr && !strcmp(pr, "1");
    if (pr && !stamps && strcmp(pr, "0"))
        return host->error(ctx, "case %s: param.probes = %s: 0 or 1", k->name, pr);
    dr_state *st = calloc(1, sizeof *st);
    if (!st)
        return host->error(ctx, "out of memory");
    st->ctx = ctx, st->host = host, st->dtype = k->dtype, st->g = g, st->case_name = k->name;
    *state = st;
    const int kpl = dr_kernels_per_layer(&g), cc = host->device_cc(ctx);
    st->cc = cc;
    klab_status ks = make_tensors(st);
    if (ks == KLAB_OK)
        ks = make_maps(st);
    if (ks == KLAB_OK && dr_probes_open(&st->probes, stamps, (int)g.layers * kpl, kpl, host->stream(ctx), why,
                                        sizeof why) != 0)
        ks = host->error(ctx, "case %s: %s", k->name, why);
    for (int a = 0; a < DR_NCONFIGS; a++) {
        if (!config_runs(st, a))
            continue; /* run() refuses it */
        if (ks == KLAB_OK)
            ks = capture(st, a, 0, (int)g.layers, 0, dr_probes_ring(&st->probes, DR_GRAPH), &st->whole[a]);
        if (ks == KLAB_OK && cc >= 90)
            ks = capture(st, a, 0, (int)g.layers, 1, dr_probes_ring(&st->probes, DR_GRAPH_PDL), &st->pdl[a]);
        if (ks == KLAB_OK && !(st->piece[a] = calloc((size_t)g.layers, sizeof *st->piece[a])))
            ks = host->error(ctx, "out of memory");
        for (int l = 0; ks == KLAB_OK && l < g.layers; l++)
            ks = capture(st, a, l, l + 1, 0, dr_probes_ring(&st->probes, DR_GRAPH_PIECEWISE), &st->piece[a][l]);
    }
    if (ks != KLAB_OK) {
        dr_teardown(st);
        *state = NULL;
    }
    return ks;
}

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

/* The graphs hold setup's pointers: a run on other tensors (another copy, another instance's) would read
   and write what the host does not check. */
static int setup_tensors(const dr_state *st, const klab_launch *l)
{
    if (l->ntensors != st->ntensors)
        return 0;
    for (int i = 0; i < st->ntensors; i++)
        if (l->tensors[i] != st->made[i])
            return 0;
    return 1;
}

static klab_status dr_run(void *state, const klab_launch *l)
{
    dr_state *st = state;
    cudaStream_t s = (cudaStream_t)l->stream;
    const double t0 = now_us();
    int attn, gemv;
    const int config = l->config == -1 && l->profile == DR_GRAPH_PDL ? dr_pdl_own_config(&st->g) : l->config;
    if (dr_config_paths(config, &attn, &gemv) != 0)
        return st->host->error(st->ctx, "no configuration %d", l->config);
    const int a = attn * DR_NGEMV + gemv; /* the graphs' index */
    const char *no = config_refusal(st, a);
    if (no) {
        st->host->error(st->ctx, "%s (this device is sm_%d)", no, st->cc);
        return KLAB_UNSUPPORTED;
    }
    if (l->profile > DR_EAGER && l->profile < DR_NPROFILES && !setup_tensors(st, l))
        return st->host->error(st->ctx, "profile %s: run() was handed tensors other than setup's, which its graphs "
                                        "are bound to (KLAB_PROFILE_FIXED_TENSORS)",
                               profile_names[l->profile]);
    switch (l->profile) {
    case DR_EAGER: {
        dr_dev d;
        dr_bind(st->idx, l->tensors, dr_probes_ring(&st->probes, DR_EAGER), &d);
        if (gemv == DR_GEMV_STREAM && !st->g.attn_only) {
            char why[400];
            if (dr_stream_bind(st->eager_maps, st->dtype, &st->g, &d, why, sizeof why) != 0)
                return st->host->error(st->ctx, "case %s: %s", st->case_name, why);
            d.stream = st->eager_maps;
        }
        KLAB_CUDA(st->host, st->ctx, (cudaError_t)dr_enqueue(st->dtype, &st->g, &d, attn, gemv, 0, (int)st->g.layers, 0,
                                                                 s));
        break;
    }
    case DR_GRAPH:
        KLAB_CUDA(st->host, st->ctx, cudaGraphLaunch(st->whole[a], s));
        break;
    case DR_GRAPH_PIECEWISE:
        for (int i = 0; i < st->g.layers; i++)
            KLAB_CUDA(st->host, st->ctx, cudaGraphLaunch(st->piece[a][i], s));
        break;
    case DR_GRAPH_PDL:
        if (!st->pdl[a])
            return KLAB_UNSUPPORTED;
        KLAB_CUDA(st->host, st->ctx, cudaGraphLaunch(st->pdl[a], s));
        break;
    default:
        return st->host->error(st->ctx, "no profile %d", l->profile);
    }
    dr_probes_enqueue(&st->probes, l->profile, now_us() - t0);
    return KLAB_OK;
}

/* What the reference depends on, cheaply: every input's bits, the steps and the cursor. The inputs are
   the case's for the whole setup (states restored to the same contents), so this only guards the memo.
   Its two sums are integer ones (mod 2^64, and xor), whose order never matters: inputs of gigabytes are
   summed in chunks on the host's threads, with the one loop's value. */
#define KEY_CHUNK 65536

typedef struct key_job {
    const double *x;
    uint64_t *a0, *a1; /* a partial of each sum a chunk */
} key_job;

static void key_chunk(void *arg, size_t j0, size_t j1)
{
    const key_job *k = arg;
    uint64_t a0 = 0, a1 = 0;
    for (size_t j = j0; j < j1; j++) {
        uint64_t b;
        memcpy(&b, k->x + j, sizeof b); /* the double's bits */
        a0 += b * (2 * j + 1), a1 ^= b + j;
    }
    k->a0[j0 / KEY_CHUNK] = a0;
    k->a1[j0 / KEY_CHUNK] = a1;
}

static uint64_t inputs_key(const dr_state *st, const klab_verify_io *io)
{
    uint64_t h = 0xcbf29ce484222325ull ^ (uint64_t)io->steps;
    for (int i = 0; i < io->n_in; i++) {
        const size_t n = io->in_count[i], nc = n / KEY_CHUNK + 1;
        uint64_t a0 = 0, a1 = 0, *part = malloc(2 * nc * sizeof *part);
        key_job k = {io->in[i], part, part + nc};
        if (part) {
            klab_parallel_for(st->host, st->ctx, n, KEY_CHUNK, key_chunk, &k);
            for (size_t c = 0; c * KEY_CHUNK < n; c++)
                a0 += k.a0[c], a1 ^= k.a1[c];
        } else { /* no memory for the partials: one chunk here */
            uint64_t one[2];
            k.a0 = one, k.a1 = one + 1;
            key_chunk(&k, 0, n);
            a0 = one[0], a1 = one[1];
        }
        free(part);
        h = (h ^ a0) * 0x100000001b3ull ^ a1;
    }
    return h;
}

static klab_status dr_verify(void *state, const klab_case *k, const klab_verify_io *io)
{
    dr_state *st = state;
    (void)k;
    /* in: x, [weights], cos, sin, lens, k_cache, v_cache, cursor; out: k_cache, v_cache, cursor, y */
    const int no = 4, base = st->idx[DR_T_LENS] + 1;
    if (io->n_out != no || io->n_in != base + 3)
        return st->host->error(st->ctx, "verify: %d inputs and %d outputs, expected %d and %d", io->n_in, io->n_out,
                               base + 3, no);
    for (int o = 0; o < no; o++)
        if (io->sample && io->sample[o])
            return st->host->error(st->ctx, "verify: sampled outputs were not asked for");
    const uint64_t key = inputs_key(st, io);
    if (!(st->memo_ok && st->memo_key == key)) {
        st->memo_ok = 0;
        for (int o = 0; o < no; o++) {
            free(st->memo[o]);
            st->memo_n[o] = io->out_count[o];
            if (!(st->memo[o] = malloc(io->out_count[o] * sizeof(double))))
                return st->host->error(st->ctx, "out of memory");
        }
        memcpy(st->memo[0], io->in[base], io->out_count[0] * sizeof(double));
        memcpy(st->memo[1], io->in[base + 1], io->out_count[1] * sizeof(double));
        const double *const *in = io->in;
#define IN(t) (st->idx[t] >= 0 ? in[st->idx[t]] : NULL)
        const dr_ref_in ri = {IN(DR_T_X), IN(DR_T_WQKV), IN(DR_T_WO), IN(DR_T_WGU), IN(DR_T_WD), IN(DR_T_GATTN),
                              IN(DR_T_GMLP), IN(DR_T_COS), IN(DR_T_SIN), IN(DR_T_LENS), (int64_t)in[base + 2][0]};
#undef IN
        /* a fixed schedule's steps are the same step replayed (the same x, the same slot written with the
           same values): one step stands for any number */
        const int64_t steps = st->g.dynamic ? io->steps : (io->steps > 0 ? 1 : 0);
        if (dr_reference(st->host, st->ctx, &st->g, &ri, steps, st->memo[0], st->memo[1], st->memo[3]) != 0)
            return st->host->error(st->ctx, "out of memory");
        st->memo[2][0] = in[base + 2][0] + (double)io->steps;
        st->memo_key = key;
        st->memo_ok = 1;
    }
    for (int o = 0; o < no; o++)
        memcpy(io->out[o], st->memo[o], io->out_count[o] * sizeof(double));
    return KLAB_OK;
}

static void dr_teardown(void *state)
{
    dr_state *st = state;
    if (!st)
        return;
    char why[400];
    if (dr_probes_write(&st->probes, st->case_name, st->dtype == KLAB_FP16 ? "fp16" : "bf16", profile_names, why,
                        sizeof why) != 0)
        st->host->log(st->ctx, "probes not written: %s", why);
    dr_probes_close(&st->probes);
    for (int a = 0; a < DR_NCONFIGS; a++) {
        if (st->whole[a])
            cudaGraphExecDestroy(st->whole[a]);
        if (st->pdl[a])
            cudaGraphExecDestroy(st->pdl[a]);
        for (int l = 0; st->piece[a] && l < st->g.layers; l++)
            if (st->piece[a][l])
                cudaGraphExecDestroy(st->piece[a][l]);
        free(st->piece[a]);
    }
    dr_stream_free(st->maps);
    dr_stream_free(st->eager_maps);
    for (int o = 0; o < 4; o++)
        free(st->memo[o]);
    free(st);
}

static void dr_work(const klab_case *k, klab_work *w)
{
    dr_geom g;
    char why[8];
    if (dr_geometry(k, &g, why, sizeof why) != 0)
        return;
    w->bytes = dr_step_bytes(&g, klab_dtype_size(k->dtype));
    w->flops = dr_step_flops(&g);
}

/* The reference rounds nothing; the device rounds q, k, v, o, h and the MLP's activation to the dtype at
   every layer, and each rounding of h carries into every later layer: twice the host's default. */
static double dr_tolerance(const klab_case *k)
{
    return k->dtype == KLAB_BF16 ? 3.2e-2 : 4e-3;
}

/* The attention's path and the GEMV: the same for every case (the fused path's plan is its own, in
   dr_geometry). */
static const char *dr_config(const klab_case *k, int index)
{
    (void)k;
    return dr_config_name(index);
}

/* graph_pdl's: the same space, its own choice the case's (dr_pdl_own_config) */
static const char *dr_config_pdl(const klab_case *k, int index)
{
    dr_geom g;
    char why[256];
    if (index != -1 || dr_geometry(k, &g, why, sizeof why) != 0)
        return dr_config_name(index);
    return dr_config_name(dr_pdl_own_config(&g));
}

static const int sm90[] = {90, 0};
#define DR_GRAPHS (KLAB_PROFILE_OWNS_GRAPH | KLAB_PROFILE_FIXED_TENSORS)
static const klab_profile profiles[] = {
    {.name = "eager", .summary = "every kernel of the step launched from the host", .config = dr_config},
    {.name = "graph", .summary = "the whole step one CUDA graph, captured in setup", .flags = DR_GRAPHS,
     .config = dr_config},
    {.name = "graph_piecewise", .summary = "a CUDA graph per layer, replayed in turn on the stream", .flags = DR_GRAPHS,
     .config = dr_config},
    {.name = "graph_pdl",
     .summary = "the whole step one graph with programmatic dependent launch: weight prefetch under the previous tail",
     .flags = DR_GRAPHS,
     .archs = sm90,
     .config = dr_config_pdl},
    {.name = NULL},
};

static const klab_plugin descriptor = {
    KLAB_DESCRIPTOR_HEADER,
    .name = "decode_replay",
    .version = "1.8.0", /* 1.2.0: the GEMV axis; 1.3.0: attn=mma; 1.4.0: gemv=stream; 1.5.0: attn=mma_cluster,
                           graph_pdl's own choice; 1.6.0: the stream's ring by hidden (8 stages below 4096),
                           graph_pdl's stream at every hidden, the cluster plan's floor of two tiles a warp;
                           1.7.0: gemv=stream streams QKV (hidden >= 4096) and gate/up (B > 1 or hidden >=
                           4096), their RMSNorm the stream's resident tokens; 1.8.0: the cluster attention's
                           splits merged by pushes, one cluster barrier (attn-only 0.91x the time). A choice
                           cached by an older version was made without them */
    .summary = "a Llama-style decode step (B sequences, resident KV cache) eager and replayed through CUDA graphs",
    .profiles = profiles,
    .baseline = "eager",
    .dtypes = KLAB_DTYPE_BIT(KLAB_FP16) | KLAB_DTYPE_BIT(KLAB_BF16),
    .min_cc = 80,
    .params = dr_params,
    .dims = dr_dims,
    .flags = KLAB_PLUGIN_STEPS,
    .default_steps = DR_DEFAULT_STEPS,
    .setup = dr_setup,
    .run = dr_run,
    .verify = dr_verify,
    .teardown = dr_teardown,
    .work = dr_work,
    .tolerance = dr_tolerance,
};

KLAB_PLUGIN_ENTRY(descriptor)
