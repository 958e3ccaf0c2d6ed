/* decode_replay on the CPU: the case's geometry and its refusals, the split-KV plan, the tuning space
 * (attention path x GEMV), the tensors' sizes, the bytes a step moves, and the length schedule. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "decode_replay.h"
#include "cuda/splitmix.h"

/* CTAs the split-KV attention aims at: two an SM of an H100/H200 (132 SMs), so the KV read spreads
   over every SM with a second CTA to hide each one's start and end. */
#define DR_ATTN_CTAS 264

static int refuse(char *why, size_t whylen, const klab_case *k, const char *what, int64_t v, const char *limit)
{
    snprintf(why, whylen, "case %s: %s = %lld: %s", k->name, what, (long long)v, limit);
    return -1;
}

/* param.key, one of two names: *out 0 for `no` (also when unset), 1 for `yes` */
static int either(const klab_case *k, const char *key, const char *no, const char *yes, int *out, char *why,
                  size_t whylen)
{
    const char *v = klab_case_param(k, key);
    if (!v || !strcmp(v, no))
        *out = 0;
    else if (!strcmp(v, yes))
        *out = 1;
    else {
        snprintf(why, whylen, "case %s: param.%s = %s: %s or %s", k->name, key, v, no, yes);
        return -1;
    }
    return 0;
}

/* param.<key> = 0 or 1 for a projection streamed on resident tokens (1 only where they fit), else plan */
static int stream_switch(const klab_case *k, const char *key, const dr_geom *g, int plan, int *out, char *why,
                         size_t whylen)
{
    const char *v = klab_case_param(k, key);
    const int fit = dr_stream_tokens_fit(g);
    *out = plan;
    if (v && (sscanf(v, "%d", out) != 1 || *out < 0 || *out > 1 || (*out && !fit))) {
        snprintf(why, whylen, "case %s: param.%s = %s: 0, or 1 where its tokens fit (hidden %" PRId64 " at %" PRId64
                 " stages %s)", k->name, key, v, g->hidden, g->stream_stages, fit ? "fit" : "do not");
        return -1;
    }
    return 0;
}

