/* fp8_gemm's case shape and the float64 TN GEMM (sampled): pure C, what the CPU tests check. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fp8_gemm.h"

int fp8_gemm_shape_of(const klab_case *k, fp8_gemm_shape *s, char *why, size_t whylen)
{
    static const char *const names[3] = {"m", "n", "k"};
    int64_t v[3];
    for (int i = 0; i < 3; i++) {
        v[i] = klab_case_dim(k, names[i], -1);
        if (v[i] < 1 || v[i] > INT32_MAX) {
            if (v[i] == -1)
                snprintf(why, whylen, "case '%s': dim.%s is not set (fp8_gemm takes dim.m, dim.n and dim.k)", k->name,
                         names[i]);
            else
                snprintf(why, whylen, "case '%s': dim.%s is %lld; it must be from 1 to %d", k->name, names[i],
                         (long long)v[i], INT32_MAX);
            return -1;
        }
    }
    if (v[2] % 16 != 0) {
        snprintf(why, whylen,
                 "case '%s': dim.k is %lld; it must be a multiple of 16 (fp8 rows of whole 16-byte vectors, as cuBLASLt's "
                 "fp8 kernels need)",
                 k->name, (long long)v[2]);
        return -1;
    }
    s->m = v[0];
    s->n = v[1];
    s->k = v[2];
    const char *fa = klab_case_param(k, "fast_accum");
    if (fa && strcmp(fa, "0") && strcmp(fa, "1")) {
        snprintf(why, whylen, "case '%s': param.fast_accum is '%s'; it must be 0 or 1", k->name, fa);
        return -1;
    }
    s->fast_accum = !fa || strcmp(fa, "1") == 0;
    return 0;
}

typedef struct tn_job {
    const double *x, *w;
    size_t n, k;
    const size_t *sample;
    double *out;
} tn_job;

static void tn_elements(void *arg, size_t j0, size_t j1)
{
    const tn_job *t = arg;
    for (size_t j = j0; j < j1; j++) {
        size_t e = t->sample ? t->sample[j] : j, r = e / t->n, c = e % t->n;
        const double *xr = t->x + r * t->k, *wc = t->w + c * t->k;
        double acc = 0;
        for (size_t i = 0; i < t->k; i++)
            acc += xr[i] * wc[i];
        t->out[j] = acc;
    }
}

/* Output elements on the host's threads, each its own dot product in k order (the same bits at any
   thread count); a chunk holds about 2^16 multiply-adds. */
void gemm_reference_tn(const klab_host *host, klab_ctx *ctx, const double *x, const double *w, size_t m, size_t n,
                       size_t k, const size_t *sample, size_t count, double *out)
{
    tn_job t = {x, w, n, k, sample, out};
    klab_parallel_for(host, ctx, sample ? count : m * n, k >= 65536 ? 1 : 65536 / (k ? k : 1), tn_elements, &t);
}
