/* The host's own kernels: random fill, poison, copy (the bandwidth ceiling), L2 flush, clock stamps,
 * a spin of known length, an empty launch, the timer's blocking kernel. C linkage; each returns the launch's cudaError_t as int
 * (0 = success). */
#ifndef KLAB_GPU_KERNELS_H
#define KLAB_GPU_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include "klab/plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Uniform values in [lo, hi) from a counter-based hash of (seed, index): the same seed gives the same
   tensor on any launch shape, so a row's seed reproduces its inputs. Float dtypes take the float
   value rounded to the dtype (fp8 to nearest, saturating); integer dtypes whole numbers in
   [ceil(lo), ceil(hi)). */
int gpu_fill_uniform(klab_dtype d, void *ptr, size_t n, uint64_t seed, double lo, double hi,
                     klab_stream s);

/* Overwrites n elements with a pattern no kernel can predict, different for every seed: for float
   dtypes about half NaNs and half random finite values of any magnitude, for integers random bits. */
int gpu_poison(klab_dtype d, void *ptr, size_t n, uint64_t seed, klab_stream s);

/* klab's copy, the bandwidth ceiling every memory-bound row is measured against: n16 16-byte vectors
   from src to dst (both 16-byte aligned), every load of a thread issued before its first store, in
   blocks sized by length (4 KiB a block past 32 MiB, else 16 KiB: the faster on an H200), grid-stride. */
int gpu_copy16(void *dst, const void *src, size_t n16, klab_stream s);

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

/* One thread that spins until the host writes non-zero to *release (host-mapped memory), so that
   everything the host enqueues behind it meanwhile waits, queued, and then runs back to back with no
   host in between (nvbench's blocking_kernel). It gives up after timeout_ns of %globaltimer and then
   writes 1 to *timed_out (host-mapped too): a host that could not enqueue in time (the launch queue
   was full, the host was descheduled) costs a discarded sample, never a GPU held forever. */
int gpu_block(volatile int *release, volatile int *timed_out, unsigned long long timeout_ns, klab_stream s);

#ifdef __cplusplus
}
#endif

#endif
