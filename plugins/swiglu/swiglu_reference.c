/* The float64 SwiGLU and the case's shape: pure C, also what the CPU tests check by hand. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "swiglu.h"

int swiglu_layout(const char *name)
{
    if (strcmp(name, "split") == 0)
        return SW_SPLIT;
    if (strcmp(name, "packed") == 0)
        return SW_PACKED;
    return -1;
}

int swiglu_shape_of(const klab_case *k, swiglu_shape *s, char *why, size_t whylen)
{
    const char *layout = klab_case_param(k, "layout");
    s->layout = layout ? swiglu_layout(layout) : SW_SPLIT;
    if (s->layout < 0) {
        snprintf(why, whylen, "case '%s': param.layout is '%s'; it must be split or packed", k->name, layout);
        return -1;
    }
    if (k->rank < 1) {
        snprintf(why, whylen, "case '%s': swiglu needs a shape (ROWSxWIDTH or WIDTH)", k->name);
        return -1;
    }
    size_t width = (size_t)k->dims[k->rank - 1];
    s->rows = 1;
    for (int i = 0; i < k->rank - 1; i++)
        s->rows *= (size_t)k->dims[i];
    if (s->layout == SW_PACKED && width % 2 != 0) {
        snprintf(why, whylen,
                 "case '%s': the packed [gate | up] width is %zu, which is odd; it must be a multiple of 2 (gate and "
                 "up are its two equal halves)",
                 k->name, width);
        return -1;
    }
    s->n = s->layout == SW_PACKED ? width / 2 : width;
    return 0;
}

/* Elements of work a chunk: enough to outweigh handing a chunk to a thread; a function of the case. */
#define REF_CHUNK_ELEMS 65536

typedef struct sw_job {
    const double *gate, *up;
    size_t ld, n;
    double *out;
} sw_job;

static void sw_rows(void *arg, size_t r0, size_t r1)
{
    const sw_job *j = arg;
    for (size_t r = r0; r < r1; r++)
        for (size_t c = 0; c < j->n; c++) {
            double g = j->gate[r * j->ld + c];
            j->out[r * j->n + c] = g / (1.0 + exp(-g)) * j->up[r * j->ld + c];
        }
}

/* Rows on the host's threads: every element is its own, so any split gives the same bits. */
void swiglu_reference(const klab_host *host, klab_ctx *ctx, const double *gate, const double *up, size_t ld,
                      double *out, size_t rows, size_t n)
{
    sw_job j = {gate, up, ld, n, out};
    klab_parallel_for(host, ctx, rows, n >= REF_CHUNK_ELEMS ? 1 : REF_CHUNK_ELEMS / (n ? n : 1), sw_rows, &j);
}
