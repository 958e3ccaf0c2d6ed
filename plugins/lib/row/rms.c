/* RMSNorm's float64 references (rms.h). */
#include <math.h>

#include "row/rms.h"

void rmsnorm_reference(const double *x, const double *w, double *y, size_t rows, size_t cols, double eps)
{
    for (size_t r = 0; r < rows; r++) {
        const double *xr = x + r * cols;
        double ss = 0;
        for (size_t c = 0; c < cols; c++)
            ss += xr[c] * xr[c];
        double inv = 1.0 / sqrt(ss / (double)cols + eps);
        for (size_t c = 0; c < cols; c++)
            y[r * cols + c] = xr[c] * inv * w[c];
    }
}

void rmsnorm_residual_reference(const double *x, const double *r, const double *w, double *y, double *h, size_t rows,
                                size_t cols, double eps)
{
    for (size_t i = 0; i < rows * cols; i++)
        h[i] = x[i] + r[i];
    rmsnorm_reference(h, w, y, rows, cols, eps);
}
