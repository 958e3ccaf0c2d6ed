/* The float64 reduction: a plain loop over each row. With inputs of one sign (every sum case) its
 * relative error is at most cols * 2^-53, which the tolerance adds (reduction_plan.c). */
#include "reduction.h"

void reduction_reference(int op, const double *x, size_t rows, size_t cols, double *out)
{
    for (size_t r = 0; r < rows; r++) {
        const double *xr = x + r * cols;
        double v = xr[0];
        for (size_t c = 1; c < cols; c++)
            v = op == RD_MAX ? (xr[c] > v ? xr[c] : v) : v + xr[c];
        out[r] = v;
    }
}
