#include "worker/copy_ref.h"

#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/gpu_kernels.h"

struct copy_ref {
    size_t n16;     /* 16-byte vectors copied a run */
    int ncopies;
    void **src, **dst; /* per copy */
    uint64_t seed, poisons;
};

static int cuda_fail(cudaError_t e, const char *what, char *err, size_t errlen)
{
    if (e == cudaSuccess)
        return 0;
    snprintf(err, errlen, "%s: CUDA error %d %s: %s", what, (int)e, cudaGetErrorName(e), cudaGetErrorString(e));
    return -1;
}

static int cr_launch(void *self, klab_stream s, int replica, int64_t step, char *err, size_t errlen)
{
    (void)step;
    copy_ref *c = self;
    return cuda_fail((cudaError_t)gpu_copy16(c->dst[replica], c->src[replica], c->n16, s), "klab's copy", err, errlen);
}

static int cr_poison(void *self, klab_stream s, int replica, char *err, size_t errlen)
{
    copy_ref *c = self;
    uint64_t seed = c->seed ^ (0x9e3779b97f4a7c15ull * ++c->poisons);
    return cuda_fail((cudaError_t)gpu_poison(KLAB_INT32, c->dst[replica], c->n16 * 4, seed, s), "poisoning klab's copy",
                     err, errlen);
}

static int cr_stage(void *self, klab_stream s, char *err, size_t errlen)
{
    (void)self;
    (void)s;
    return cuda_fail(cudaDeviceSynchronize(), "klab's copy", err, errlen);
}

/* Copy 0's destination against its source, read back a slice at a time. */
static int cr_check(void *self, char *err, size_t errlen)
{
    copy_ref *c = self;
    const size_t slice = (size_t)64 << 20, bytes = c->n16 * 16;
    unsigned char *a = malloc(slice), *b = malloc(slice);
    int rc = 0;
    if (!a || !b) {
        snprintf(err, errlen, "out of host memory to check klab's copy");
        rc = -1;
    }
    for (size_t at = 0; rc == 0 && at < bytes; at += slice) {
        size_t k = bytes - at < slice ? bytes - at : slice;
        if (cuda_fail(cudaMemcpy(a, (const char *)c->src[0] + at, k, cudaMemcpyDeviceToHost), "reading klab's copy", err, errlen) ||
            cuda_fail(cudaMemcpy(b, (const char *)c->dst[0] + at, k, cudaMemcpyDeviceToHost), "reading klab's copy", err, errlen)) {
            rc = -1;
            break;
        }
        if (memcmp(a, b, k) != 0) {
            size_t i = 0;
            while (a[i] == b[i])
                i++;
            snprintf(err, errlen, "klab's copy is wrong: byte %zu of %zu differs from its source", at + i, bytes);
            rc = 1;
        }
    }
    free(a);
    free(b);
    return rc;
}

/* Copies [from, ncopies) freed and forgotten. */
static void free_copies(copy_ref *c, int from)
{
    for (int k = from; k < c->ncopies; k++) {
        if (c->src[k])
            cudaFree(c->src[k]);
        if (c->dst[k])
            cudaFree(c->dst[k]);
        c->src[k] = c->dst[k] = NULL;
    }
    c->ncopies = from;
}

static int cr_replicate(void *self, int n, double *footprint, char *err, size_t errlen)
{
    copy_ref *c = self;
    *footprint = (double)n * 2 * (double)(c->n16 * 16);
    if (n <= c->ncopies)
        return 0;
    void **s = realloc(c->src, (size_t)n * sizeof *s);
    if (s)
        c->src = s;
    void **d = s ? realloc(c->dst, (size_t)n * sizeof *d) : NULL;
    if (!d) {
        snprintf(err, errlen, "out of host memory for %d copies", n);
        return -1;
    }
    c->dst = d;
    int from = c->ncopies;
    for (int k = from; k < n; k++)
        c->src[k] = c->dst[k] = NULL;
    c->ncopies = n;
    for (int k = from; k < n; k++) {
        cudaError_t e = cudaMalloc(&c->src[k], c->n16 * 16);
        if (e == cudaSuccess)
            e = cudaMalloc(&c->dst[k], c->n16 * 16);
        if (e == cudaSuccess)
            e = cudaMemcpy(c->src[k], c->src[0], c->n16 * 16, cudaMemcpyDeviceToDevice);
        if (e != cudaSuccess) {
            cudaGetLastError();
            cuda_fail(e, "copies of klab's copy", err, errlen);
            free_copies(c, from);
            return -1;
        }
    }
    return 0;
}

/* No stage or check: copy_ref_open verified the copy already, and a verified round would read all of
   its bytes back again (seconds at GB sizes) for the host's own kernel. */
const subject_ops copy_ref_ops = {cr_launch, cr_poison, NULL, NULL, cr_replicate, NULL};

void copy_ref_close(copy_ref *c)
{
    if (!c)
        return;
    free_copies(c, 0);
    free(c->src);
    free(c->dst);
    free(c);
}

copy_ref *copy_ref_open(double bytes, uint64_t seed, klab_stream s, char *err, size_t errlen)
{
    if (!(bytes > 0)) {
        snprintf(err, errlen, "no bytes to copy");
        return NULL;
    }
    copy_ref *c = calloc(1, sizeof *c);
    if (!c || !(c->src = calloc(1, sizeof *c->src)) || !(c->dst = calloc(1, sizeof *c->dst))) {
        snprintf(err, errlen, "out of memory");
        copy_ref_close(c);
        return NULL;
    }
    c->n16 = (size_t)ceil(bytes / 32); /* each vector is 16 bytes read and 16 written */
    c->seed = seed;
    c->ncopies = 1;
    cudaError_t e = cudaMalloc(&c->src[0], c->n16 * 16);
    if (e == cudaSuccess)
        e = cudaMalloc(&c->dst[0], c->n16 * 16);
    if (e == cudaSuccess) /* random bits, so a copy of the wrong bytes cannot look right */
        e = (cudaError_t)gpu_fill_uniform(KLAB_INT32, c->src[0], c->n16 * 4, seed, -2147483648.0, 2147483648.0, s);
    if (cuda_fail(e, "setting up klab's copy", err, errlen) || cr_poison(c, s, 0, err, errlen) ||
        cr_launch(c, s, 0, 0, err, errlen) || cr_stage(c, s, err, errlen) || cr_check(c, err, errlen)) {
        cudaGetLastError();
        copy_ref_close(c);
        return NULL;
    }
    return c;
}