int dr_geometry(const klab_case *k, dr_geom *g, char *why, size_t whylen)
{
    memset(g, 0, sizeof *g);
    if (k->rank != 0)
        return refuse(why, whylen, k, "shape rank", k->rank, "decode_replay takes named dims only (dim.hidden, ...)");
    g->batch = klab_case_dim(k, "batch", 1);
    g->layers = klab_case_dim(k, "layers", 1);
    g->hidden = klab_case_dim(k, "hidden", 4096);
    g->heads = klab_case_dim(k, "heads", 32);
    g->kv_heads = klab_case_dim(k, "kv_heads", 8);
    g->head_dim = klab_case_dim(k, "head_dim", 128);
    g->inter = klab_case_dim(k, "inter", 14336);
    g->kv = klab_case_dim(k, "kv", 4096);
    g->kv_min = klab_case_dim(k, "kv_min", 1);
    g->steps = k->steps > 0 ? k->steps : 1;
    if (g->batch < 1 || g->batch > DR_MAX_BATCH)
        return refuse(why, whylen, k, "dim.batch", g->batch, "the GEMV reuses each weight load over 1 to 8 sequences");
    if (g->head_dim != 64 && g->head_dim != 128)
        return refuse(why, whylen, k, "dim.head_dim", g->head_dim, "the attention kernel takes 64 or 128");
    if (g->kv_heads < 1 || g->heads % g->kv_heads)
        return refuse(why, whylen, k, "dim.heads", g->heads, "not a whole number of query heads per KV head");
    const int64_t grp = g->heads / g->kv_heads;
    if (grp != 1 && grp != 2 && grp != 4 && grp != 8)
        return refuse(why, whylen, k, "query heads per KV head", grp, "1, 2, 4 or 8");
    if (g->batch * g->kv_heads > DR_MAX_TICKETS)
        return refuse(why, whylen, k, "dim.kv_heads", g->kv_heads,
                      "batch * kv_heads at most 4096 (the fused attention's tickets)");
    if (g->hidden < 8 || g->hidden % 8 || g->inter < 8 || g->inter % 8 || (g->heads * g->head_dim) % 8)
        return refuse(why, whylen, k, "dim.hidden", g->hidden,
                      "hidden, inter and heads * head_dim must be whole 16-byte vectors (multiples of 8)");
    if (g->layers < 1 || g->layers > 1024)
        return refuse(why, whylen, k, "dim.layers", g->layers, "1 to 1024");
    if (g->kv < 1 || g->kv > (1 << 24))
        return refuse(why, whylen, k, "dim.kv", g->kv, "1 to 2^24 positions");
    if (g->kv_min < 1 || g->kv_min > g->kv)
        return refuse(why, whylen, k, "dim.kv_min", g->kv_min, "1 to dim.kv");
    if (either(k, "schedule", "fixed", "dynamic", &g->dynamic, why, whylen) != 0 ||
        either(k, "part", "stack", "attn", &g->attn_only, why, whylen) != 0)
        return -1;
    g->eps = DR_DEFAULT_EPS;
    const char *e = klab_case_param(k, "eps");
    if (e && sscanf(e, "%lf", &g->eps) != 1)
        g->eps = -1;
    if (!(g->eps > 0 && g->eps < 1)) {
        snprintf(why, whylen, "case %s: param.eps must be in (0, 1)", k->name);
        return -1;
    }
    /* gemv=stream's ring depth: the plan's (dr_stream_stages), unless the case says */
    g->stream_stages = dr_stream_stages(g);
    const char *ss = klab_case_param(k, "stream_stages");
    if (ss && (sscanf(ss, "%" SCNd64, &g->stream_stages) != 1 || (g->stream_stages != 8 && g->stream_stages != 16))) {
        snprintf(why, whylen, "case %s: param.stream_stages = %s: 8 or 16", k->name, ss);
        return -1;
    }
    /* gemv=stream's QKV and gate/up: the plan's (dr_stream_qkv_default, dr_stream_gateup_default), unless
       the case says */
    if (stream_switch(k, "stream_qkv", g, dr_stream_qkv_default(g), &g->stream_qkv, why, whylen) ||
        stream_switch(k, "stream_gateup", g, dr_stream_gateup_default(g), &g->stream_gateup, why, whylen))
        return -1;
    g->nqkv = (g->heads + 2 * g->kv_heads) * g->head_dim;
    /* chunk: the least multiple of 64 positions that gives at most DR_ATTN_CTAS CTAs, unless dim.chunk
       says (tests force splits on tiny caches) */
    const int64_t per = g->kv_heads * g->batch;
    int64_t chunk = (g->kv * per + DR_ATTN_CTAS - 1) / DR_ATTN_CTAS;
    chunk = (chunk + 63) / 64 * 64;
    g->chunk = klab_case_dim(k, "chunk", chunk < 64 ? 64 : chunk);
    /* bounded as dim.kv is: the kernels take the chunk as an int and add it to a split's first position */
    if (g->chunk < 1 || g->chunk > (1 << 24))
        return refuse(why, whylen, k, "dim.chunk", g->chunk, "1 to 2^24 positions");
    g->splits = (g->kv + g->chunk - 1) / g->chunk;
    /* the fused attention: each CTA loads chunk * D * 2 elements of K and V, and the last CTA of a KV head
       reads every split's fp32 partial o (splits * grp * D floats): the two weigh alike at chunk ~
       sqrt(kv * grp), raised where that gives more than DR_ATTN_CTAS CTAs (at those, two a SM already
       keep more in flight than the DRAM needs); multiples of 32 positions, the ring's tiles at D = 64 */
    int64_t fc = 32;
    while (fc * fc < g->kv * grp)
        fc += 32;
    const int64_t wide = ((g->kv * per + DR_ATTN_CTAS - 1) / DR_ATTN_CTAS + 31) / 32 * 32;
    g->fchunk = klab_case_dim(k, "chunk", wide > fc ? wide : fc);
    g->fsplits = (g->kv + g->fchunk - 1) / g->fchunk;
    /* the cluster path: one cluster a (sequence, KV head) of DR_MAX_CLUSTER splits where there are at
       most 8 such pairs (one wave: llama8b's 8 KV heads at B = 1 make 128 CTAs), else of 8 (the portable
       size: enough CTAs already, and clusters of 16 in waves are what compute-sanitizer's synccheck
       flags, 2026-11-22-h200-9 call 3); fewer where the cache has fewer tiles of 32 positions (the tile
       at D = 64; two at D = 128). A dim.chunk that makes more splits than a cluster holds leaves the
       path unable to run (dr_cluster_fits). But never fewer than two tiles a warp (8 a CTA: 128 positions at
       D = 128): where one tile a warp is all a CTA reads, the cluster's merge costs more than its share of
       the cache saves (graph_pdl, 2026-11-22-h200-13 call 7, one run: small-16l at kv 1024 8 splits of 128
       778.82 us against 16 of 64 794.21 and 4 of 256 792.06; at kv 4096 16 splits of 256 stay: llama8b-4l
       533.09 against 8 of 512 535.39, attn-only 43.07 against 48.80). */
    const int64_t cs = per <= 8 ? DR_MAX_CLUSTER : 8;
    const int64_t least = 8 * DR_TILE_POSITIONS(g->head_dim); /* 8 tiles: two a warp of 4 */
    int64_t cc = (g->kv + cs - 1) / cs;
    cc = (cc + 31) / 32 * 32;
    g->cchunk = klab_case_dim(k, "chunk", cc < least ? least : cc);
    g->csplits = (g->kv + g->cchunk - 1) / g->cchunk;
    if (g->splits > 65535 || g->fsplits > 65535)
        return refuse(why, whylen, k, "KV splits", g->splits > g->fsplits ? g->splits : g->fsplits,
                      "at most 65535 (raise dim.chunk)");
    return 0;
}

