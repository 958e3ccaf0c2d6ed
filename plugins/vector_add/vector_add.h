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
/* The profiles: their indices here, their descriptor entries in vector_add_plugin.c, from one list. */
#define VA_PROFILES(X)                                                                                        \
    X(VA_NAIVE, .name = "naive", .summary = "one element a thread")                                            \
    X(VA_VECTORIZED, .name = "vectorized",                                                                     \
      .summary = "16-byte loads/stores, 4 vectors in flight a thread (as klab's own copy)")                    \
    X(VA_MEMCPY, .name = "memcpy", .summary = "cudaMemcpyAsync device to device (op = copy only)")            \
    X(VA_STREAMING, .name = "streaming", .summary = "vectorized with evict-first hints (ld/st.global.cs)")    \
    X(VA_VEC8, .name = "vec8", .summary = "vectorized with 8 vectors in flight a thread")                     \
    X(VA_L2_PREFETCH, .name = "l2_prefetch", .summary = "vectorized with a 256-byte L2 prefetch on each load") \
    X(VA_PERSISTENT, .name = "persistent", .summary = "vectorized over a resident grid that strides")
enum { KLAB_PROFILE_IDS(VA_PROFILES) VA_PROFILE_COUNT };

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
