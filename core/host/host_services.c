#include "host/host_services.h"

#include <cuda_runtime.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/device_info.h"
#include "host/dtype.h"
#include "host/gpu_kernels.h"
#include "host/host_fill.h"
#include "host/parallel.h"
#include "host/redzone.h"

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

static void set_error_v(klab_ctx *ctx, const char *fmt, va_list ap)
{
    if (ctx->has_err)
        return; /* the first reason is the cause; later ones are usually its consequences */
    vsnprintf(ctx->err, sizeof ctx->err, fmt, ap);
    ctx->has_err = 1;
}

void ctx_set_error(klab_ctx *ctx, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    set_error_v(ctx, fmt, ap);
    va_end(ap);
}

static klab_status svc_error(klab_ctx *ctx, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    set_error_v(ctx, fmt, ap);
    va_end(ap);
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

const char *ctx_role_name(klab_role role)
{
    switch (role) {
    case KLAB_INPUT: return "input";
    case KLAB_OUTPUT: return "output";
    case KLAB_SCRATCH: return "scratch";
    case KLAB_STATE: return "state";
    default: return "tensor";
    }
}

static int cuda_ok(klab_ctx *ctx, cudaError_t e, const char *what, const char *name)
{
    if (e == cudaSuccess)
        return 0;
    ctx_set_error(ctx, "%s '%s': CUDA error %d %s: %s", what, name, (int)e, cudaGetErrorName(e), cudaGetErrorString(e));
    return -1;
}

static void **slot(const klab_ctx *ctx, void **table, int copy, int i)
{
    (void)ctx;
    return &table[(size_t)copy * CTX_MAX_TENSORS + (size_t)i];
}

void *const *ctx_tensors(const klab_ctx *ctx, int copy)
{
    return ctx->ptr + (size_t)copy * CTX_MAX_TENSORS;
}

static int find_tensor(const klab_ctx *ctx, const void *dev)
{
    for (int i = 0; i < ctx->ntensors; i++)
        if (ctx->ptr[i] == dev)
            return i;
    return -1;
}

/* The guard pattern, made once on the host and uploaded beside every tensor. */
static const unsigned char *guard_pattern(void)
{
    static unsigned char g[REDZONE_BYTES];
    static int made;
    if (!made) {
        redzone_pattern(g, sizeof g);
        made = 1;
    }
    return g;
}

static int arm_guards(klab_ctx *ctx, const ctx_tensor *t, unsigned char *base)
{
    if (ctx->on_host)
        return 0; /* nothing runs on a host context's tensors but the caller's CPU code */
    const unsigned char *g = guard_pattern();
    cudaError_t e = cudaMemcpyAsync(base, g, REDZONE_BYTES, cudaMemcpyHostToDevice, ctx->stream);
    if (e == cudaSuccess)
        e = cudaMemcpyAsync(base + REDZONE_BYTES + t->bytes, g, REDZONE_BYTES, cudaMemcpyHostToDevice, ctx->stream);
    return cuda_ok(ctx, e, "red zones of", t->name);
}

/* One copy of a tensor between its red zones: [guard][tensor][guard]; the tensor keeps cudaMalloc's
   256-byte alignment because a guard is a multiple of 256 bytes. */
static int alloc_copy(klab_ctx *ctx, int i, int copy)
{
    const ctx_tensor *t = &ctx->tensors[i];
    unsigned char *base = NULL;
    size_t total = t->bytes + 2 * (size_t)REDZONE_BYTES;
    if (ctx->on_host && !(base = malloc(total))) {
        ctx_set_error(ctx, "tensor '%s': out of host memory for %zu bytes", t->name, total);
        return -1;
    }
    cudaError_t e = ctx->on_host ? cudaSuccess : cudaMalloc((void **)&base, total);
    if (e != cudaSuccess) {
        cudaGetLastError();
        ctx_set_error(ctx, "tensor '%s': cudaMalloc of %zu bytes: %s", t->name, total, cudaGetErrorString(e));
        return -1;
    }
    *slot(ctx, ctx->alloc, copy, i) = base;
    *slot(ctx, ctx->ptr, copy, i) = base + REDZONE_BYTES;
    return arm_guards(ctx, t, base);
}

static int poison_one(klab_ctx *ctx, const ctx_tensor *t, void *dev, klab_stream s)
{
    uint64_t seed = seed_mix(ctx->seed ^ (0x9e3779b97f4a7c15ull * ++ctx->poisons), t->name);
    if (ctx->on_host) {
        host_poison(t->dtype, dev, t->count);
        return 0;
    }
    return cuda_ok(ctx, (cudaError_t)gpu_poison(t->dtype, dev, t->count, seed, s), "poisoning", t->name);
}

/* An input's or state's contents, written to `dev`: the plugin's data, else its uniform values. */
static int fill_one(klab_ctx *ctx, const ctx_tensor *t, void *dev)
{
    if (ctx->on_host) {
        if (t->data)
            memcpy(dev, t->data, t->bytes);
        else
            host_fill_uniform(t->dtype, dev, t->count, t->seed, t->lo, t->hi);
        return 0;
    }
    cudaError_t e = t->data ? cudaMemcpyAsync(dev, t->data, t->bytes, cudaMemcpyHostToDevice, ctx->stream)
                            : (cudaError_t)gpu_fill_uniform(t->dtype, dev, t->count, t->seed, t->lo, t->hi, ctx->stream);
    return cuda_ok(ctx, e, "filling", t->name);
}

static int fill_all_copies(klab_ctx *ctx, int i)
{
    for (int k = 0; k < ctx->ncopies; k++)
        if (fill_one(ctx, &ctx->tensors[i], *slot(ctx, ctx->ptr, k, i)) != 0)
            return -1;
    return 0;
}

static void *svc_tensor(klab_ctx *ctx, const char *name, klab_role role, klab_dtype dtype, size_t count)
{
    if (!name)
        name = "?";
    if (ctx->sealed) {
        ctx_set_error(ctx, "tensor '%s': made after setup(); make every tensor in setup()", name);
        return NULL;
    }
    if (ctx->ntensors == CTX_MAX_TENSORS) {
        ctx_set_error(ctx, "tensor '%s': more than %d tensors", name, CTX_MAX_TENSORS);
        return NULL;
    }
    if ((unsigned)dtype >= KLAB_DTYPE_COUNT || count == 0 || role < KLAB_INPUT || role > KLAB_STATE ||
        count > SIZE_MAX / 8) {
        ctx_set_error(ctx, "tensor '%s': bad request (role %d, dtype %d, %zu elements)", name, (int)role,
                      (int)dtype, count);
        return NULL;
    }
    int i = ctx->ntensors;
    ctx_tensor *t = &ctx->tensors[i];
    memset(t, 0, sizeof *t);
    snprintf(t->name, sizeof t->name, "%s", name);
    t->role = role;
    t->dtype = dtype;
    t->count = count;
    t->bytes = count * klab_dtype_size(dtype);
    char lbl[256];
    snprintf(lbl, sizeof lbl, "%s/%d", ctx->label, i + 1);
    t->seed = seed_mix(ctx->seed, lbl);
    /* floats: [-1, 1); integers: 0 or 1, which no index or length overflows */
    t->lo = dtype_is_integer(dtype) ? 0 : -1;
    t->hi = dtype_is_integer(dtype) ? 2 : 1;
    if (alloc_copy(ctx, i, 0) != 0)
        return NULL;
    ctx->ntensors++;
    void *dev = ctx->ptr[i];
    int rc = role == KLAB_INPUT || role == KLAB_STATE ? fill_one(ctx, t, dev) : poison_one(ctx, t, dev, ctx->stream);
    return rc == 0 ? dev : NULL;
}

/* The input or state `tensor` points at, or -1 with the reason recorded. */
static int fillable(klab_ctx *ctx, const void *tensor, const char *what)
{
    int i = find_tensor(ctx, tensor);
    if (i < 0 || (ctx->tensors[i].role != KLAB_INPUT && ctx->tensors[i].role != KLAB_STATE)) {
        ctx_set_error(ctx, "%s: %p is not an input or state made by host->tensor()", what, tensor);
        return -1;
    }
    if (ctx->sealed) {
        ctx_set_error(ctx, "%s('%s'): called after setup(); inputs are set in setup()", what, ctx->tensors[i].name);
        return -1;
    }
    return i;
}

static klab_status svc_fill_uniform(klab_ctx *ctx, void *tensor, double lo, double hi)
{
    int i = fillable(ctx, tensor, "fill_uniform");
    if (i < 0)
        return KLAB_ERROR;
    ctx_tensor *t = &ctx->tensors[i];
    if (!(hi > lo) || !isfinite(lo) || !isfinite(hi))
        return svc_error(ctx, "fill_uniform('%s'): empty range [%g, %g)", t->name, lo, hi);
    if (dtype_is_integer(t->dtype)) {
        double max = t->dtype == KLAB_INT32 ? 2147483648.0 : 9223372036854775808.0; /* 2^31, 2^63 */
        if (!(ceil(hi) > ceil(lo)))
            return svc_error(ctx, "fill_uniform('%s'): [%g, %g) holds no whole number", t->name, lo, hi);
        if (ceil(lo) < -max || ceil(hi) > max)
            return svc_error(ctx, "fill_uniform('%s'): [%g, %g) does not fit in %s", t->name, lo, hi, dtype_name(t->dtype));
    }
    free(t->data);
    t->data = NULL;
    t->lo = lo;
    t->hi = hi;
    return fill_all_copies(ctx, i) == 0 ? KLAB_OK : KLAB_ERROR;
}

static klab_status svc_fill_data(klab_ctx *ctx, void *tensor, const void *data, size_t count)
{
    int i = fillable(ctx, tensor, "fill_data");
    if (i < 0)
        return KLAB_ERROR;
    ctx_tensor *t = &ctx->tensors[i];
    if (!data || count != t->count)
        return svc_error(ctx, "fill_data('%s'): %zu elements given for a tensor of %zu", t->name, data ? count : 0,
                         t->count);
    void *copy = malloc(t->bytes);
    if (!copy)
        return svc_error(ctx, "fill_data('%s'): out of host memory for %zu bytes", t->name, t->bytes);
    memcpy(copy, data, t->bytes);
    free(t->data);
    t->data = copy;
    return fill_all_copies(ctx, i) == 0 ? KLAB_OK : KLAB_ERROR;
}

static int svc_device_cc(klab_ctx *ctx)
{
    return ctx->cc;
}

static klab_stream svc_stream(klab_ctx *ctx)
{
    return ctx->stream;
}

static uint64_t svc_seed(klab_ctx *ctx)
{
    return seed_mix(ctx->seed, "plugin data");
}

static klab_status svc_sample_outputs(klab_ctx *ctx, size_t per_output)
{
    if (ctx->sealed)
        return svc_error(ctx, "sample_outputs: called after setup()");
    ctx->sample_per_output = per_output;
    return KLAB_OK;
}

/* The plugin's chunks on the worker's pool: the same threads and the same chunking as the host's own
   float64 work (ctx is not needed: the pool belongs to the process). */
static void svc_parallel_for(klab_ctx *ctx, size_t n, size_t grain, klab_chunk_fn fn, void *arg)
{
    (void)ctx;
    parallel_for(n, grain, fn, arg);
}

static klab_status svc_device(klab_ctx *ctx, klab_device *out)
{
    char why[256];
    if (ctx->on_host)
        return svc_error(ctx, "device: no device in a verify on the CPU alone");
    if (device_plugin_view(out, why, sizeof why) != 0)
        return svc_error(ctx, "%s", why);
    return KLAB_OK;
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
    .stream = svc_stream,
    .seed = svc_seed,
    .fill_data = svc_fill_data,
    .sample_outputs = svc_sample_outputs,
    .parallel_for = svc_parallel_for,
    .device = svc_device,
};

klab_ctx *ctx_new(const char *label, uint64_t seed, int cc, klab_stream stream)
{
    klab_ctx *ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        return NULL;
    ctx->ptr = calloc(CTX_MAX_TENSORS, sizeof *ctx->ptr);
    ctx->alloc = calloc(CTX_MAX_TENSORS, sizeof *ctx->alloc);
    if (!ctx->ptr || !ctx->alloc) {
        free(ctx->ptr);
        free(ctx->alloc);
        free(ctx);
        return NULL;
    }
    snprintf(ctx->label, sizeof ctx->label, "%s", label);
    ctx->seed = seed;
    ctx->cc = cc;
    ctx->stream = stream;
    ctx->ncopies = 1;
    return ctx;
}

klab_ctx *ctx_new_on_host(const char *label, uint64_t seed, int cc)
{
    klab_ctx *ctx = ctx_new(label, seed, cc, NULL);
    if (ctx)
        ctx->on_host = 1;
    return ctx;
}

/* Frees copies [from, ncopies) of every tensor and forgets them. */
static void free_copies(klab_ctx *ctx, int from)
{
    for (int k = from; k < ctx->ncopies; k++)
        for (int i = 0; i < CTX_MAX_TENSORS; i++) {
            void **a = slot(ctx, ctx->alloc, k, i);
            if (*a && ctx->on_host)
                free(*a);
            else if (*a)
                cudaFree(*a);
            *a = NULL;
            *slot(ctx, ctx->ptr, k, i) = NULL;
        }
    ctx->ncopies = from > 1 ? from : 1;
}

void ctx_free(klab_ctx *ctx)
{
    if (!ctx)
        return;
    free_copies(ctx, 0);
    for (int i = 0; i < ctx->ntensors; i++) {
        free(ctx->tensors[i].data);
        if (ctx->tensors[i].pristine)
            cudaFree(ctx->tensors[i].pristine);
    }
    free(ctx->ptr);
    free(ctx->alloc);
    free(ctx);
}

const char *ctx_error(const klab_ctx *ctx, const char *fallback)
{
    return ctx && ctx->has_err ? ctx->err : fallback;
}

int ctx_seal(klab_ctx *ctx)
{
    ctx->sealed = 1;
    for (int i = 0; i < ctx->ntensors; i++) {
        ctx_tensor *t = &ctx->tensors[i];
        if (t->role != KLAB_STATE || t->pristine)
            continue;
        cudaError_t e = cudaMalloc(&t->pristine, t->bytes);
        if (e == cudaSuccess)
            e = cudaMemcpyAsync(t->pristine, ctx->ptr[i], t->bytes, cudaMemcpyDeviceToDevice, ctx->stream);
        if (cuda_ok(ctx, e, "keeping the initial contents of state", t->name) != 0) {
            cudaGetLastError();
            return -1;
        }
    }
    cudaError_t e = cudaStreamSynchronize(ctx->stream);
    if (e != cudaSuccess) {
        ctx_set_error(ctx, "CUDA error %d %s: %s", (int)e, cudaGetErrorName(e), cudaGetErrorString(e));
        return -1;
    }
    return 0;
}

int ctx_refill_inputs(klab_ctx *ctx)
{
    for (int i = 0; i < ctx->ntensors; i++)
        if (ctx->tensors[i].role == KLAB_INPUT && fill_all_copies(ctx, i) != 0)
            return -1;
    return 0;
}

int ctx_poison_outputs(klab_ctx *ctx, klab_stream stream, int copy)
{
    for (int i = 0; i < ctx->ntensors; i++)
        if (ctx->tensors[i].role == KLAB_OUTPUT && poison_one(ctx, &ctx->tensors[i], *slot(ctx, ctx->ptr, copy, i), stream) != 0)
            return -1;
    return 0;
}

int ctx_restore_states(klab_ctx *ctx, klab_stream stream, int copy)
{
    int k0 = copy < 0 ? 0 : copy, k1 = copy < 0 ? ctx->ncopies : copy + 1;
    for (int i = 0; i < ctx->ntensors; i++) {
        const ctx_tensor *t = &ctx->tensors[i];
        if (t->role != KLAB_STATE)
            continue;
        if (!t->pristine) {
            ctx_set_error(ctx, "restoring state '%s': its initial contents were never kept", t->name);
            return -1;
        }
        for (int k = k0; k < k1; k++) {
            void *dev = *slot(ctx, ctx->ptr, k, i);
            if (cuda_ok(ctx, cudaMemcpyAsync(dev, t->pristine, t->bytes, cudaMemcpyDeviceToDevice, stream),
                        "restoring state", t->name) != 0)
                return -1;
        }
    }
    return 0;
}

int ctx_replicate(klab_ctx *ctx, int n, double *footprint, char *err, size_t errlen)
{
    double per_copy = 0;
    for (int i = 0; i < ctx->ntensors; i++)
        per_copy += (double)ctx->tensors[i].bytes;
    *footprint = per_copy * (n > 0 ? n : 0);
    if (n < 1 || n > CTX_MAX_COPIES) {
        snprintf(err, errlen, "%d copies of the tensors asked for; 1 to %d can be made", n, CTX_MAX_COPIES);
        return -1;
    }
    if (n <= ctx->ncopies)
        return 0;
    size_t cells = (size_t)n * CTX_MAX_TENSORS, had = (size_t)ctx->ncopies * CTX_MAX_TENSORS;
    void **p = realloc(ctx->ptr, cells * sizeof *p);
    if (p)
        ctx->ptr = p;
    void **a = p ? realloc(ctx->alloc, cells * sizeof *a) : NULL;
    if (!a) {
        snprintf(err, errlen, "out of host memory for %d copies of the tensor table", n);
        return -1;
    }
    ctx->alloc = a;
    memset(ctx->ptr + had, 0, (cells - had) * sizeof *p);
    memset(ctx->alloc + had, 0, (cells - had) * sizeof *a);
    int from = ctx->ncopies, had_err = ctx->has_err;
    ctx->has_err = 0;
    ctx->ncopies = n;
    for (int k = from; k < n; k++)
        for (int i = 0; i < ctx->ntensors; i++) {
            const ctx_tensor *t = &ctx->tensors[i];
            void *dev = NULL;
            int rc = alloc_copy(ctx, i, k);
            if (rc == 0) {
                dev = *slot(ctx, ctx->ptr, k, i);
                const void *src = t->role == KLAB_STATE && t->pristine ? t->pristine : ctx->ptr[i];
                if (t->role == KLAB_INPUT || t->role == KLAB_STATE)
                    rc = cuda_ok(ctx, cudaMemcpyAsync(dev, src, t->bytes, cudaMemcpyDeviceToDevice, ctx->stream),
                                 "copying", t->name);
                else
                    rc = poison_one(ctx, t, dev, ctx->stream);
            }
            if (rc != 0) {
                snprintf(err, errlen, "%d copies of the tensors (%.1f MB): %s", n, *footprint / 1e6,
                         ctx_error(ctx, "failed"));
                cudaStreamSynchronize(ctx->stream);
                free_copies(ctx, from);
                ctx->has_err = had_err;
                return -1;
            }
        }
    ctx->has_err = had_err;
    cudaError_t e = cudaStreamSynchronize(ctx->stream);
    if (e != cudaSuccess) {
        snprintf(err, errlen, "making %d copies of the tensors: CUDA error %d %s", n, (int)e, cudaGetErrorString(e));
        return -1;
    }
    return 0;
}

int ctx_check_redzones(klab_ctx *ctx, char *msg, size_t msglen)
{
    size_t per = 2 * (size_t)REDZONE_BYTES, cells = (size_t)ctx->ncopies * (size_t)ctx->ntensors;
    unsigned char *host = cells ? malloc(cells * per) : NULL;
    if (cells && !host) {
        snprintf(msg, msglen, "out of host memory for the red zones");
        return -1;
    }
    cudaError_t e = cudaSuccess;
    for (int k = 0; k < ctx->ncopies && e == cudaSuccess; k++)
        for (int i = 0; i < ctx->ntensors && e == cudaSuccess; i++) {
            const unsigned char *base = *slot(ctx, ctx->alloc, k, i);
            unsigned char *h = host + ((size_t)k * (size_t)ctx->ntensors + (size_t)i) * per;
            e = cudaMemcpyAsync(h, base, REDZONE_BYTES, cudaMemcpyDeviceToHost, ctx->stream);
            if (e == cudaSuccess)
                e = cudaMemcpyAsync(h + REDZONE_BYTES, base + REDZONE_BYTES + ctx->tensors[i].bytes, REDZONE_BYTES,
                                    cudaMemcpyDeviceToHost, ctx->stream);
        }
    if (e == cudaSuccess)
        e = cudaStreamSynchronize(ctx->stream);
    if (e != cudaSuccess) {
        free(host);
        snprintf(msg, msglen, "reading the red zones back: CUDA error %d %s: %s", (int)e, cudaGetErrorName(e),
                 cudaGetErrorString(e));
        return -1;
    }
    int found = 0;
    for (int k = 0; k < ctx->ncopies; k++)
        for (int i = 0; i < ctx->ntensors; i++) {
            const ctx_tensor *t = &ctx->tensors[i];
            const unsigned char *h = host + ((size_t)k * (size_t)ctx->ntensors + (size_t)i) * per;
            char why[256];
            if (!redzone_check(h, h + REDZONE_BYTES, REDZONE_BYTES, ctx_role_name(t->role), t->name, k, why, sizeof why))
                continue;
            if (!found)
                snprintf(msg, msglen, "%s", why);
            found = 1;
            arm_guards(ctx, t, *slot(ctx, ctx->alloc, k, i));
        }
    free(host);
    if (found)
        cudaStreamSynchronize(ctx->stream);
    return found;
}
