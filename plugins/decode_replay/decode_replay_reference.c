/* The float64 reference of decode_replay's steps: the formulas of decode_replay.h in order, nothing
 * rounded to the dtype (the device rounds q, k, v, o, h and the MLP's activation; the tolerance allows
 * for it). The RoPE tables are the device's own (inputs), so the reference rotates by the same angles.
 *
 * The long loops run on the host's threads (klab_parallel_for): the matrix-vector products an output
 * row at a time, the attention a (sequence, head) at a time. Each output keeps its own serial loop
 * (dot's four chains, attend's order), so the result is the same bits at any thread count; the steps,
 * the layers and the small element-wise loops between them stay in order on the calling thread. */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "decode_replay.h"
#include "row/rms.h"

/* Four partial sums: independent chains the compiler can keep in flight (a single chain is one add a
   latency, and a llama8b step is 872 million of them). */
static double dot(const double *a, const double *b, int64_t n)
{
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    int64_t i = 0;
    for (; i + 4 <= n; i += 4) {
        s0 += a[i] * b[i];
        s1 += a[i + 1] * b[i + 1];
        s2 += a[i + 2] * b[i + 2];
        s3 += a[i + 3] * b[i + 3];
    }
    for (; i < n; i++)
        s0 += a[i] * b[i];
    return (s0 + s1) + (s2 + s3);
}

typedef struct mv_job {
    const double *w, *in;
    int64_t k, batch, ldo;
    double *out;
} mv_job;

static void mv_rows(void *arg, size_t n0, size_t n1)
{
    const mv_job *j = arg;
    for (int64_t n = (int64_t)n0; n < (int64_t)n1; n++)
        for (int64_t b = 0; b < j->batch; b++)
            j->out[b * j->ldo + n] = dot(j->w + n * j->k, j->in + b * j->k, j->k);
}

/* out[b][n] = sum_k w[n][k] in[b][k] for n < rows, b < batch; out rows `ldo` apart. Rows of w on the
   host's threads, about 2^16 multiply-adds a chunk. */
static void matvec(const klab_host *host, klab_ctx *ctx, const double *w, const double *in, int64_t rows, int64_t k,
                   int64_t batch, double *out, int64_t ldo)
{
    mv_job j = {w, in, k, batch, ldo, out};
    const int64_t per = k * batch;
    klab_parallel_for(host, ctx, (size_t)rows, per >= 65536 ? 1 : (size_t)(65536 / (per ? per : 1)), mv_rows, &j);
}

/* the half layout: element i pairs with i + D/2 */
static void rope(double *v, int64_t d, const double *c, const double *s)
{
    const int64_t half = d / 2;
    for (int64_t i = 0; i < half; i++) {
        const double a = v[i], b = v[i + half];
        v[i] = a * c[i] - b * s[i];
        v[i + half] = b * c[i] + a * s[i];
    }
}

/* o = softmax(q K^T / sqrt(d)) V over positions [0, len) of one cache head (rows of d) */
static void attend(const double *q, const double *kh, const double *vh, int64_t len, int64_t d, double *sc, double *o)
{
    const double scale = 1.0 / sqrt((double)d);
    double mx = -INFINITY, sum = 0;
    for (int64_t t = 0; t < len; t++) {
        sc[t] = dot(q, kh + t * d, d) * scale;
        mx = sc[t] > mx ? sc[t] : mx;
    }
    memset(o, 0, (size_t)d * sizeof *o);
    for (int64_t t = 0; t < len; t++) {
        const double p = exp(sc[t] - mx);
        sum += p;
        for (int64_t i = 0; i < d; i++)
            o[i] += p * vh[t * d + i];
    }
    for (int64_t i = 0; i < d; i++)
        o[i] /= sum;
}

typedef struct attn_job {
    const dr_geom *g;
    const double *lens_row, *qkv, *kc, *vc;
    int64_t l;
    double *o;
    atomic_int failed; /* a chunk found no memory for its scores */
} attn_job;

/* Query heads [h0, h1) of all sequences, numbered b * heads + j: each its own attend. */
static void attn_heads(void *arg, size_t h0, size_t h1)
{
    attn_job *a = arg;
    const dr_geom *g = a->g;
    const int64_t D = g->head_dim, grp = g->heads / g->kv_heads;
    double *sc = malloc((size_t)g->kv * sizeof *sc); /* this chunk's scores */
    if (!sc) {
        atomic_store(&a->failed, 1);
        return;
    }
    for (size_t i = h0; i < h1; i++) {
        const int64_t b = (int64_t)i / g->heads, j = (int64_t)i % g->heads, len = (int64_t)a->lens_row[b];
        const double *q = a->qkv + b * g->nqkv;
        const size_t head = (size_t)(((a->l * g->batch + b) * g->kv_heads + j / grp) * g->kv) * (size_t)D;
        attend(q + j * D, a->kc + head, a->vc + head, len, D, sc, a->o + (b * g->heads + j) * D);
    }
    free(sc);
}

