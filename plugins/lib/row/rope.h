/* RoPE on the host, for every plugin that rotates heads (rmsnorm_rope.so, decode_replay.so): a case's
 * geometry and its refusals, the row layout limits the RoPE op puts on a plan, the positions and the cos
 * and sin tables the plugins fill, and the float64 reference of RMSNorm then RoPE. One definition, so the
 * same seed gives the same positions and the same tables everywhere. The device side is rope_math.cuh. */
#ifndef KLAB_ROW_ROPE_H
#define KLAB_ROW_ROPE_H

#include <stddef.h>
#include <stdint.h>

#include "klab/plugin.h"
#include "row/row_plan.h"

#ifdef __cplusplus
extern "C" {
#endif

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

#ifdef __cplusplus
}
#endif

#endif
