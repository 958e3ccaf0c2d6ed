/* The device's datasheet ceilings, and the checks that keep an impossible figure out of a decision.
 * "Fraction of limit" is measured against klab's own copy at the same bytes (see results.c); these
 * datasheet figures only bound what any kernel could do. */
#ifndef KLAB_ROOFLINE_H
#define KLAB_ROOFLINE_H

#include <stddef.h>

#include "host/device_info.h"
#include "klab/plugin.h"

typedef struct roofline {
    double mem_gbps;      /* 2 transfers a memory clock x bus width: 4.9 TB/s on an H200 */
    double tensor_tflops; /* the arithmetic peak figures are checked against: after
                             roofline_from_device, the dense fp16 tensor-core peak at the peak SM
                             clock; after roofline_for_dtype, that dtype's (0: none) */
    double dtype_tflops[KLAB_DTYPE_COUNT]; /* each dtype's peak, 0 where no tensor core does it */
} roofline;

void roofline_from_device(const device_info *d, roofline *out);

/* The roofline a row of dtype `d` is judged by: tensor_tflops set to that dtype's peak. fp32, fp16
   and bf16 use the dense fp16 tensor peak (a tf32 GEMM's fp32 output is not told apart); fp8 twice
   that where fp8 tensor cores exist (cc 8.9 and newer); integers have none (0: no arithmetic check). */
roofline roofline_for_dtype(const roofline *r, klab_dtype d);

/* 1 (with the reason in `why`) when a cold-L2 figure is above the datasheet: an error in the
   plugin's byte count, data served from a cache that survived the flush, or a broken timer. */
int roofline_exceeds(const roofline *r, double gbps, double tflops, char *why, size_t whylen);

#endif