/* RoPE, the append and the attention of one layer for every sequence: qkv (batch x nqkv) in, o (batch x
   heads*D) out; the layer's caches updated at each sequence's new position. The rotations and appends
   first, in order (a few vectors); then every (sequence, head)'s attention on the host's threads.
   Returns 0, or -1 out of memory. */
static int attention_layer(const klab_host *host, klab_ctx *ctx, const dr_geom *g, const dr_ref_in *in,
                           const double *lens_row, int64_t l, double *qkv, double *kc, double *vc, double *o)
{
    const int64_t D = g->head_dim, half = D / 2;
    for (int64_t b = 0; b < g->batch; b++) {
        const int64_t len = (int64_t)lens_row[b], pos = len - 1;
        const double *c = in->cos_t + pos * half, *s = in->sin_t + pos * half;
        double *q = qkv + b * g->nqkv, *k = q + g->heads * D, *v = k + g->kv_heads * D;
        for (int64_t j = 0; j < g->heads; j++)
            rope(q + j * D, D, c, s);
        for (int64_t j = 0; j < g->kv_heads; j++) {
            rope(k + j * D, D, c, s);
            const size_t head = (size_t)(((l * g->batch + b) * g->kv_heads + j) * g->kv) * (size_t)D;
            memcpy(kc + head + (size_t)(pos * D), k + j * D, (size_t)D * sizeof *k);
            memcpy(vc + head + (size_t)(pos * D), v + j * D, (size_t)D * sizeof *v);
        }
    }
    attn_job a = {g, lens_row, qkv, kc, vc, l, o, 0};
    klab_parallel_for(host, ctx, (size_t)(g->batch * g->heads), 1, attn_heads, &a);
    return atomic_load(&a.failed) ? -1 : 0;
}

int dr_reference(const klab_host *host, klab_ctx *ctx, const dr_geom *g, const dr_ref_in *in, int64_t steps,
                 double *kc, double *vc, double *y)
{
    const int64_t B = g->batch, H = g->hidden, D = g->head_dim, I = g->inter, qd = g->heads * D;
    double *qkv = malloc((size_t)(B * g->nqkv) * sizeof *qkv);
    double *o = malloc((size_t)(B * qd) * sizeof *o);
    double *h = malloc((size_t)(B * H) * sizeof *h), *a = malloc((size_t)(B * H) * sizeof *a);
    double *gu = malloc((size_t)(B * 2 * I) * sizeof *gu), *act = malloc((size_t)(B * I) * sizeof *act);
    double *t = malloc((size_t)(B * H) * sizeof *t);
    int rc = qkv && o && h && a && gu && act && t ? 0 : -1;
    for (int64_t st = 0; rc == 0 && st < steps; st++) {
        const double *lens_row = in->lens + ((in->c0 + st) % g->steps) * B;
        if (!g->attn_only)
            memcpy(h, in->x, (size_t)(B * H) * sizeof *h);
        for (int64_t l = 0; l < g->layers; l++) {
            if (g->attn_only) {
                memcpy(qkv, in->x + l * B * g->nqkv, (size_t)(B * g->nqkv) * sizeof *qkv);
                rc = attention_layer(host, ctx, g, in, lens_row, l, qkv, kc, vc, y + l * B * qd);
                if (rc != 0)
                    break;
                continue;
            }
            rmsnorm_reference(host, ctx, h, in->g_attn + l * H, a, (size_t)B, (size_t)H, g->eps);
            matvec(host, ctx, in->wqkv + l * g->nqkv * H, a, g->nqkv, H, B, qkv, g->nqkv);
            if ((rc = attention_layer(host, ctx, g, in, lens_row, l, qkv, kc, vc, o)) != 0)
                break;
            matvec(host, ctx, in->wo + l * H * qd, o, H, qd, B, t, H);
            for (int64_t i = 0; i < B * H; i++)
                h[i] += t[i];
            rmsnorm_reference(host, ctx, h, in->g_mlp + l * H, a, (size_t)B, (size_t)H, g->eps);
            matvec(host, ctx, in->wgu + l * 2 * I * H, a, 2 * I, H, B, gu, 2 * I);
            for (int64_t b = 0; b < B; b++)
                for (int64_t i = 0; i < I; i++) {
                    const double gt = gu[b * 2 * I + i];
                    act[b * I + i] = gt / (1.0 + exp(-gt)) * gu[b * 2 * I + I + i];
                }
            matvec(host, ctx, in->wd + l * H * I, act, H, I, B, t, H);
            for (int64_t i = 0; i < B * H; i++)
                h[i] += t[i];
        }
        if (rc == 0 && !g->attn_only)
            memcpy(y, h, (size_t)(B * H) * sizeof *h);
    }
    free(qkv);
    free(o);
    free(h);
    free(a);
    free(gu);
    free(act);
    free(t);
    return rc;
}
