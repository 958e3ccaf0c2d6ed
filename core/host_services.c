#include "host_services.h"

#include <cuda_runtime.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "gpu_kernels.h"

uint64_t seed_mix(uint64_t seed, const char *label)
{
    uint64_t h = seed ^ 0x9e3779b97f4a7c15ull;
    for (const char *p = label; *p; p++) {
        h ^= (unsigned char)*p;
        h *= 0x100000001b3ull;
    }
    h ^= h >> 31;
    h *= 0x94d049bb133111ebull;
    return h ^ (h >> 29);
}

void ctx_set_error(klab_ctx *ctx, const char *fmt, ...)
{
    if (ctx->has_err)
        return; /* the first reason is the cause; later ones are usually its consequences */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ctx->err, sizeof ctx->err, fmt, ap);
    va_end(ap);
    ctx->has_err = 1;
}

static klab_status svc_error(klab_ctx *ctx, const char *fmt, ...)
{
    if (!ctx->has_err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(ctx->err, sizeof ctx->err, fmt, ap);
        va_end(ap);
        ctx->has_err = 1;
    }
    return KLAB_ERROR;
}

static void svc_log(klab_ctx *ctx, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "[%s] %s\n", ctx->label, msg);
}

static int svc_device_cc(klab_ctx *ctx)
{
    return ctx->cc;
}

static ctx_tensor *find_tensor(klab_ctx *ctx, const void *dev)
{
    for (int i = 0; i < ctx->ntensors; i++)
        if (ctx->tensors[i].dev == dev)
            return &ctx->tensors[i];
    return NULL;
}

static int fill(klab_ctx *ctx, ctx_tensor *t)
{
    int e = gpu_fill_uniform(t->dtype, t->dev, t->count, t->seed, t->lo, t->hi, ctx->stream);
    if (e) {
        ctx_set_error(ctx, "filling tensor '%s': %s", t->name, cudaGetErrorString((cudaError_t)e));
        return -1;
    }
    return 0;
}

static void *svc_tensor(klab_ctx *ctx, const char *name, klab_role role, klab_dtype dtype, size_t count)
{
    if (ctx->ntensors == CTX_MAX_TENSORS) {
        ctx_set_error(ctx, "tensor '%s': more than %d tensors", name, CTX_MAX_TENSORS);
        return NULL;
    }
    if ((unsigned)dtype >= KLAB_DTYPE_COUNT || count == 0 ||
        (role != KLAB_INPUT && role != KLAB_OUTPUT && role != KLAB_SCRATCH)) {
        ctx_set_error(ctx, "tensor '%s': bad request (role %d, dtype %d, %zu elements)", name, (int)role,
                      (int)dtype, count);
        return NULL;
    }
    ctx_tensor *t = &ctx->tensors[ctx->ntensors];
    memset(t, 0, sizeof *t);
    snprintf(t->name, sizeof t->name, "%s", name ? name : "?");
    t->role = role;
    t->dtype = dtype;
    t->count = count;
    size_t bytes = count * dtype_size(dtype);
    cudaError_t e = cudaMalloc(&t->dev, bytes);
    if (e != cudaSuccess) {
        ctx_set_error(ctx, "tensor '%s': cudaMalloc of %zu bytes: %s", t->name, bytes, cudaGetErrorString(e));
        return NULL;
    }
    ctx->ntensors++;
    char lbl[256];
    snprintf(lbl, sizeof lbl, "%s/%d", ctx->label, ctx->ntensors);
    t->seed = seed_mix(ctx->seed, lbl);
    t->lo = -1;
    t->hi = 1;
    if (role == KLAB_INPUT) {
        if (fill(ctx, t) != 0)
            return NULL;
    } else {
        e = cudaMemsetAsync(t->dev, 0xff, bytes, ctx->stream);
        if (e != cudaSuccess) {
            ctx_set_error(ctx, "tensor '%s': poisoning: %s", t->name, cudaGetErrorString(e));
            return NULL;
        }
    }
    return t->dev;
}

static klab_status svc_fill_uniform(klab_ctx *ctx, void *tensor, double lo, double hi)
{
    ctx_tensor *t = find_tensor(ctx, tensor);
    if (!t || t->role != KLAB_INPUT)
        return svc_error(ctx, "fill_uniform: %p is not an input made by host->tensor()", tensor);
    if (!(hi > lo))
        return svc_error(ctx, "fill_uniform('%s'): empty range [%g, %g)", t->name, lo, hi);
    t->lo = lo;
    t->hi = hi;
    return fill(ctx, t) == 0 ? KLAB_OK : KLAB_ERROR;
}

const klab_host host_services = {
    .abi_major = KLAB_ABI_MAJOR,
    .abi_minor = KLAB_ABI_MINOR,
    .struct_size = sizeof(klab_host),
    .tensor = svc_tensor,
    .fill_uniform = svc_fill_uniform,
    .error = svc_error,
    .log = svc_log,
    .device_cc = svc_device_cc,
};

klab_ctx *ctx_new(const char *label, uint64_t seed, int cc, klab_stream stream)
{
    klab_ctx *ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        return NULL;
    snprintf(ctx->label, sizeof ctx->label, "%s", label);
    ctx->seed = seed;
    ctx->cc = cc;
    ctx->stream = stream;
    return ctx;
}

void ctx_free(klab_ctx *ctx)
{
    if (!ctx)
        return;
    for (int i = 0; i < ctx->ntensors; i++)
        if (ctx->tensors[i].dev)
            cudaFree(ctx->tensors[i].dev);
    free(ctx);
}

const char *ctx_error(const klab_ctx *ctx, const char *fallback)
{
    return ctx && ctx->has_err ? ctx->err : fallback;
}

int ctx_refill_inputs(klab_ctx *ctx)
{
    for (int i = 0; i < ctx->ntensors; i++)
        if (ctx->tensors[i].role == KLAB_INPUT && fill(ctx, &ctx->tensors[i]) != 0)
            return -1;
    return 0;
}

int ctx_poison_outputs(klab_ctx *ctx, klab_stream stream)
{
    for (int i = 0; i < ctx->ntensors; i++) {
        ctx_tensor *t = &ctx->tensors[i];
        if (t->role != KLAB_OUTPUT)
            continue;
        cudaError_t e = cudaMemsetAsync(t->dev, 0xff, t->count * dtype_size(t->dtype), stream);
        if (e != cudaSuccess) {
            ctx_set_error(ctx, "poisoning '%s': %s", t->name, cudaGetErrorString(e));
            return -1;
        }
    }
    return 0;
}
