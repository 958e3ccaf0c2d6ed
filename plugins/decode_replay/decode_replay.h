/* decode_replay: one decode step of a Llama-style layer stack for B sequences over a resident KV cache.
 * Per layer, for each sequence b at KV length len (its new token at position len - 1):
 *   a  = rmsnorm(h) * g_attn                        (h: the step's input x at layer 0)
 *   q, k, v = Wqkv a                                 (packed rows: heads*D q, kv_heads*D k, kv_heads*D v)
 *   q, k = rope(q, k) at position len - 1            (half layout, base 10000)
 *   K[len-1], V[len-1] = k, v                        (appended to the layer's cache: a STATE tensor)
 *   o  = softmax(q K[0:len]^T / sqrt(D)) V[0:len]    (GQA: query head j reads kv head j / (heads/kv_heads))
 *   h  = h + Wo o
 *   m  = rmsnorm(h) * g_mlp
 *   h  = h + Wd (silu(Wg m) * Wu m)                  (Wg, Wu packed as one [2I x H] matrix, gate first)
 * and y = h after the last layer. With param.part = attn only the attention runs (RoPE, append, attention):
 * x then holds each layer's packed q, k, v and y each layer's o.
 *
 * The step's lengths come from a schedule (an int32 input, steps x B) the kernels read from device memory
 * at a step cursor (an int32 state the step's last kernel advances), so one captured graph serves every
 * step:
 *   fixed    every step of every sequence at len = dim.kv: a step writes the same slot each time, and a
 *            sequence of steps is the same step replayed;
 *   dynamic  len drawn uniformly from [dim.kv_min, dim.kv] for each step and sequence (host->seed()).
 * The split-KV plan (chunk positions per CTA) is sized for dim.kv in both, so the dynamic schedule costs
 * the CTAs past a step's length (they exit after marking their split empty) and the combine's reads of
 * their empty marks. */
#ifndef DECODE_REPLAY_H
#define DECODE_REPLAY_H

#include <stddef.h>
#include <stdint.h>

#include "klab/plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { DR_EAGER = 0, DR_GRAPH, DR_GRAPH_PIECEWISE, DR_GRAPH_PDL, DR_NPROFILES };

/* Kernels a layer launches (the probes' slots): the stack's six, attention's two. The fused attention
   launches no combine: its slot stays empty. */
enum { DR_K_QKV = 0, DR_K_ATTN, DR_K_COMBINE, DR_K_OPROJ, DR_K_GATEUP, DR_K_DOWN, DR_KPL };
#define DR_KPL_ATTN 2

#define DR_DEFAULT_EPS 1e-5
#define DR_DEFAULT_STEPS 16 /* a case's steps when its INI gives none */
#define DR_MAX_BATCH 8

typedef struct dr_geom {
    int64_t batch, layers, hidden, heads, kv_heads, head_dim, inter;
    int64_t kv, kv_min; /* the cache's length (and the fixed length); the dynamic schedule's least */
    int64_t steps;      /* the case's steps: rows of the schedule */
    int dynamic;        /* param.schedule = dynamic */
    int attn_only;      /* param.part = attn */
    double eps;
    int64_t nqkv;        /* (heads + 2 kv_heads) * head_dim: rows of Wqkv, a token's packed q, k, v */
    int64_t chunk, splits; /* split-KV: positions a CTA reads; splits = ceil(kv / chunk) */
    int64_t fchunk, fsplits; /* the same for the one-kernel paths (DR_ATTN_FUSED, DR_ATTN_MMA), planned apart */
    int64_t cchunk, csplits; /* the same for the cluster path (DR_ATTN_MMA_CLUSTER): its splits one cluster */
    int64_t stream_stages;   /* gemv=stream's ring: 8 or 16 stages (dr_stream_stages, or param.stream_stages) */
    int stream_qkv;          /* gemv=stream streams QKV too (dr_stream_qkv_default, or param.stream_qkv) */
    int stream_gateup;       /* gemv=stream streams gate/up too (dr_stream_gateup_default, or param.stream_gateup) */
} dr_geom;

