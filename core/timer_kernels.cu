#include "timer_kernels.h"

#include <cuda_runtime.h>

namespace {

__device__ __forceinline__ unsigned long long globaltimer_ns()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

__global__ void block_kernel(volatile int *release, volatile int *timed_out, unsigned long long timeout_ns)
{
    unsigned long long t0 = globaltimer_ns();
    while (*release == 0) {
        if (globaltimer_ns() - t0 > timeout_ns) {
            *timed_out = 1;
            break;
        }
#if __CUDA_ARCH__ >= 700
        __nanosleep(500); /* a read of host memory crosses PCIe: no need to ask every cycle */
#endif
    }
    __threadfence_system();
}

} // namespace

extern "C" int timer_block(volatile int *release, volatile int *timed_out, unsigned long long timeout_ns,
                           klab_stream s)
{
    block_kernel<<<1, 1, 0, s>>>(release, timed_out, timeout_ns);
    return (int)cudaGetLastError();
}
