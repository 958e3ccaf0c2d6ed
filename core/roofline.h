/* The device's datasheet ceilings, and the checks that keep an impossible figure out of a decision.
 * "Fraction of limit" is measured against klab's own copy at the same bytes (see runner); these
 * datasheet figures only bound what any kernel could do. */
#ifndef KLAB_ROOFLINE_H
#define KLAB_ROOFLINE_H

#include <stddef.h>

#include "device_info.h"

typedef struct roofline {
    double mem_gbps;      /* 2 transfers a memory clock x bus width: 4.9 TB/s on an H200 */
    double tensor_tflops; /* dense fp16 tensor-core peak at the peak SM clock: the fastest any float
                             arithmetic the lab's dtypes do can run */
} roofline;

void roofline_from_device(const device_info *d, roofline *out);

/* 1 (with the reason in `why`) when a cold-L2 figure is above the datasheet: an error in the
   plugin's byte count, data served from a cache that survived the flush, or a broken timer. */
int roofline_exceeds(const roofline *r, double gbps, double tflops, char *why, size_t whylen);

#endif