/* The attention's paths, an axis of every profile's tuning space (`attn=fused`, `attn=split`, `attn=mma`),
   so one `klab --tune` run times them in the same rounds:
     fused  one kernel: K/V tiles issued with cp.async into a ring before the step's q is awaited, the
            splits merged by the last CTA of each (sequence, KV head) to finish (a device ticket);
     split  the attention then a combine kernel (the path of the first H200 run);
     mma    the fused kernel's plan and merges, each tile's q.k and p.v on mma.sync (tensor cores), each
            warp streaming its own tiles (decode_replay_attn_mma.cuh);
     mma_cluster  mma's kernel with the splits of a (sequence, KV head) one thread-block cluster (at most
            DR_MAX_CLUSTER: a plan of its own, cchunk) merged through distributed shared memory: no device
            ticket, no fence, no partials in global memory; every tile of a CTA in flight before the wait
            where the grid's clusters fit the GPU at once. sm_90 only: run() refuses it elsewhere.
   The plugin's own choice (DR_ATTN_OWN) is mma: the H200 timed it fastest of the three at attn-only,
   llama8b-4l and small-16l, graph and graph_pdl (2026-11-22, d1c6bc5: attn-only graph_pdl 52.0 us against
   fused 62.0, docs/notes/decode_replay.md); sm_90a's graph_pdl chooses mma_cluster (dr_pdl_own_config), timed
   ahead of mma in the same rounds at attn-only and llama8b-4l (2026-11-22, 522fe91: attn-only graph_pdl
   44.90 us against 51.90; llama8b-4l with gemv=stream 531.18 against 544.06) and in one run at small-16l
   (871.28 against 884.80, probed). */
enum { DR_ATTN_FUSED = 0, DR_ATTN_SPLIT, DR_ATTN_MMA, DR_ATTN_MMA_CLUSTER, DR_NATTN };
#define DR_ATTN_OWN DR_ATTN_MMA
#define DR_MAX_CLUSTER 16 /* CTAs a cluster: sm_90's non-portable limit */
/* Positions of the one-kernel attentions' K/V tile at head dimension d (8 KB of k and v): the kernels'
   FusedTile<D>::N and the cluster plan's unit */
#define DR_TILE_POSITIONS(d) (2048 / (d))
/* the attention axis' value i ("attn=fused", "attn=split", "attn=mma", "attn=mma_cluster"), -1 the own
   choice's; NULL past the last */
const char *dr_attn_config(int index);
/* the path of the attention axis' value i (-1: the own choice), or -1 for none */
int dr_attn_of_config(int config);

/* The GEMVs, the space's second axis (decode_replay_gemv.cuh, decode_replay_stream.cuh):
     gemv=plain             a slab of weights loaded, then used, then the next one issued (the first H200 runs)
     gemv=pipe,ksplit=N     a register ring: each vector of the warp's next slab (weights and x) issued as the
                            current slab's is consumed; the down projection's rows split over N warps of a
                            CTA (1, 2, 4), the other GEMVs unsplit.
     gemv=stream            the O and down projections (no RMSNorm prologue) through the TMA weight stream
                            into wgmma (plugins/lib/hopper/hopper_stream.cuh), K split over a cluster, and where
                            g's stream_qkv (stream_gateup) says the QKV (gate/up) projection too, its RMSNorm
                            written by each CTA as the stream's resident tokens, gate/up on gated tiles with
                            SwiGLU in the epilogue. sm_90a only: run() refuses it elsewhere.
   The own choice (DR_GEMV_OWN) stays plain until the H200 times the others in the same rounds. */
enum { DR_GEMV_PLAIN = 0, DR_GEMV_PIPE, DR_GEMV_PIPE_K2, DR_GEMV_PIPE_K4, DR_GEMV_STREAM, DR_NGEMV };
#define DR_GEMV_OWN DR_GEMV_PLAIN
/* Warps the down projection's K range is split over in variant gemv: 1, 2 or 4 (pipelined), 0 plain or
   stream (whose register GEMVs are the plain kernel), -1 no such variant. */
int dr_gemv_ksplit(int gemv);

/* gemv=stream's plan for one projection (N outputs, K inputs) on a device of sms SMs: the K splits (the
   CTAs of a cluster), so that ceil(N / 64) column tiles times the splits fill the SMs once, one CTA an SM
   (its ring is ~144 KB of shared memory); 1 to 8 (the portable cluster) and at most the K tiles of 64. */
int dr_stream_splits(int64_t n, int64_t k, int sms);

