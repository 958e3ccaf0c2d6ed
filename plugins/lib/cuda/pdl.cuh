/* Programmatic dependent launch from the device side (sm_90 and up; nothing elsewhere, where a launch
 * cannot ask for it):
 *   pdl_wait()     griddepcontrol.wait: blocks until the grids this one depends on have completed and
 *                  their memory is visible. Before reading anything an earlier kernel wrote.
 *   pdl_trigger()  griddepcontrol.launch_dependents: the dependent grid may launch once every CTA of
 *                  this one has triggered or exited.
 * Shared by decode_replay's step kernels and hopper_stream.cuh. */
#ifndef KLAB_CUDA_PDL_CUH
#define KLAB_CUDA_PDL_CUH

__device__ __forceinline__ void pdl_wait()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

__device__ __forceinline__ void pdl_trigger()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

#endif
