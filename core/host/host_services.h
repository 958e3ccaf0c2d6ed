/* The services table handed to plugins (klab_host), and the per-setup context behind it: the
 * tensors a plugin made (each between two red zones), the copies of them batched timing rotates
 * through, the data the plugin gave for its inputs, its error message, the case it serves. */
#ifndef KLAB_HOST_SERVICES_H
#define KLAB_HOST_SERVICES_H

#include <stddef.h>
#include <stdint.h>

#include "klab/plugin.h"

#define CTX_MAX_TENSORS 32
/* Copies ctx_replicate makes at most: a batch rotating through more finds nothing colder. */
#define CTX_MAX_COPIES 1024

typedef struct ctx_tensor {
    char name[32];
    klab_role role;
    klab_dtype dtype;
    size_t count, bytes;
    /* inputs and states: what fills them, so every refill is identical: the plugin's data (fill_data,
       a host copy), else uniform values from seed in [lo, hi) */
    uint64_t seed;
    double lo, hi;
    void *data;
    /* states: their contents at the end of setup, on the device, for restores (ctx_seal) */
    void *pristine;
} ctx_tensor;

struct klab_ctx {
    char label[192]; /* "rmsnorm 4096x8192 fp16", for log lines */
    uint64_t seed;
    int cc;
    klab_stream stream;
    int ntensors;
    ctx_tensor tensors[CTX_MAX_TENSORS];
    /* copy k of tensor i: ptr[k * CTX_MAX_TENSORS + i] (what run() gets), inside the allocation
       alloc[...] that holds its red zones; copy 0 is the one setup made */
    int ncopies;
    void **ptr, **alloc;
    int sealed;               /* setup has ended: no new tensors, fills or sampling requests */
    size_t sample_per_output; /* host->sample_outputs: 0 verifies every element */
    uint64_t poisons;         /* poison calls so far: each one's pattern is new */
    char err[512];
    int has_err;
    /* tensors in host memory and no CUDA call (ctx_new_on_host): a plugin's setup and verify run
       without a GPU, for its reference's tests */
    int on_host;
};

extern const klab_host host_services;

/* A context for one setup. Tensor fills go on `stream`. NULL when out of memory. */
klab_ctx *ctx_new(const char *label, uint64_t seed, int cc, klab_stream stream);

/* A context whose tensors live in host memory: fills and poison are done on the CPU, red zones are
   not kept, and device() and any device work of the plugin fail. NULL when out of memory. */
klab_ctx *ctx_new_on_host(const char *label, uint64_t seed, int cc);

/* Frees every copy of the tensors, the plugin's data and the context. */
void ctx_free(klab_ctx *ctx);

/* The first reason recorded through host->error(), or `fallback`. */
const char *ctx_error(const klab_ctx *ctx, const char *fallback);

/* Records a reason from the host side, the same way host->error() does. */
void ctx_set_error(klab_ctx *ctx, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* The device pointers of copy `copy` of every tensor, indexed as tensor() made them: what
   klab_launch.tensors is. */
void *const *ctx_tensors(const klab_ctx *ctx, int copy);

/* Ends setup: the states' contents become what every restore returns to. 0 or -1 (ctx_error). */
int ctx_seal(klab_ctx *ctx);

/* Refills every copy of every input with its own contents (after a run changed them). */
int ctx_refill_inputs(klab_ctx *ctx);

/* Overwrites every output of copy `copy` with a pattern no earlier call used (stream-ordered). */
int ctx_poison_outputs(klab_ctx *ctx, klab_stream stream, int copy);

/* Restores the states of copy `copy` (-1: of every copy) to their contents at the end of setup. */
int ctx_restore_states(klab_ctx *ctx, klab_stream stream, int copy);

/* Makes copies 1..n-1 of every tensor (inputs and states with the same contents, outputs and scratch
   poisoned), each with its red zones; copies already made are kept. *footprint: the bytes of all n
   copies. 0, or -1 with the reason (copies made by this call are freed again). */
int ctx_replicate(klab_ctx *ctx, int n, double *footprint, char *err, size_t errlen);

/* Reads back the red zones of every copy of every tensor: 0 intact; 1 written, the first such
   tensor named in msg (the guards are rewritten, so later checks start clean); -1 a CUDA error. */
int ctx_check_redzones(klab_ctx *ctx, char *msg, size_t msglen);

/* "input", "output", "scratch", "state". */
const char *ctx_role_name(klab_role role);

/* A 64-bit seed mixed from a run seed and a label: different per case, dtype and tensor. */
uint64_t seed_mix(uint64_t seed, const char *label);

#endif
