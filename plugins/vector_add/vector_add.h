/* vector_add: the memory primitives, op = copy (c = a), add (c = a + b) or triad (c = a + 3 b), chosen
 * per case with param.op, in versions from naive to fast. Its `vectorized` copy is built like klab's
 * own copy (core/gpu_kernels.cu), the bandwidth ceiling every row's "fraction of limit" is measured
 * against: comparing the two keeps the ceiling honest. */
#ifndef VECTOR_ADD_H
#define VECTOR_ADD_H

#include <stddef.h>

#include "klab/plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { VA_COPY = 0, VA_ADD, VA_TRIAD };
/* profiles, in the descriptor's order */
enum { VA_NAIVE = 0, VA_VECTORIZED, VA_MEMCPY, VA_STREAMING, VA_VEC8, VA_L2_PREFETCH, VA_PERSISTENT };

#define VA_TRIAD_SCALAR 3.0

/* Returns the op named by "copy", "add" or "triad", or -1. */
int vector_add_op(const char *name);

/* Launches `op` with the kernel of `profile` (not memcpy); returns the launch's cudaError_t as int. */
int vector_add_launch(int profile, int op, klab_dtype d, const void *a, const void *b, void *c, size_t n,
                      klab_stream s);

/* The float64 result of op over n elements, on the host's threads (host and ctx: verify()'s; both NULL:
   this thread). */
void vector_add_reference(const klab_host *host, klab_ctx *ctx, int op, const double *a, const double *b, double *c,
                          size_t n);

#ifdef __cplusplus
}
#endif

#endif
