/* cuBLASLt TN GEMMs, bf16 or fp8 e4m3 in, bf16 out (gemm_lt.h). */
#include "gemm/gemm_lt.h"

#include <cublasLt.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

/* cuBLASLt's recommendation for Hopper: 32 MiB lets every algorithm run, split-K ones included */
#define GEMM_LT_WORKSPACE ((size_t)32 << 20)

struct gemm_lt {
    cublasLtHandle_t h;
    void *ws;
};

struct gemm_lt_plan {
    gemm_lt_shape sh;
    cublasLtMatmulDesc_t op;
    cublasLtMatrixLayout_t a, b, d; /* cuBLASLt's A = W, B = X, D */
    cublasLtMatmulAlgo_t algo;
};

static int lt_ok(cublasStatus_t st, const char *what, char *why, size_t whylen)
{
    if (st == CUBLAS_STATUS_SUCCESS)
        return 0;
    snprintf(why, whylen, "cuBLASLt %s: status %d (%s)", what, (int)st, cublasLtGetStatusString(st));
    return -1;
}

int gemm_lt_open(gemm_lt **out, char *why, size_t whylen)
{
    gemm_lt *g = calloc(1, sizeof *g);
    if (!g) {
        snprintf(why, whylen, "out of host memory");
        return -1;
    }
    if (lt_ok(cublasLtCreate(&g->h), "create", why, whylen) != 0) {
        free(g);
        return -1;
    }
    cudaError_t e = cudaMalloc(&g->ws, GEMM_LT_WORKSPACE);
    if (e != cudaSuccess) {
        snprintf(why, whylen, "cuBLASLt workspace of %zu bytes: CUDA error %d %s", GEMM_LT_WORKSPACE, (int)e,
                 cudaGetErrorString(e));
        cublasLtDestroy(g->h);
        free(g);
        return -1;
    }
    *out = g;
    return 0;
}

void gemm_lt_close(gemm_lt *g)
{
    if (!g)
        return;
    cudaFree(g->ws);
    cublasLtDestroy(g->h);
    free(g);
}

void gemm_lt_plan_free(gemm_lt_plan *p)
{
    if (!p)
        return;
    if (p->d)
        cublasLtMatrixLayoutDestroy(p->d);
    if (p->b)
        cublasLtMatrixLayoutDestroy(p->b);
    if (p->a)
        cublasLtMatrixLayoutDestroy(p->a);
    if (p->op)
        cublasLtMatmulDescDestroy(p->op);
    free(p);
}

static int set_attr(gemm_lt_plan *p, cublasLtMatmulDescAttributes_t attr, const void *v, size_t size, char *why,
                    size_t whylen)
{
    return lt_ok(cublasLtMatmulDescSetAttribute(p->op, attr, v, size), "set a descriptor attribute", why, whylen);
}

static int describe(gemm_lt_plan *p, char *why, size_t whylen)
{
    const gemm_lt_shape *sh = &p->sh;
    const cudaDataType_t in = sh->in == GEMM_LT_E4M3 ? CUDA_R_8F_E4M3 : CUDA_R_16BF;
    const cublasOperation_t t = CUBLAS_OP_T, n = CUBLAS_OP_N;
    if (lt_ok(cublasLtMatmulDescCreate(&p->op, CUBLAS_COMPUTE_32F, CUDA_R_32F), "descriptor", why, whylen) != 0 ||
        set_attr(p, CUBLASLT_MATMUL_DESC_TRANSA, &t, sizeof t, why, whylen) != 0 ||
        set_attr(p, CUBLASLT_MATMUL_DESC_TRANSB, &n, sizeof n, why, whylen) != 0)
        return -1;
    if (sh->in == GEMM_LT_E4M3) {
        int32_t mode_w = sh->scaling == GEMM_LT_BLOCK ? CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F
                                                      : CUBLASLT_MATMUL_MATRIX_SCALE_SCALAR_32F;
        int32_t mode_x = sh->scaling == GEMM_LT_BLOCK ? CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F
                                                      : CUBLASLT_MATMUL_MATRIX_SCALE_SCALAR_32F;
        int8_t fast = sh->scaling == GEMM_LT_TENSOR && sh->fast_accum ? 1 : 0;
        if (set_attr(p, CUBLASLT_MATMUL_DESC_A_SCALE_MODE, &mode_w, sizeof mode_w, why, whylen) != 0 ||
            set_attr(p, CUBLASLT_MATMUL_DESC_B_SCALE_MODE, &mode_x, sizeof mode_x, why, whylen) != 0 ||
            set_attr(p, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &fast, sizeof fast, why, whylen) != 0)
            return -1;
    }
    /* column-major: A = W stored k x n (ld k), B = X stored k x m (ld k), D stored n x m (ld n) */
    if (lt_ok(cublasLtMatrixLayoutCreate(&p->a, in, (uint64_t)sh->k, (uint64_t)sh->n, sh->k), "layout of W", why,
              whylen) != 0 ||
        lt_ok(cublasLtMatrixLayoutCreate(&p->b, in, (uint64_t)sh->k, (uint64_t)sh->m, sh->k), "layout of X", why,
              whylen) != 0 ||
        lt_ok(cublasLtMatrixLayoutCreate(&p->d, CUDA_R_16BF, (uint64_t)sh->n, (uint64_t)sh->m, sh->n), "layout of D",
              why, whylen) != 0)
        return -1;
    return 0;
}

