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

#include "klab/plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

/* profiles, in the descriptor's order */
enum { SW_BASELINE = 0, SW_FUSED };
enum { SW_SPLIT = 0, SW_PACKED };

typedef struct swiglu_shape {
    int layout;  /* SW_SPLIT or SW_PACKED */
    size_t rows; /* product of every dimension but the last */
    size_t n;    /* elements of gate, of up and of out in one row */
} swiglu_shape;

/* The layout named "split" or "packed", or -1. */
int swiglu_layout(const char *name);

/* The shape of a case (param.layout, split when absent). Returns 0, or -1 with the reason, naming the
   case and the limit, in why. Pure: setup() and work() both use it. */
int swiglu_shape_of(const klab_case *kcase, swiglu_shape *s, char *why, size_t whylen);

/* How the vectorized kernel lays a case out (the fused profile's tuning space; the own choice is what
   every other caller gets):
     cta     threads a block (128, 256, 512)
     unroll  16-byte vectors of each operand in flight a thread (1, 2, 4, 8)
     hint    0: plain loads and stores; 1: streaming stores (st.global.cs: out is not read again);
             2: streaming loads too (ld.global.cs: gate and up are read once)
   Written "cta=256,unroll=1,hint=0". Shapes the element-wise kernel takes (a packed row that is not a
   whole number of vectors) have no space. */
typedef struct swiglu_plan {
    int cta, unroll, hint;
} swiglu_plan;

/* The own choice: 256 threads, one vector of each operand a thread, plain loads and stores. On an H200
   at 4096x14336 (split and packed, three dtypes) it was 0.4-1.2 % faster than 4 vectors a thread
   (docs/notes/swiglu.md), and decode sizes spread over more SMs with it. */
swiglu_plan swiglu_plan_choose(void);

/* Configuration `index` of the fused space for the case (index -1: the own choice), or NULL past the
   last; *p gets the plan when p is not NULL. Pure: the profile's config hook and run() share it. */
const char *swiglu_plan_config(const swiglu_shape *s, size_t elem, int index, swiglu_plan *p);

/* Operands: row r's gate at gate + r * ld, its up at up + r * ld, its out at out + r * n (elements).
   Split tensors have ld = n (then rows are one flat vector); packed ones ld = 2n, up = gate + n.
   `plan` NULL: the own choice. Return the launch's cudaError_t as int (cudaErrorInvalidValue for a
   plan outside the space). */
int swiglu_fused_launch(klab_dtype d, const void *gate, const void *up, size_t ld, void *out, size_t rows, size_t n,
                        const swiglu_plan *plan, klab_stream s);
/* The same pass with GELU for silu: gelu(gate) * up (fused_gated_mlp's activation choice). */
int geglu_fused_launch(klab_dtype d, const void *gate, const void *up, size_t ld, void *out, size_t rows, size_t n,
                       klab_stream s);
/* `tmp` holds rows * n elements of d: silu(gate), as eager keeps it. */
int swiglu_baseline_launch(klab_dtype d, const void *gate, const void *up, size_t ld, void *out, void *tmp,
                           size_t rows, size_t n, klab_stream s);

/* The float64 result, operands laid out as for the launches; rows on the host's threads (host and ctx:
   verify()'s; both NULL: this thread). */
void swiglu_reference(const klab_host *host, klab_ctx *ctx, const double *gate, const double *up, size_t ld,
                      double *out, size_t rows, size_t n);

#ifdef __cplusplus
}
#endif

#endif