int dr_cluster_fits(const dr_geom *g)
{
    return g->csplits <= DR_MAX_CLUSTER;
}

int dr_kernels_per_layer(const dr_geom *g)
{
    return g->attn_only ? DR_KPL_ATTN : DR_KPL;
}

int dr_kernel_index(const dr_geom *g, int l, int k)
{
    return l * dr_kernels_per_layer(g) + (g->attn_only ? k - DR_K_ATTN : k);
}

void dr_tensor_sizes(const dr_geom *g, dr_sizes *s)
{
    const size_t B = (size_t)g->batch, L = (size_t)g->layers, H = (size_t)g->hidden, D = (size_t)g->head_dim;
    const size_t qd = (size_t)g->heads * D;
    memset(s, 0, sizeof *s);
    s->x = g->attn_only ? L * B * (size_t)g->nqkv : B * H;
    s->y = g->attn_only ? L * B * qd : B * H;
    if (!g->attn_only) {
        s->wqkv = L * (size_t)g->nqkv * H;
        s->wo = L * H * qd;
        s->wgu = L * 2 * (size_t)g->inter * H;
        s->wd = L * H * (size_t)g->inter;
        s->gnorm = L * H;
        s->h = B * H;
        s->act = B * (size_t)g->inter;
    }
    s->qkv = B * (size_t)g->nqkv;
    s->attn = B * qd;
    s->table = (size_t)g->kv * D / 2;
    s->sched = (size_t)g->steps * B;
    s->cache = L * B * (size_t)g->kv_heads * (size_t)g->kv * D;
    /* both attention paths' partials: the larger plan */
    const size_t splits = (size_t)(g->splits > g->fsplits ? g->splits : g->fsplits);
    s->opart = B * (size_t)g->heads * splits * D;
    s->ml = B * (size_t)g->heads * splits * 2;
}

void dr_step_bytes_parts(const dr_geom *g, size_t elem, double *weights, double *kv_read, double *kv_written)
{
    dr_sizes s;
    dr_tensor_sizes(g, &s);
    const double e = (double)elem;
    *weights = (double)(s.wqkv + s.wo + s.wgu + s.wd + 2 * s.gnorm) * e;
    const double len = g->dynamic ? 0.5 * (double)(g->kv_min + g->kv) : (double)g->kv;
    const double per_pos = (double)(g->layers * g->batch * g->kv_heads * g->head_dim) * 2.0 * e; /* k and v */
    *kv_read = per_pos * (len - 1.0); /* the new token's entry is in registers */
    *kv_written = per_pos;
}

double dr_step_bytes(const dr_geom *g, size_t elem)
{
    double w, r, wr;
    dr_step_bytes_parts(g, elem, &w, &r, &wr);
    dr_sizes s;
    dr_tensor_sizes(g, &s);
    const double io = (double)(s.x + s.y) * (double)elem;
    const double rope = (double)g->batch * (double)g->head_dim * 4.0; /* cos and sin rows, float */
    return w + r + wr + io + rope + 4.0 * (double)g->batch;          /* + the step's lengths */
}

double dr_step_flops(const dr_geom *g)
{
    dr_sizes s;
    dr_tensor_sizes(g, &s);
    const double len = g->dynamic ? 0.5 * (double)(g->kv_min + g->kv) : (double)g->kv;
    const double gemv = 2.0 * (double)g->batch * (double)(s.wqkv + s.wo + s.wgu + s.wd);
    const double attn = 4.0 * (double)(g->layers * g->batch * g->heads * g->head_dim) * len; /* q.k and p v */
    return gemv + attn;
}

void dr_schedule(const dr_geom *g, uint64_t seed, int32_t *lens)
{
    const uint64_t span = (uint64_t)(g->kv - g->kv_min + 1);
    for (int64_t i = 0; i < g->steps * g->batch; i++)
        lens[i] = (int32_t)(g->dynamic ? g->kv_min + (int64_t)(splitmix(&seed) % span) : g->kv);
}

