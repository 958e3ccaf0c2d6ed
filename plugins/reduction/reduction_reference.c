/* The float64 reduction: a plain loop over each row. With inputs of one sign (every sum case) its
 * relative error is at most cols * 2^-53, which the tolerance adds (reduction_plan.c).
 *
 * On the host's threads (klab_parallel_for), with the serial loop's bits at any thread count:
 *   - rows are shared out whole: each row is still that one loop;
 *   - a sum of one long row stays that one loop too (one chain of additions: any split would change
 *     its bits and the bound above), so a single-row sum runs in one thread;
 *   - a max of a long row (over RD_REF_LONG columns) is cut into chunks of RD_REF_LONG: each chunk
 *     keeps the first of its largest elements (`x > v`, from -inf), and the chunks' maxima are met in
 *     chunk order by the same `x > v` from the row's first element, which gives exactly the element
 *     the one loop keeps (the first of the largest; an unordered NaN element is skipped either way, a
 *     NaN first element kept either way). */
#include <math.h>
#include <stdlib.h>

#include "reduction.h"

#define RD_REF_LONG 65536

typedef struct rd_job {
    int op;
    const double *x;
    size_t cols;
    double *out;  /* rows: a value a row */
    double *part; /* a long max row: a maximum a chunk */
} rd_job;

static void rd_rows(void *arg, size_t r0, size_t r1)
{
    const rd_job *j = arg;
    for (size_t r = r0; r < r1; r++) {
        const double *xr = j->x + r * j->cols;
        double v = xr[0];
        for (size_t c = 1; c < j->cols; c++)
            v = j->op == RD_MAX ? (xr[c] > v ? xr[c] : v) : v + xr[c];
        j->out[r] = v;
    }
}

static void rd_max_chunk(void *arg, size_t begin, size_t end)
{
    const rd_job *j = arg;
    double v = -INFINITY;
    for (size_t c = begin; c < end; c++)
        v = j->x[c] > v ? j->x[c] : v;
    j->part[begin / RD_REF_LONG] = v;
}

void reduction_reference(const klab_host *host, klab_ctx *ctx, int op, const double *x, size_t rows, size_t cols,
                         double *out)
{
    rd_job j = {op, NULL, cols, out, NULL};
    size_t nc = (cols + RD_REF_LONG - 1) / RD_REF_LONG;
    if (op == RD_MAX && nc > 1 && (j.part = malloc(nc * sizeof *j.part)) != NULL) {
        for (size_t r = 0; r < rows; r++) {
            const double *xr = x + r * cols;
            j.x = xr;
            klab_parallel_for(host, ctx, cols, RD_REF_LONG, rd_max_chunk, &j);
            double v = xr[0];
            for (size_t c = 0; c < nc; c++)
                v = j.part[c] > v ? j.part[c] : v;
            out[r] = v;
        }
        free(j.part);
        return;
    }
    j.x = x; /* sums, short rows, or no memory for the chunks' maxima: whole rows, each the one loop */
    klab_parallel_for(host, ctx, rows, cols >= RD_REF_LONG ? 1 : RD_REF_LONG / (cols ? cols : 1), rd_rows, &j);
}
