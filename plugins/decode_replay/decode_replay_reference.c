/* The float64 reference of decode_replay's steps: the formulas of decode_replay.h in order, nothing
 * rounded to the dtype (the device rounds q, k, v, o, h and the MLP's activation; the tolerance allows
 * for it). The RoPE tables are the device's own (inputs), so the reference rotates by the same angles. */
#include <math.h>
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

/* out[b][n] = sum_k w[n][k] in[b][k] for n < rows, b < batch; out rows `ldo` apart */
static void matvec(const double *w, const double *in, int64_t rows, int64_t k, int64_t batch, double *out, int64_t ldo)
{
    for (int64_t n = 0; n < rows; n++)
        for (int64_t b = 0; b < batch; b++)
            out[b * ldo + n] = dot(w + n * k, in + b * k, k);
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

/* RoPE, the append and the attention of one layer for every sequence: qkv (batch x nqkv) in, o (batch x
   heads*D) out; the layer's caches updated at each sequence's new position. */
static void attention_layer(const dr_geom *g, const dr_ref_in *in, const double *lens_row, int64_t l, double *qkv,
                            double *kc, double *vc, double *sc, double *o)
{
    const int64_t D = g->head_dim, half = D / 2, grp = g->heads / g->kv_heads;
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
        for (int64_t j = 0; j < g->heads; j++) {
            const size_t head = (size_t)(((l * g->batch + b) * g->kv_heads + j / grp) * g->kv) * (size_t)D;
            attend(q + j * D, kc + head, vc + head, len, D, sc, o + (b * g->heads + j) * D);
        }
    }
}

int dr_reference(const dr_geom *g, const dr_ref_in *in, int64_t steps, double *kc, double *vc, double *y)
{
    const int64_t B = g->batch, H = g->hidden, D = g->head_dim, I = g->inter, qd = g->heads * D;
    double *qkv = malloc((size_t)(B * g->nqkv) * sizeof *qkv);
    double *o = malloc((size_t)(B * qd) * sizeof *o);
    double *sc = malloc((size_t)g->kv * sizeof *sc);
    double *h = malloc((size_t)(B * H) * sizeof *h), *a = malloc((size_t)(B * H) * sizeof *a);
    double *gu = malloc((size_t)(B * 2 * I) * sizeof *gu), *act = malloc((size_t)(B * I) * sizeof *act);
    double *t = malloc((size_t)(B * H) * sizeof *t);
    int rc = qkv && o && sc && h && a && gu && act && t ? 0 : -1;
    for (int64_t st = 0; rc == 0 && st < steps; st++) {
        const double *lens_row = in->lens + ((in->c0 + st) % g->steps) * B;
        if (!g->attn_only)
            memcpy(h, in->x, (size_t)(B * H) * sizeof *h);
        for (int64_t l = 0; l < g->layers; l++) {
            if (g->attn_only) {
                memcpy(qkv, in->x + l * B * g->nqkv, (size_t)(B * g->nqkv) * sizeof *qkv);
                attention_layer(g, in, lens_row, l, qkv, kc, vc, sc, y + l * B * qd);
                continue;
            }
            rmsnorm_reference(h, in->g_attn + l * H, a, (size_t)B, (size_t)H, g->eps);
            matvec(in->wqkv + l * g->nqkv * H, a, g->nqkv, H, B, qkv, g->nqkv);
            attention_layer(g, in, lens_row, l, qkv, kc, vc, sc, o);
            matvec(in->wo + l * H * qd, o, H, qd, B, t, H);
            for (int64_t i = 0; i < B * H; i++)
                h[i] += t[i];
            rmsnorm_reference(h, in->g_mlp + l * H, a, (size_t)B, (size_t)H, g->eps);
            matvec(in->wgu + l * 2 * I * H, a, 2 * I, H, B, gu, 2 * I);
            for (int64_t b = 0; b < B; b++)
                for (int64_t i = 0; i < I; i++) {
                    const double gt = gu[b * 2 * I + i];
                    act[b * I + i] = gt / (1.0 + exp(-gt)) * gu[b * 2 * I + I + i];
                }
            matvec(in->wd + l * H * I, act, H, I, B, t, H);
            for (int64_t i = 0; i < B * H; i++)
                h[i] += t[i];
        }
        if (!g->attn_only)
            memcpy(y, h, (size_t)(B * H) * sizeof *h);
    }
    free(qkv);
    free(o);
    free(sc);
    free(h);
    free(a);
    free(gu);
    free(act);
    free(t);
    return rc;
}
