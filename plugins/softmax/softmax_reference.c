/* The float64 softmax, a row at a time on the host's threads (klab_parallel_for): each row is the same
 * serial loop whatever thread runs it, so the result is the same bits at any thread count. */
#include <math.h>

#include "softmax.h"

/* Elements of work a chunk: enough to outweigh handing a chunk to a thread; a function of the case. */
#define REF_CHUNK_ELEMS 65536

typedef struct smx_job {
    const double *x;
    double *y;
    size_t cols;
} smx_job;

static void smx_rows(void *arg, size_t r0, size_t r1)
{
    const smx_job *j = arg;
    const size_t cols = j->cols;
    for (size_t r = r0; r < r1; r++) {
        const double *xr = j->x + r * cols;
        double *yr = j->y + r * cols;
        double m = -INFINITY, s = 0;
        for (size_t c = 0; c < cols; c++)
            m = xr[c] > m ? xr[c] : m;
        for (size_t c = 0; c < cols; c++)
            s += yr[c] = exp(xr[c] - m);
        for (size_t c = 0; c < cols; c++)
            yr[c] /= s;
    }
}

void softmax_reference(const klab_host *host, klab_ctx *ctx, const double *x, double *y, size_t rows, size_t cols)
{
    smx_job j = {x, y, cols};
    klab_parallel_for(host, ctx, rows, cols >= REF_CHUNK_ELEMS ? 1 : REF_CHUNK_ELEMS / (cols ? cols : 1), smx_rows,
                      &j);
}
