/* The split-phase cluster barrier and the DSMEM address of a rank, for kernels that sum a cluster's partial
 * results (matmul_h200's skinny v1/v2, hopper_stream.cuh's weight stream into rank 0; decode_replay's
 * cluster attention, every rank a slice):
 *   cl::arrive_relaxed()  at a CTA's start: "this CTA has started" (nothing to publish yet)
 *   cl::wait()            before the first DSMEM store: every CTA has started, so rank 0's shared memory
 *                         exists; again in rank 0 after the second arrival, with acquire
 *   cl::arrive_release()  after the DSMEM stores: orders them before the arrival
 *   cl::at(p, r)          rank r's copy of this CTA's shared address p, as a generic address
 *   cl::rank0(p)          cl::at(p, 0)
 * sm_90 and up (clusters); the kernels that use them trap elsewhere. */
#ifndef KLAB_CUDA_CLUSTER_BARRIER_CUH
#define KLAB_CUDA_CLUSTER_BARRIER_CUH

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
namespace cl {

__device__ __forceinline__ void arrive_relaxed() { asm volatile("barrier.cluster.arrive.relaxed.aligned;"); }
__device__ __forceinline__ void arrive_release() { asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory"); }
__device__ __forceinline__ void wait() { asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory"); }

__device__ __forceinline__ float *at(float *p, int rank)
{
    unsigned long long r;
    asm volatile("mapa.u64 %0, %1, %2;" : "=l"(r) : "l"(p), "r"(rank));
    return (float *)r;
}
__device__ __forceinline__ float *rank0(float *p) { return at(p, 0); }

} // namespace cl
#endif

#endif