/* gemv=stream's ring depth for g: 16 stages (~147 KB, one CTA an SM) where hidden >= 4096, else 8 (~77 KB,
   two may share an SM). Measured under graph_pdl with the cluster attention (2026-11-22-h200-13, calls
   2-4, one run each, cases in turn): small-16l (hidden 2048) 791.97-797.60 us at 8 stages against
   930.08-932.67 at 16 and 838.59-842.96 with the plain GEMV; llama8b-4l (hidden 4096) 586.14-586.72 at 8
   (the down GEMV 29.7 -> 43.1 us a layer by the probes) against 531.33-533.60 at 16. Two points, not a
   law: padded to one CTA an SM the 8-stage ring lost small-16l's gain (936.58), so what it buys there is
   the sharing, and what it costs llama8b's 112-tile down projection is the SMs left without a CTA. */
int dr_stream_stages(const dr_geom *g);

/* gemv=stream's shared memory a CTA at one split with resident tokens over kr K tiles of 64
   (hopper_stream.cuh's Layout at 8 tokens: 1024 bytes of alignment slack, stages x 8 KB of weights, kr x 1
   KB of tokens, 16 bytes of barriers a stage, the hook's 256 bytes of scratch; the kernels assert that
   the two agree) */
#define DR_STREAM_RESIDENT_BYTES(stages, kr) (1024 + (stages) * 8192 + (kr) * 1024 + 16 * (stages) + 256)
/* Whether a normed projection's resident tokens (QKV's and gate/up's alike: their whole K = hidden, one
   split the worst) fit a CTA beside g's ring with the inbox of the largest cluster (7 x 2 KB): 227 KB.
   hidden 4096 at 16 stages: 193 + 14 KB; hidden 8192 at 16 stages does not (257 KB), at 8 stages it does. */
int dr_stream_tokens_fit(const dr_geom *g);
/* gemv=stream's QKV by default: where its tokens fit and the ring is 16 stages (hidden >= 4096). Measured
   under graph_pdl with the cluster attention (2026-11-22-h200-14, call 2, ABAB, streamed against the
   register GEMV): llama8b-4l 527.39/528.67 us against 531.58/532.24, at B = 8 1224.43 against 1370.56;
   small-16l (8 stages) 782.42/780.83 against 777.28/778.91. The stream's CTA (~193 KB at hidden 4096)
   lands only on an SM the previous kernel has left, where the register GEMV's start under its tail. */
int dr_stream_qkv_default(const dr_geom *g);
/* gemv=stream's gate/up by default, where its tokens fit (dr_stream_tokens_fit) and more than one sequence
   shares each weight vector (batch > 1) or the ring is 16 stages (hidden >= 4096). Measured under graph_pdl
   with the cluster attention, gated tiles as one 4-D box, persistent CTAs
   (2026-11-22-h200-14, call 7, streamed against the register GEMV): llama8b-4l 518.82/519.36 us against
   530.53/531.39 (ABAB), at B = 8 749.89 against 1244.16; small-16l (8 stages) 796.53 against 788.54 (call 5,
   eight boxes of 8 rows a stage: 774.67 against 786.37). Points, not a law. */
int dr_stream_gateup_default(const dr_geom *g);

/* The tuning space: configuration i = attn * DR_NGEMV + gemv, described "attn=fused,gemv=pipe,ksplit=2";
   -1 the own choice (DR_ATTN_OWN, DR_GEMV_OWN). */
#define DR_NCONFIGS (DR_NATTN * DR_NGEMV)
/* configuration i's description, -1 the own choice's; NULL past the last */
const char *dr_config_name(int index);
/* graph_pdl's own choice for g (a configuration index): graph_pdl runs only on sm_90a, where the cluster
   attention is there to choose. attn=mma_cluster where g's splits fit a cluster (else the own choice of
   the other profiles), with gemv=stream (its ring dr_stream_stages'): the H200 timed the 16-stage stream
   ahead of the plain GEMV at llama8b's projections (hidden 4096: O 10.21 against 10.78 us, down 29.98
   against 42.30) and behind at small-16l's (hidden 2048: 7.46 against 3.94, 17.79 against 13.76;
   2026-11-22-h200-8, call 7), and the 8-stage stream ahead of both there (dr_stream_stages). Pure: the
   profile's config hook names it without a GPU. */
