/* The services table handed to plugins (klab_host), and the per-setup context behind it: the
 * tensors a plugin made, its error message, the case it serves. */
#ifndef KLAB_HOST_SERVICES_H
#define KLAB_HOST_SERVICES_H

#include <stddef.h>
#include <stdint.h>

#include "klab/plugin.h"

#define CTX_MAX_TENSORS 32

typedef struct ctx_tensor {
    char name[32];
    klab_role role;
    klab_dtype dtype;
    size_t count;
    void *dev;
    uint64_t seed; /* inputs: what filled it, so it can be refilled identically */
    double lo, hi;
} ctx_tensor;

struct klab_ctx {
    char label[192]; /* "rmsnorm 4096x8192 fp16", for log lines */
    uint64_t seed;
    int cc;
    klab_stream stream;
    int ntensors;
    ctx_tensor tensors[CTX_MAX_TENSORS];
    char err[512];
    int has_err;
};

extern const klab_host host_services;

/* A context for one setup. Tensor fills go on `stream`. */
klab_ctx *ctx_new(const char *label, uint64_t seed, int cc, klab_stream stream);

/* Frees the tensors and the context. */
void ctx_free(klab_ctx *ctx);

/* The first reason recorded through host->error(), or `fallback`. */
const char *ctx_error(const klab_ctx *ctx, const char *fallback);

/* Records a reason from the host side, the same way host->error() does. */
void ctx_set_error(klab_ctx *ctx, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Refills every input with the values it was made with (after a run changed them). */
int ctx_refill_inputs(klab_ctx *ctx);

/* Poisons (all bits set) every output. */
int ctx_poison_outputs(klab_ctx *ctx, klab_stream stream);

/* A 64-bit seed mixed from a run seed and a label: different per case, dtype and tensor. */
uint64_t seed_mix(uint64_t seed, const char *label);

#endif
