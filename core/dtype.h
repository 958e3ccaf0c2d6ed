/* Element types on the host side: names, sizes and widening to double. */
#ifndef KLAB_DTYPE_H
#define KLAB_DTYPE_H

#include <stddef.h>
#include <stdint.h>

#include "klab/plugin.h"

/* "fp32", "fp16", "bf16"; "?" for anything else. */
const char *dtype_name(klab_dtype d);

/* Accepts the names above (and "float32", "float16", "bfloat16"); returns -1 when unknown. */
int dtype_parse(const char *s);

size_t dtype_size(klab_dtype d);

/* Widen `n` elements of raw device bytes to double. */
void dtype_to_double(klab_dtype d, const void *src, double *dst, size_t n);

/* One element, for the streaming comparison. */
double dtype_load(klab_dtype d, const void *src, size_t i);

#endif
