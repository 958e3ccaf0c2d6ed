/* fp8_gemm's case shape: pure C, what the CPU tests check. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fp8_gemm.h"

int fp8_gemm_shape_of(const klab_case *k, fp8_gemm_shape *s, char *why, size_t whylen)
{
    static const char *const names[3] = {"m", "n", "k"};
    int64_t v[3];
    for (int i = 0; i < 3; i++) {
        v[i] = klab_case_dim(k, names[i], -1);
        if (v[i] < 1 || v[i] > INT32_MAX) {
            if (v[i] == -1)
                snprintf(why, whylen, "case '%s': dim.%s is not set (fp8_gemm takes dim.m, dim.n and dim.k)", k->name,
                         names[i]);
            else
                snprintf(why, whylen, "case '%s': dim.%s is %lld; it must be from 1 to %d", k->name, names[i],
                         (long long)v[i], INT32_MAX);
            return -1;
        }
    }
    if (v[2] % 16 != 0) {
        snprintf(why, whylen,
                 "case '%s': dim.k is %lld; it must be a multiple of 16 (fp8 rows of whole 16-byte vectors, as cuBLASLt's "
                 "fp8 kernels need)",
                 k->name, (long long)v[2]);
        return -1;
    }
    s->m = v[0];
    s->n = v[1];
    s->k = v[2];
    const char *fa = klab_case_param(k, "fast_accum");
    if (fa && strcmp(fa, "0") && strcmp(fa, "1")) {
        snprintf(why, whylen, "case '%s': param.fast_accum is '%s'; it must be 0 or 1", k->name, fa);
        return -1;
    }
    s->fast_accum = !fa || strcmp(fa, "1") == 0;
    return 0;
}
