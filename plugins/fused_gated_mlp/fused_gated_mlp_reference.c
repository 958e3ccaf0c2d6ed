/* The gated MLP's case shape and float64 reference: pure C, what the CPU tests check by hand. The two
 * products are the GEMM family's float64 TN GEMM (lib/gemm/gemm_reference.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gemm/gemm_reference.h"
#include "fused_gated_mlp.h"

int gated_mlp_activation(const char *name)
{
    if (strcmp(name, "silu") == 0)
        return GM_SILU;
    if (strcmp(name, "gelu") == 0)
        return GM_GELU;
    return -1;
}

int gated_mlp_shape_of(const klab_case *k, gated_mlp_shape *s, char *why, size_t whylen)
{
    static const char *const names[3] = {"m", "k", "f"};
    int64_t v[3];
    for (int i = 0; i < 3; i++) {
        v[i] = klab_case_dim(k, names[i], -1);
        if (v[i] == -1) {
            snprintf(why, whylen, "case '%s': dim.%s is not set (fused_gated_mlp takes dim.m, dim.k and dim.f)",
                     k->name, names[i]);
            return -1;
        }
        if (v[i] < 1 || v[i] > INT32_MAX) {
            snprintf(why, whylen, "case '%s': dim.%s is %lld; it must be from 1 to %d", k->name, names[i],
                     (long long)v[i], INT32_MAX);
            return -1;
        }
        if (i > 0 && v[i] % 8 != 0) {
            snprintf(why, whylen,
                     "case '%s': dim.%s is %lld; it must be a multiple of 8 (bf16 rows of whole 16-byte vectors)",
                     k->name, names[i], (long long)v[i]);
            return -1;
        }
    }
    const char *act = klab_case_param(k, "activation");
    s->act = act ? gated_mlp_activation(act) : GM_SILU;
    if (s->act < 0) {
        snprintf(why, whylen, "case '%s': param.activation is '%s'; it must be silu or gelu", k->name, act);
        return -1;
    }
    s->m = v[0];
    s->k = v[1];
    s->f = v[2];
    return 0;
}

double gated_mlp_act(int act, double g, double u)
{
    double a = act == GM_GELU ? 0.5 * g * (1.0 + erf(g / sqrt(2.0))) : g / (1.0 + exp(-g));
    return a * u;
}

int gated_mlp_reference(const klab_host *host, klab_ctx *ctx, const gated_mlp_shape *s, const double *x,
                        const double *wg, const double *wu, const size_t *sample, size_t count, double *out)
{
    const size_t m = (size_t)s->m, k = (size_t)s->k, f = (size_t)s->f, n = sample ? count : m * f;
    double *up = malloc((n ? n : 1) * sizeof *up);
    if (!up)
        return -1;
    gemm_reference_tn(host, ctx, x, wg, m, f, k, sample, count, out);
    gemm_reference_tn(host, ctx, x, wu, m, f, k, sample, count, up);
    for (size_t j = 0; j < n; j++)
        out[j] = gated_mlp_act(s->act, out[j], up[j]);
    free(up);
    return 0;
}
