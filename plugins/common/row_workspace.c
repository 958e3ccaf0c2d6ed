/* The split plans' workspace (row_split.cuh): the plugin's own device memory, not a host tensor (the
 * host poisons scratch tensors once, and the counters must start at zero; every launch leaves them so). */
#include "row_workspace.h"

#include <cuda_runtime.h>

klab_status row_workspace_make(const klab_host *host, klab_ctx *ctx, const row_shape *s, void **ws)
{
    size_t bytes = row_plan_split_bytes(s);
    *ws = NULL;
    if (!bytes)
        return KLAB_OK;
    cudaError_t e = cudaMalloc(ws, bytes);
    if (e == cudaSuccess)
        e = cudaMemsetAsync(*ws, 0, bytes, (cudaStream_t)host->stream(ctx));
    if (e != cudaSuccess) {
        cudaFree(*ws);
        *ws = NULL;
        return host->error(ctx, "the split plans' workspace (%zu bytes): CUDA error %d %s", bytes, (int)e,
                           cudaGetErrorString(e));
    }
    return KLAB_OK;
}

void row_workspace_free(void *ws)
{
    cudaFree(ws);
}
