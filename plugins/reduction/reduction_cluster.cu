/* The cluster reduction (sm_90): the `cluster` blocks of a thread-block cluster each reduce their
 * tiles, then block 0 of the cluster reads the others' partials straight from their shared memory
 * (distributed shared memory, cluster.map_shared_rank) and combines them in one warp. A row with one
 * cluster writes out directly; otherwise each cluster's block 0 writes a partial and the one that
 * takes the row's last ticket finishes, as last_block does, with `cluster` times fewer partials and
 * tickets. One launch. Built only for sm_90 and later (the profile's archs are {90}); older targets
 * get a kernel that traps. */
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include "klab/cuda.h"
#include "reduction.h"
#include "reduction_block.cuh"
#include "cuda/launch_config.cuh"

namespace cg = cooperative_groups;

namespace {

template <typename T, int OP>
__global__ void __launch_bounds__(RD_THREADS)
    cluster_kernel(const T *__restrict__ x, size_t cols, unsigned splits, unsigned groups, float *__restrict__ out,
                   float *__restrict__ partial, unsigned *__restrict__ tickets)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    __shared__ float scratch[RD_THREADS / 32];
    __shared__ float mine;
    __shared__ bool last;
    cg::cluster_group cluster = cg::this_cluster();
    const unsigned row = blockIdx.x / splits, j = blockIdx.x - row * splits;
    const float v = rd_block<OP>(rd_thread_partial<T, OP>(x + (size_t)row * cols, cols, j, splits), scratch);
    if (threadIdx.x == 0)
        mine = v;
    cluster.sync(); /* every block's partial is in its shared memory */
    const unsigned rank = cluster.block_rank(), size = cluster.num_blocks();
    float c = rd_identity<OP>();
    if (rank == 0 && threadIdx.x < 32)
        c = rd_warp<OP>(threadIdx.x < size ? *cluster.map_shared_rank(&mine, threadIdx.x) : rd_identity<OP>());
    cluster.sync(); /* no block leaves, taking its shared memory along, before block 0 has read it */
    if (rank != 0)
        return;
    if (groups == 1) {
        if (threadIdx.x == 0)
            out[row] = c;
        return;
    }
    float *parts = partial + (size_t)row * groups;
    if (threadIdx.x == 0)
        parts[j / size] = c;
    if (!rd_take_ticket(tickets + row, groups, &last))
        return;
    const float f = rd_finish<OP>(parts, groups, scratch);
    if (threadIdx.x == 0)
        out[row] = f;
    rd_release(tickets + row);
#else
    (void)x, (void)cols, (void)splits, (void)groups, (void)out, (void)partial, (void)tickets;
    __trap();
#endif
}

template <typename T, int OP>
int launch(const reduction_plan *p, const T *x, float *out, float *partial, unsigned *tickets, cudaStream_t s)
{
    LaunchConfig lc(dim3((unsigned)(p->rows * (size_t)p->splits)), dim3(RD_THREADS), 0, s);
    lc.cluster(dim3((unsigned)p->cluster));
    return (int)cudaLaunchKernelEx(&lc.cfg, cluster_kernel<T, OP>, x, p->cols, (unsigned)p->splits,
                                   (unsigned)p->groups, out, partial, tickets);
}

} // namespace

extern "C" int reduction_cluster_launch(int op, klab_dtype d, const reduction_plan *p, const void *x, float *out,
                                        float *partial, unsigned *tickets, klab_stream s)
{
    KLAB_DISPATCH_FLOAT(d, T, {
        if (op == RD_MAX)
            return launch<T, RD_MAX>(p, (const T *)x, out, partial, tickets, s);
        return launch<T, RD_SUM>(p, (const T *)x, out, partial, tickets, s);
    });
    return (int)cudaErrorInvalidValue;
}
