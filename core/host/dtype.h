/* Element types on the host side: names, classes and widening to double. An element's size is
 * klab_dtype_size() from klab/plugin.h: the ABI says it once. */
#ifndef KLAB_DTYPE_H
#define KLAB_DTYPE_H

#include <stddef.h>
#include <stdint.h>

#include "klab/plugin.h"

/* "fp32", "fp16", "bf16", "fp8e4m3", "fp8e5m2", "int32", "int64"; "?" for anything else. At most 7
   characters: a row's dtype column holds no more. */
const char *dtype_name(klab_dtype d);

/* The names an error lists when it refuses a dtype. */
#define DTYPE_KNOWN "fp32, fp16, bf16, fp8e4m3, fp8e5m2, int32, int64"

/* Accepts the names above, and "float32", "float16", "bfloat16", "fp8_e4m3", "float8_e4m3fn",
   "fp8_e5m2", "float8_e5m2" (any case); returns -1 when unknown. */
int dtype_parse(const char *s);

/* 1 for int32 and int64: compared exactly, filled with whole numbers, poisoned with random bits. */
int dtype_is_integer(klab_dtype d);

/* Widen `n` elements of raw device bytes to double. Exact for every dtype but int64 beyond 2^53. */
void dtype_to_double(klab_dtype d, const void *src, double *dst, size_t n);

/* One element, for the streaming comparison. */
double dtype_load(klab_dtype d, const void *src, size_t i);

#endif
