/* RMSNorm's float64 references (rms.h), a row at a time on the host's threads (klab_parallel_for): each
 * row is the same serial loop whatever thread runs it, so the result is the same bits at any thread
 * count. */
#include <math.h>

#include "row/rms.h"

/* Elements of work a chunk: enough to outweigh handing a chunk to a thread; a function of the case. */
#define REF_CHUNK_ELEMS 65536

typedef struct rms_job {
    const double *x, *r, *w;
    double *y, *h; /* h: the residual form's sum, NULL for the plain form */
    size_t cols;
    double eps;
} rms_job;

static void rms_rows(void *arg, size_t r0, size_t r1)
{
    const rms_job *j = arg;
    const size_t cols = j->cols;
    for (size_t r = r0; r < r1; r++) {
        const double *xr = j->x + r * cols;
        if (j->h) { /* h = x + r first: the row normalised is h */
            double *hr = j->h + r * cols;
            for (size_t c = 0; c < cols; c++)
                hr[c] = xr[c] + j->r[r * cols + c];
            xr = hr;
        }
        double ss = 0;
        for (size_t c = 0; c < cols; c++)
            ss += xr[c] * xr[c];
        double inv = 1.0 / sqrt(ss / (double)cols + j->eps);
        for (size_t c = 0; c < cols; c++)
            j->y[r * cols + c] = xr[c] * inv * j->w[c];
    }
}

static size_t row_grain(size_t cols)
{
    return cols >= REF_CHUNK_ELEMS ? 1 : REF_CHUNK_ELEMS / (cols ? cols : 1);
}

void rmsnorm_reference(const klab_host *host, klab_ctx *ctx, const double *x, const double *w, double *y, size_t rows,
                       size_t cols, double eps)
{
    rms_job j = {x, NULL, w, y, NULL, cols, eps};
    klab_parallel_for(host, ctx, rows, row_grain(cols), rms_rows, &j);
}

void rmsnorm_residual_reference(const klab_host *host, klab_ctx *ctx, const double *x, const double *r,
                                const double *w, double *y, double *h, size_t rows, size_t cols, double eps)
{
    rms_job j = {x, r, w, y, h, cols, eps};
    klab_parallel_for(host, ctx, rows, row_grain(cols), rms_rows, &j);
}
