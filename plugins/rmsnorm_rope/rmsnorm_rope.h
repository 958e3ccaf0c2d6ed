/* rmsnorm_rope: RMSNorm over the hidden size, then the rotary embedding of each head at the token's
 * position, as attention's query/key path runs it (QK-norm models, and the norm + RoPE prologue):
 *   t = x / sqrt(mean(x^2) + eps) * w                        over hidden
 *   y = rope(t)   per head of head_dim elements, pair i rotated by the angle of (position, i):
 *       half      (i, i + head_dim/2)   ("rotate_half", LLaMA/NeoX)
 *       interleaved (2i, 2i + 1)        (GPT-J, the original RoPE)
 * cos and sin come from caches of `cache` positions x head_dim/2 (float), positions from an int32
 * tensor the plugin fills from host->seed() (each sequence at a random offset of the cache).
 *   baseline  the skeleton's RMSNorm into t, then a separate RoPE kernel (two kernels, t in memory)
 *   fused     the skeleton with the RoPE op: one read, one write; the half layout's partner element
 *             is another lane's, exchanged by warp shuffles
 * Shapes: BxSxH (B sequences of S tokens) or TxH (tokens in sequences of dim.seq, default 1: a
 * decode batch). Named dims: head_dim (default 128), seq, cache (default max(seq, 4096)). */
#ifndef RMSNORM_ROPE_H
#define RMSNORM_ROPE_H

#include <stddef.h>
#include <stdint.h>

#include "klab/plugin.h"
#include "../common/row_plan.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { ROPE_BASELINE = 0, ROPE_FUSED };

#define ROPE_BASE 10000.0

typedef struct rope_geom {
    size_t tokens, hidden, batch, seq;
    size_t head_dim, cache;
    int half; /* 1: half-split pairs; 0: interleaved */
} rope_geom;

/* The case's geometry, or -1 with why naming the case, the value and the limit: a rank other than 2
   or 3, an odd head_dim (or one the kernels cannot take: a power of two from 16, at most 512 bytes a
   head), a hidden size that is not whole heads, a cache shorter than the sequence, an unknown
   param.layout. */
int rope_geometry(const klab_case *k, rope_geom *g, char *why, size_t whylen);

/* The row layout limits the RoPE op puts on a plan: the row on chip in one block, whole heads a
   thread group. */
row_limits rope_limits(const rope_geom *g, size_t elem);

/* Positions: sequence b starts at a uniform offset in [0, cache - seq] drawn from `seed`, and its
   tokens follow on. */
void rope_positions(const rope_geom *g, uint64_t seed, int32_t *pos);

/* cos and sin of pos * ROPE_BASE^(-2i/head_dim), cache x head_dim/2 each. */
void rope_tables(const rope_geom *g, float *cos_t, float *sin_t);

/* The float64 result: RMSNorm, then the rotation in place; token rows on the host's threads (host and
   ctx: verify()'s; both NULL: this thread). */
void rmsnorm_rope_reference(const klab_host *host, klab_ctx *ctx, const rope_geom *g, const double *x, const double *w,
                            const double *pos, const double *cos_t, const double *sin_t, double *y, double eps);

/* Launches; return a cudaError_t as int. Tensors: x, w (hidden), pos (tokens, int32), cos and sin
   (cache x head_dim/2 floats), y; t (tokens x hidden, the baseline's intermediate). */
int rmsnorm_rope_fused_launch(klab_dtype d, const rope_geom *g, const void *x, const void *w, const int32_t *pos,
                              const float *cos_t, const float *sin_t, void *y, float eps, const row_plan *p,
                              klab_stream s);
int rmsnorm_rope_baseline_launch(klab_dtype d, const rope_geom *g, const void *x, const void *w, const int32_t *pos,
                                 const float *cos_t, const float *sin_t, void *t, void *y, float eps,
                                 const row_plan *p, klab_stream s);

#ifdef __cplusplus
}
#endif

#endif
