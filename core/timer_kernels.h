/* The timer's own device kernels beyond gpu_kernels.h. C linkage; each returns the launch's
 * cudaError_t as int (0 = success). */
#ifndef KLAB_TIMER_KERNELS_H
#define KLAB_TIMER_KERNELS_H

#include "klab/plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One thread that spins until the host writes non-zero to *release (host-mapped memory), so that
   everything the host enqueues behind it meanwhile waits, queued, and then runs back to back with no
   host in between (nvbench's blocking_kernel). It gives up after timeout_ns of %globaltimer and then
   writes 1 to *timed_out (host-mapped too): a host that could not enqueue in time (the launch queue
   was full, the host was descheduled) costs a discarded sample, never a GPU held forever. */
int timer_block(volatile int *release, volatile int *timed_out, unsigned long long timeout_ns,
                klab_stream s);

#ifdef __cplusplus
}
#endif

#endif
