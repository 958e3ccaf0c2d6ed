#include <math.h>

#include "softmax.h"

void softmax_reference(const double *x, double *y, size_t rows, size_t cols)
{
    for (size_t r = 0; r < rows; r++) {
        const double *xr = x + r * cols;
        double *yr = y + r * cols;
        double m = -INFINITY, s = 0;
        for (size_t c = 0; c < cols; c++)
            m = xr[c] > m ? xr[c] : m;
        for (size_t c = 0; c < cols; c++)
            s += yr[c] = exp(xr[c] - m);
        for (size_t c = 0; c < cols; c++)
            yr[c] /= s;
    }
}
