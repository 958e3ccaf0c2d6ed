/* A kernel's function attribute (its dynamic shared memory past 48 KB, a non-portable cluster size), asked
 * of the runtime once a process for each kernel and attribute: the first launch of an instantiation sets
 * it, later launches skip the call. A plain static flag is enough because klab runs one worker thread a
 * plugin and one device a worker process (docs/architecture.md); the call enqueues nothing, so
 * it is legal while a graph is captured. */
#ifndef KLAB_CUDA_FUNC_ATTR_CUH
#define KLAB_CUDA_FUNC_ATTR_CUH

#include <cuda_runtime.h>

template <auto Kernel, cudaFuncAttribute Attr> inline cudaError_t func_attr_once(int value)
{
    static bool set;
    if (set)
        return cudaSuccess;
    const cudaError_t e = cudaFuncSetAttribute(Kernel, Attr, value);
    set = e == cudaSuccess;
    return e;
}

#endif
