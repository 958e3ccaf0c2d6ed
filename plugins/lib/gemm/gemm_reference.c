/* The float64 TN GEMM (gemm_reference.h). */
#include "gemm/gemm_reference.h"

void gemm_reference_tn(const double *x, const double *w, size_t m, size_t n, size_t k, const size_t *sample,
                       size_t count, double *out)
{
    size_t total = sample ? count : m * n;
    for (size_t j = 0; j < total; j++) {
        size_t e = sample ? sample[j] : j, r = e / n, c = e % n;
        const double *xr = x + r * k, *wc = w + c * k;
        double acc = 0;
        for (size_t i = 0; i < k; i++)
            acc += xr[i] * wc[i];
        out[j] = acc;
    }
}