#define ATTN_FUSED "attn=fused"
#define ATTN_SPLIT "attn=split"
#define ATTN_MMA "attn=mma"
#define ATTN_MMA_CLUSTER "attn=mma_cluster"
#define GEMV_PLAIN ",gemv=plain"
#define GEMV_PIPE(n) ",gemv=pipe,ksplit=" #n
#define GEMV_STREAM ",gemv=stream"

const char *dr_attn_config(int index)
{
    static const char *const name[DR_NATTN] = {[DR_ATTN_FUSED] = ATTN_FUSED, [DR_ATTN_SPLIT] = ATTN_SPLIT,
                                               [DR_ATTN_MMA] = ATTN_MMA, [DR_ATTN_MMA_CLUSTER] = ATTN_MMA_CLUSTER};
    const int a = dr_attn_of_config(index);
    return a < 0 ? NULL : name[a];
}

int dr_attn_of_config(int config)
{
    if (config == -1)
        return DR_ATTN_OWN;
    return config >= 0 && config < DR_NATTN ? config : -1;
}

int dr_gemv_ksplit(int gemv)
{
    static const int ks[DR_NGEMV] = {[DR_GEMV_PLAIN] = 0, [DR_GEMV_PIPE] = 1, [DR_GEMV_PIPE_K2] = 2,
                                     [DR_GEMV_PIPE_K4] = 4, [DR_GEMV_STREAM] = 0};
    return gemv >= 0 && gemv < DR_NGEMV ? ks[gemv] : -1;
}

int dr_stream_splits(int64_t n, int64_t k, int sms)
{
    const int64_t tiles = (n + 63) / 64, ktiles = (k + 63) / 64;
    int64_t s = tiles > 0 ? sms / tiles : 1;
    if (s > 8)
        s = 8;
    if (s > ktiles)
        s = ktiles;
    return s < 1 ? 1 : (int)s;
}

int dr_stream_stages(const dr_geom *g)
{
    return g->hidden >= 4096 ? 16 : 8;
}

int dr_stream_tokens_fit(const dr_geom *g)
{
    const int64_t kr = (g->hidden + 63) / 64;
    return DR_STREAM_RESIDENT_BYTES(g->stream_stages, kr) + 7 * 2048 <= 227 * 1024;
}

int dr_stream_qkv_default(const dr_geom *g)
{
    return dr_stream_tokens_fit(g) && g->stream_stages == 16;
}

int dr_stream_gateup_default(const dr_geom *g)
{
    return dr_stream_tokens_fit(g) && (g->batch > 1 || g->stream_stages == 16);
}

int dr_config_paths(int config, int *attn, int *gemv)
{
    if (config == -1) {
        *attn = DR_ATTN_OWN, *gemv = DR_GEMV_OWN;
        return 0;
    }
    if (config < 0 || config >= DR_NCONFIGS)
        return -1;
    *attn = dr_attn_of_config(config / DR_NGEMV);
    *gemv = config % DR_NGEMV;
    return 0;
}

int dr_pdl_own_config(const dr_geom *g)
{
    if (!dr_cluster_fits(g))
        return DR_ATTN_OWN * DR_NGEMV + DR_GEMV_OWN;
    return DR_ATTN_MMA_CLUSTER * DR_NGEMV + (g->attn_only ? DR_GEMV_PLAIN : DR_GEMV_STREAM);
}

const char *dr_config_name(int index)
{
    /* in configuration order: attn * DR_NGEMV + gemv */
#define GEMVS(a) a GEMV_PLAIN, a GEMV_PIPE(1), a GEMV_PIPE(2), a GEMV_PIPE(4), a GEMV_STREAM
    static const char *const name[DR_NCONFIGS] = {GEMVS(ATTN_FUSED), GEMVS(ATTN_SPLIT), GEMVS(ATTN_MMA),
                                                  GEMVS(ATTN_MMA_CLUSTER)};
#undef GEMVS
    _Static_assert(DR_NATTN == 4 && DR_ATTN_SPLIT == 1 && DR_ATTN_MMA == 2 && DR_ATTN_MMA_CLUSTER == 3 &&
                       DR_NGEMV == 5 && DR_ATTN_FUSED == 0 &&
                       DR_GEMV_PLAIN == 0 && DR_GEMV_PIPE == 1 && DR_GEMV_PIPE_K2 == 2 && DR_GEMV_PIPE_K4 == 3 &&
                       DR_GEMV_STREAM == 4,
                   "the names follow the enums' order");
    int attn, gemv;
    if (dr_config_paths(index, &attn, &gemv) != 0)
        return NULL;
    return name[attn * DR_NGEMV + gemv];
}
