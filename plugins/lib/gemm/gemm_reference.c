/* The float64 TN GEMM (gemm_reference.h). */
#include "gemm/gemm_reference.h"

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