/* The scale pointers of one run (cuBLASLt's A is W, its B is X). */
static int set_scales(gemm_lt_plan *p, const float *xs, const float *ws, char *why, size_t whylen)
{
    if (p->sh.in != GEMM_LT_E4M3)
        return 0;
    if (!xs || !ws) {
        snprintf(why, whylen, "cuBLASLt fp8 GEMM without its scale tensors");
        return -1;
    }
    if (set_attr(p, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &ws, sizeof ws, why, whylen) != 0 ||
        set_attr(p, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &xs, sizeof xs, why, whylen) != 0)
        return -1;
    return 0;
}

int gemm_lt_plan_make(gemm_lt *g, const gemm_lt_shape *sh, const float *xs, const float *ws, gemm_lt_plan **out,
                      char *why, size_t whylen)
{
    gemm_lt_plan *p = calloc(1, sizeof *p);
    if (!p) {
        snprintf(why, whylen, "out of host memory");
        return -1;
    }
    p->sh = *sh;
    if (describe(p, why, whylen) != 0 || set_scales(p, xs, ws, why, whylen) != 0) {
        gemm_lt_plan_free(p);
        return -1;
    }
    cublasLtMatmulPreference_t pref = NULL;
    size_t room = GEMM_LT_WORKSPACE;
    cublasLtMatmulHeuristicResult_t res;
    int found = 0;
    int rc = lt_ok(cublasLtMatmulPreferenceCreate(&pref), "preference", why, whylen);
    if (rc == 0)
        rc = lt_ok(
            cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &room, sizeof room),
            "workspace preference", why, whylen);
    if (rc == 0) {
        cublasStatus_t st = cublasLtMatmulAlgoGetHeuristic(g->h, p->op, p->a, p->b, p->d, p->d, pref, 1, &res, &found);
        /* NOT_SUPPORTED: no kernel for this type, scaling or layout on this device, a skip, not an error */
        if (st == CUBLAS_STATUS_NOT_SUPPORTED || (st == CUBLAS_STATUS_SUCCESS && found == 0)) {
            snprintf(why, whylen, "cuBLASLt has no algorithm for %s%s %lldx%lldx%lld (TN, bf16 out) on this device",
                     sh->in == GEMM_LT_E4M3 ? "fp8 e4m3" : "bf16",
                     sh->in != GEMM_LT_E4M3 ? "" : sh->scaling == GEMM_LT_BLOCK ? " with 1x128/128x128 block scales"
                                                                                : " with per-tensor scales",
                     (long long)sh->m, (long long)sh->n, (long long)sh->k);
            rc = 1;
        } else
            rc = lt_ok(st, "heuristic", why, whylen);
    }
    if (pref)
        cublasLtMatmulPreferenceDestroy(pref);
    if (rc != 0) {
        gemm_lt_plan_free(p);
        return rc;
    }
    p->algo = res.algo;
    *out = p;
    return 0;
}

int gemm_lt_run(gemm_lt *g, gemm_lt_plan *p, const void *x, const void *w, const float *xs, const float *ws, void *d,
                klab_stream s, char *why, size_t whylen)
{
    if (set_scales(p, xs, ws, why, whylen) != 0)
        return -1;
    const float one = 1.0f, zero = 0.0f;
    return lt_ok(cublasLtMatmul(g->h, p->op, &one, w, p->a, x, p->b, &zero, d, p->d, d, p->d, &p->algo, g->ws,
                                GEMM_LT_WORKSPACE, (cudaStream_t)s),
                 "matmul", why, whylen);
}
