/* A kernel launch's configuration (cudaLaunchKernelEx) with the attributes klab's kernels ask for: a
 * thread-block cluster and programmatic stream serialization (PDL). The caller says which:
 *     LaunchConfig lc(grid, block, smem, stream);
 *     if (splits > 1) lc.cluster(dim3(1, splits, 1));
 *     lc.pdl(pdl);
 *     return cudaLaunchKernelEx(&lc.cfg, kernel, args...);
 * Each of cluster() and pdl() at most once. cfg points into the object's own attribute array, so it is
 * neither copied nor moved: keep it alive until the launch (or the occupancy query) that reads it. Host
 * code; one copy instead of a hand-filled cudaLaunchAttribute array a launch site. */
#ifndef KLAB_CUDA_LAUNCH_CONFIG_CUH
#define KLAB_CUDA_LAUNCH_CONFIG_CUH

#include <cuda_runtime.h>

struct LaunchConfig {
    cudaLaunchConfig_t cfg;
    cudaLaunchAttribute at[2];

    LaunchConfig(dim3 grid, dim3 block, size_t smem, cudaStream_t stream) : cfg(), at()
    {
        cfg.gridDim = grid;
        cfg.blockDim = block;
        cfg.dynamicSmemBytes = smem;
        cfg.stream = stream;
        cfg.attrs = at;
        cfg.numAttrs = 0;
    }
    LaunchConfig(const LaunchConfig &) = delete;
    LaunchConfig &operator=(const LaunchConfig &) = delete;

    /* clusters of c (the grid a multiple of it); a cluster of one is still an explicit cluster */
    LaunchConfig &cluster(dim3 c)
    {
        cudaLaunchAttribute &a = at[cfg.numAttrs++];
        a.id = cudaLaunchAttributeClusterDimension;
        a.val.clusterDim.x = c.x;
        a.val.clusterDim.y = c.y;
        a.val.clusterDim.z = c.z;
        return *this;
    }
    /* programmatic stream serialization: the kernel may start before its predecessor ends (pdl.cuh) */
    LaunchConfig &pdl(bool on)
    {
        if (on) {
            cudaLaunchAttribute &a = at[cfg.numAttrs++];
            a.id = cudaLaunchAttributeProgrammaticStreamSerialization;
            a.val.programmaticStreamSerializationAllowed = 1;
        }
        return *this;
    }
};

#endif
