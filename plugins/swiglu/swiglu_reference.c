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

void swiglu_reference(const double *gate, const double *up, size_t ld, double *out, size_t rows, size_t n)
{
    for (size_t r = 0; r < rows; r++)
        for (size_t c = 0; c < n; c++) {
            double g = gate[r * ld + c];
            out[r * n + c] = g / (1.0 + exp(-g)) * up[r * ld + c];
        }
}
