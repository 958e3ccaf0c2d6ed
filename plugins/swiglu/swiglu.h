/* swiglu: out = silu(gate) * up, silu(g) = g / (1 + e^-g), the gated activation of LLaMA-style MLPs,
 * in two versions:
 *   baseline  what eager PyTorch runs: silu(gate) into a tensor of the dtype, then a multiply kernel,
 *             each a 16-byte vectorized elementwise kernel (so the speedup is what fusion buys, not
 *             what vectorising buys): 5 M*N elements of traffic instead of 3;
 *   fused     one pass: 16-byte loads of gate and up, float arithmetic, one rounding of the output.
 *
 * Two layouts of the input, both found in models (param.layout):
 *   split   gate and up are separate tensors; the case's shape is each one's (M x N), as is out's;
 *   packed  one tensor x = [gate | up] per row, as a fused gate_up projection writes it; the case's
 *           shape is x's (M x 2N): row r's gate is x[r, 0:N], its up x[r, N:2N]; out is M x N.
 *           An odd width has no equal halves and is refused at setup.
 * The case's shape is always the input tensor's shape as the model holds it. */
#ifndef SWIGLU_H
#define SWIGLU_H

#include <stddef.h>

#include "gated/gated.h"
#include "klab/plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

/* profiles, in the descriptor's order */
enum { SW_BASELINE = 0, SW_FUSED };

/* The layout named "split" or "packed", or -1. */
int swiglu_layout(const char *name);

/* The shape of a case (param.layout, split when absent). Returns 0, or -1 with the reason, naming the
   case and the limit, in why. Pure: setup() and work() both use it. */
int swiglu_shape_of(const klab_case *kcase, swiglu_shape *s, char *why, size_t whylen);

/* The float64 result, operands laid out as for the launches; rows on the host's threads (host and ctx:
   verify()'s; both NULL: this thread). */
void swiglu_reference(const klab_host *host, klab_ctx *ctx, const double *gate, const double *up, size_t ld,
                      double *out, size_t rows, size_t n);

#ifdef __cplusplus
}
#endif

#endif