int dr_pdl_own_config(const dr_geom *g);
/* configuration i's attention path and GEMV (-1: the own choice); 0, or -1 for none */
int dr_config_paths(int config, int *attn, int *gemv);

/* KV heads times sequences the fused attention's tickets cover (a device array of this many counters) */
#define DR_MAX_TICKETS 4096

/* Splits a step of length len has work in (the rest exit at once): ceil(len / chunk). Shared by the
   kernels and the CPU tests. */
#ifdef __CUDACC__
__host__ __device__
#endif
static inline int dr_active_splits(int len, int chunk)
{
    return (len + chunk - 1) / chunk;
}

/* The case's geometry, or -1 with why naming the case's value and the limit. Pure: setup, work,
   config and the tests use it. */
int dr_geometry(const klab_case *k, dr_geom *g, char *why, size_t whylen);

/* The cluster path (DR_ATTN_MMA_CLUSTER) runs g's plan: its splits fit one cluster. 1 or 0. */
int dr_cluster_fits(const dr_geom *g);

/* Kernels one step launches. */
int dr_kernels_per_layer(const dr_geom *g);
/* Kernel k (DR_K_*) of layer l as the probes number it: l * dr_kernels_per_layer + its place in the layer
   (with param.part = attn the attention is 0 and the combine 1), always below layers * kernels a layer. */
int dr_kernel_index(const dr_geom *g, int l, int k);

/* Elements of each tensor. */
typedef struct dr_sizes {
    size_t x, y, wqkv, wo, wgu, wd, gnorm, table, sched, cache, h, qkv, attn, act, opart, ml;
} dr_sizes;
void dr_tensor_sizes(const dr_geom *g, dr_sizes *s);

/* The step's tensors (decode_replay_tensors.c). Ids, in the order setup makes those that exist (no weights,
   h, act, qkv or attn with param.part = attn; no o_part or m_l unsplit): that order is launch->tensors'. */
enum { DR_T_X = 0, DR_T_WQKV, DR_T_WO, DR_T_WGU, DR_T_WD, DR_T_GATTN, DR_T_GMLP, DR_T_COS, DR_T_SIN, DR_T_LENS,
       DR_T_KC, DR_T_VC, DR_T_CURSOR, DR_T_Y, DR_T_H, DR_T_ACT, DR_T_QKV, DR_T_ATTN, DR_T_OPART, DR_T_ML,
       DR_T_COUNT };

typedef struct dr_tensor_spec {
    int id; /* DR_T_* */
    const char *name;
    klab_role role;
    klab_dtype dtype;
    size_t count;
} dr_tensor_spec;

/* The case's tensors in the order setup makes them; returns how many. Pure. */
int dr_tensor_specs(const dr_geom *g, klab_dtype d, dr_tensor_spec spec[DR_T_COUNT]);

/* idx[id]: the position of tensor id in that order (in launch->tensors), -1 when the case has none. */
void dr_tensor_index(const dr_tensor_spec *spec, int n, int idx[DR_T_COUNT]);

/* What one kernel of a step writes: tensor t (DR_T_*), elements [off, off + n). The kernels' own index
   arithmetic (decode_replay_kernels.cu), for checks on the CPU: every extent within its tensor. */
typedef struct dr_write {
    int kernel; /* DR_K_* */
    int t;
    size_t off, n;
} dr_write;
#define DR_WRITES_PER_LAYER 10
/* The writes of layer l's kernels with attention path attn (DR_ATTN_*), in launch order; returns how
   many. */
int dr_layer_writes(const dr_geom *g, int attn, int l, dr_write w[DR_WRITES_PER_LAYER]);

/* The plugin's param.NAME and dim.NAME keys (its descriptor's lists), NULL-terminated. */
extern const char *const dr_params[];
extern const char *const dr_dims[];

/* Bytes one step moves at the least: weights read once, the KV read (the fixed length, or the dynamic
   schedule's mean), the KV written, x read and y written, the step's RoPE rows. */
double dr_step_bytes(const dr_geom *g, size_t elem);
/* The same split into its parts, for the notes. */
void dr_step_bytes_parts(const dr_geom *g, size_t elem, double *weights, double *kv_read, double *kv_written);
double dr_step_flops(const dr_geom *g);

/* The schedule: lens[s * batch + b] for s < steps, every value in [1, kv]; fixed: kv; dynamic: uniform
   in [kv_min, kv] from `seed` (splitmix64), the same seed giving the same schedule. */
