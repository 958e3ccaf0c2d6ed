/* The host's own kernels: random fill, L2 flush, clock stamps, a spin of known length, an empty
 * launch. C linkage; each returns the launch's cudaError_t as int (0 = success). */
#ifndef KLAB_GPU_KERNELS_H
#define KLAB_GPU_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include "klab/plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Uniform values in [lo, hi) from a counter-based hash of (seed, index): the same seed gives the same
   tensor on any launch shape, so a row's seed reproduces its inputs. */
int gpu_fill_uniform(klab_dtype d, void *ptr, size_t n, uint64_t seed, double lo, double hi,
                     klab_stream s);

/* Reads `bytes` of `buf` (16-byte aligned, a multiple of 16) and writes nothing but, under a
   condition that never holds, one word of `sink`: it evicts L2 and leaves only clean lines. */
int gpu_flush_read(const void *buf, size_t bytes, unsigned long long *sink, klab_stream s);

/* One block per SM; the block that lands on SM 0 writes {%globaltimer, clock64} to slot[0..1]. Two
   stamps from the same SM give its average clock in between (clock64 is per SM). */
int gpu_stamp_sm0(unsigned long long *slot, int sms, klab_stream s);

/* One thread writes %globaltimer to *slot. */
int gpu_stamp_time(unsigned long long *slot, klab_stream s);

/* Spins until %globaltimer has advanced `ns`; writes the span it measured to *measured_ns. */
int gpu_spin_ns(unsigned long long ns, unsigned long long *measured_ns, klab_stream s);

int gpu_empty(klab_stream s);

#ifdef __cplusplus
}
#endif

#endif
