/* The host's fills and poison done on the CPU, for a context whose tensors live in host memory
 * (ctx_new_on_host): the CPU verify of a plugin's reference runs with no GPU. Not the device's values
 * (gpu_kernels.cu draws its own); the same rules: uniform in [lo, hi) from a seed, integers whole. */
#ifndef KLAB_HOST_FILL_H
#define KLAB_HOST_FILL_H

#include <stddef.h>
#include <stdint.h>

#include "klab/plugin.h"

/* n elements of dtype d, uniform in [lo, hi) from `seed` (integers: whole numbers in [ceil lo, ceil hi)),
   rounded to the dtype to nearest even. */
void host_fill_uniform(klab_dtype d, void *ptr, size_t n, uint64_t seed, double lo, double hi);

/* n elements of dtype d that no right output holds: NaN, or for integers a byte pattern. */
void host_poison(klab_dtype d, void *ptr, size_t n);

#endif