void dr_schedule(const dr_geom *g, uint64_t seed, int32_t *lens);

/* The float64 reference of `steps` steps from the cursor's initial value c0. In: x, the weights, the
   norms' gains, cos and sin (kv x D/2), the schedule, the caches' initial contents. Out: the caches
   after the steps (kc, vc: initialised by the caller to their initial contents) and y of the last step.
   Weights may be NULL with attn_only. Products and heads on the host's threads (host and ctx:
   verify()'s; both NULL: this thread), the same bits at any thread count. Returns 0, or -1 out of
   memory. */
typedef struct dr_ref_in {
    const double *x, *wqkv, *wo, *wgu, *wd, *g_attn, *g_mlp, *cos_t, *sin_t, *lens;
    int64_t c0;
} dr_ref_in;
int dr_reference(const klab_host *host, klab_ctx *ctx, const dr_geom *g, const dr_ref_in *in, int64_t steps,
                 double *kc, double *vc, double *y);

/* gemv=stream's TMA maps (decode_replay_stream.cuh): each layer's O and down weights and their inputs (attn,
   act), host objects encoded once for a set of tensors and kept (cuTensorMapEncodeTiled costs host time;
   a captured graph bakes them into its kernels' parameters). */
typedef struct dr_stream dr_stream;

/* Device side (decode_replay_kernels.cu). Pointers of one step's tensors. */
typedef struct dr_dev {
    const void *x, *wqkv, *wo, *wgu, *wd, *g_attn, *g_mlp;
    const float *cos_t, *sin_t;
    const int32_t *lens;
    void *kc, *vc;
    int32_t *cursor;
    void *y, *h, *qkv, *attn, *act;
    float *opart, *ml;
    unsigned long long *probe; /* NULL, or this profile's stamp ring (dr_probe_slot) */
    const dr_stream *stream;   /* gemv=stream's maps of these tensors (dr_stream_bind), or NULL */
} dr_dev;

/* The kernels' pointers from a table in dr_tensor_specs' order (launch->tensors, or setup's pointers
   kept in that same order for the graphs), idx from dr_tensor_index. The one binding of tensors to the
   kernels' arguments: eager and every captured graph go through it. */
void dr_bind(const int idx[DR_T_COUNT], void *const *table, unsigned long long *probe, dr_dev *d);

/* Probes (param.probes = 1): a ring per profile of the last DR_PROBE_STEPS steps it ran, %globaltimer ns.
   Word 0 counts the steps; slot i (DR_PROBE_WORDS_SLOT(nk) words from word 1 + i * that) holds the
   step's cursor, a spare word, then for each kernel k the first CTA's start and the last CTA's end. */
#define DR_PROBE_STEPS 256
#define DR_PROBE_WORDS_SLOT(nk) (2 + 2 * (size_t)(nk))
#define DR_PROBE_WORDS(nk) (1 + DR_PROBE_STEPS * DR_PROBE_WORDS_SLOT(nk))

/* gemv=stream's maps: dr_stream_new() room for the maps of up to `layers` layers, none bound (NULL: out of
   memory); dr_stream_bind() encodes the maps of t's wo, wd, attn and act (and the plan: dr_stream_splits on
   the current device) unless m already holds those very tensors' (a no-op then: eager calls it every run;
   it allocates nothing); dr_stream_free() NULL-safe. bind returns 0, or -1 with why (the driver's encoder
   missing, a tensor misaligned, more layers than m has room for). */
dr_stream *dr_stream_new(int64_t layers);
int dr_stream_bind(dr_stream *m, klab_dtype d, const dr_geom *g, const dr_dev *t, char *why, size_t whylen);
void dr_stream_free(dr_stream *m);

/* Enqueue the kernels of layers [l0, l1) of one step on s with attention path attn (DR_ATTN_*) and GEMV
   gemv (DR_GEMV_*; gemv=stream needs t->stream bound to t's tensors); pdl: launch each with programmatic
   stream serialization (sm_90). The step's last kernel (layer layers-1) advances the cursor. Returns a
   cudaError_t as int. */
int dr_enqueue(klab_dtype d, const dr_geom *g, const dr_dev *t, int attn, int gemv, int l0, int l1, int pdl,
               klab_stream s);

#ifdef __cplusplus
}
#endif

#endif
