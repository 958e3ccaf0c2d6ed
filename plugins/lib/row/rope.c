/* RMSNorm + RoPE on the CPU: the case's geometry and its refusals, the positions and tables the plugins
 * fill, and the float64 reference (rope.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cuda/splitmix.h"
#include "row/rms.h"
#include "row/rope.h"

int rope_geometry(const klab_case *k, rope_geom *g, char *why, size_t whylen)
{
    memset(g, 0, sizeof *g);
    if (k->rank != 2 && k->rank != 3) {
        snprintf(why, whylen, "case %s: rmsnorm_rope takes BxSxH or TxH, got rank %d", k->name, k->rank);
        return -1;
    }
    g->hidden = (size_t)k->dims[k->rank - 1];
    int64_t seq = klab_case_dim(k, "seq", 0);
    if (k->rank == 3) {
        g->batch = (size_t)k->dims[0];
        g->seq = (size_t)k->dims[1];
        if (seq && (size_t)seq != g->seq) {
            snprintf(why, whylen, "case %s: dim.seq = %lld, but the shape's sequence is %zu", k->name, (long long)seq,
                     g->seq);
            return -1;
        }
    } else {
        g->seq = seq ? (size_t)seq : 1;
        if ((size_t)k->dims[0] % g->seq) {
            snprintf(why, whylen, "case %s: %lld tokens are not whole sequences of dim.seq = %zu", k->name,
                     (long long)k->dims[0], g->seq);
            return -1;
        }
        g->batch = (size_t)k->dims[0] / g->seq;
    }
    g->tokens = g->batch * g->seq;
    int64_t d = klab_case_dim(k, "head_dim", 128);
    size_t elem = klab_dtype_size(k->dtype);
    if (d % 2) {
        snprintf(why, whylen, "case %s: dim.head_dim = %lld is odd: rotary pairs need an even head dimension", k->name,
                 (long long)d);
        return -1;
    }
    if (d < 16 || (d & (d - 1)) || (size_t)d * elem > 512) {
        snprintf(why, whylen,
                 "case %s: dim.head_dim = %lld: the kernels take a power of two from 16 to %zu (a head in at most "
                 "512 bytes)",
                 k->name, (long long)d, 512 / elem);
        return -1;
    }
    g->head_dim = (size_t)d;
    if (g->hidden % g->head_dim) {
        snprintf(why, whylen, "case %s: hidden size %zu is not a whole number of heads of dim.head_dim = %zu", k->name,
                 g->hidden, g->head_dim);
        return -1;
    }
    int64_t cache = klab_case_dim(k, "cache", (int64_t)(g->seq > 4096 ? g->seq : 4096));
    if ((size_t)cache < g->seq) {
        snprintf(why, whylen, "case %s: dim.cache = %lld is shorter than the sequence (%zu positions)", k->name,
                 (long long)cache, g->seq);
        return -1;
    }
    g->cache = (size_t)cache;
    const char *layout = klab_case_param(k, "layout");
    if (!layout || !strcmp(layout, "half"))
        g->half = 1;
    else if (!strcmp(layout, "interleaved"))
        g->half = 0;
    else {
        snprintf(why, whylen, "case %s: param.layout = %s: half or interleaved", k->name, layout);
        return -1;
    }
    return 0;
}

row_limits rope_limits(const rope_geom *g, size_t elem)
{
    row_limits lim = {1, 1, (int)(g->head_dim * elem / 16), 0, 0, 0};
    return lim;
}

void rope_positions(const rope_geom *g, uint64_t seed, int32_t *pos)
{
    const uint64_t span = g->cache - g->seq + 1;
    for (size_t b = 0; b < g->batch; b++) {
        const size_t off = (size_t)(splitmix(&seed) % span);
        for (size_t s = 0; s < g->seq; s++)
            pos[b * g->seq + s] = (int32_t)(off + s);
    }
}

void rope_tables(const rope_geom *g, float *cos_t, float *sin_t)
{
    const size_t half = g->head_dim / 2;
    for (size_t p = 0; p < g->cache; p++)
        for (size_t i = 0; i < half; i++) {
            double a = (double)p * pow(ROPE_BASE, -2.0 * (double)i / (double)g->head_dim);
            cos_t[p * half + i] = (float)cos(a);
            sin_t[p * half + i] = (float)sin(a);
        }
}

typedef struct rope_job {
    const rope_geom *g;
    const double *pos, *cos_t, *sin_t;
    double *y;
} rope_job;

static void rope_tokens(void *arg, size_t t0, size_t t1)
{
    const rope_job *j = arg;
    const rope_geom *g = j->g;
    const size_t D = g->head_dim, half = D / 2;
    for (size_t t = t0; t < t1; t++) {
        const size_t p = (size_t)j->pos[t];
        for (size_t h = 0; h < g->hidden; h += D) {
            double *v = j->y + t * g->hidden + h;
            for (size_t i = 0; i < half; i++) {
                const double c = j->cos_t[p * half + i], s = j->sin_t[p * half + i];
                const size_t ia = g->half ? i : 2 * i, ib = g->half ? i + half : 2 * i + 1;
                const double a = v[ia], b = v[ib];
                v[ia] = a * c - b * s;
                v[ib] = b * c + a * s;
            }
        }
    }
}

/* Both passes a token row at a time on the host's threads: a token's rotation reads only its own
   normalised row, so each element is the same serial arithmetic at any thread count. */
void rmsnorm_rope_reference(const klab_host *host, klab_ctx *ctx, const rope_geom *g, const double *x, const double *w,
                            const double *pos, const double *cos_t, const double *sin_t, double *y, double eps)
{
    rmsnorm_reference(host, ctx, x, w, y, g->tokens, g->hidden, eps);
    rope_job j = {g, pos, cos_t, sin_t, y};
    klab_parallel_for(host, ctx, g->tokens, g->hidden >= 65536 ? 1 : 65536 / g->hidden, rope_tokens, &j);
}
