/* Sampled verification's element indices: which elements of an output a verified run compares when
 * the plugin asked for a sample (host->sample_outputs). Pure C, tested without a GPU. */
#ifndef KLAB_SAMPLE_H
#define KLAB_SAMPLE_H

#include <stddef.h>
#include <stdint.h>

/* k distinct indices of [0, n), ascending, into out[0..k): a pure function of (seed, counter), so a
   run's seed reproduces every sample, and a new counter (each verified run takes the next) gives
   fresh ones. k >= n gives every index. 0, or -1 when out of memory. */
int sample_indices(uint64_t seed, uint64_t counter, size_t n, size_t k, size_t *out);

#endif
