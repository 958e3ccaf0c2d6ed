# The plugins' machine code (cuobjdump over the built .so; each test skips without it): 16-byte loads,
# no local memory, the tensor-core instructions the kernels are written for.

# klab_sass_test(PLUGIN KERNEL...): sass_check.sh over each named kernel of PLUGIN.so
function(klab_sass_test plugin)
  add_test(NAME sass_${plugin} COMMAND sh ${KLAB_TESTS_DIR}/sass/sass_check.sh $<TARGET_FILE:${plugin}> ${ARGN})
  set_tests_properties(sass_${plugin} PROPERTIES SKIP_RETURN_CODE 77 LABELS unit
                       ENVIRONMENT "KLAB_NVCC=${CMAKE_CUDA_COMPILER}")
endfunction()
# swiglu and reduction's fast kernels
klab_sass_test(swiglu ew_vec_kernel)
klab_sass_test(reduction partial_kernel sm_90a:cluster_kernel)

# the row-kernel skeleton's SASS: 16-byte loads and stores, no local memory
add_test(NAME sass_rows COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/sass_rows.sh ${PROJECT_BINARY_DIR})
set_tests_properties(sass_rows PROPERTIES LABELS unit SKIP_RETURN_CODE 77)

# matmul_h200: HGMMA and UTMALDG in every wgmma kernel, no local memory
add_test(NAME sass_matmul_h200 COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/sass_matmul_h200.sh $<TARGET_FILE:matmul_h200>)
set_tests_properties(sass_matmul_h200 PROPERTIES LABELS unit SKIP_RETURN_CODE 77
                     ENVIRONMENT "KLAB_NVCC=${CMAKE_CUDA_COMPILER}")

# fp8_gemm's quantisation kernels and fused_gated_mlp's element-wise one: 16-byte loads, no local memory
klab_sass_test(fp8_gemm amax2_kernel cast2_kernel block_kernel)
klab_sass_test(fused_gated_mlp ew_vec_kernel)
# the wgmma kernels (lib/hopper/hopper_gemm.cuh) of both: fp8 QGMMA, bf16 HGMMA, and tensor-copy loads
foreach(pair fp8_gemm:QGMMA fused_gated_mlp:HGMMA)
  string(REPLACE ":" ";" pair ${pair})
  list(GET pair 0 plugin)
  list(GET pair 1 mma)
  add_test(NAME sass_mma_${plugin}
           COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/sass_mma.sh $<TARGET_FILE:${plugin}> sm_90a gemm_kernel ${mma} UTMALDG)
  set_tests_properties(sass_mma_${plugin} PROPERTIES SKIP_RETURN_CODE 77 LABELS unit)
  # their epi=tma kernels (ScaledTmaStore, GatedTmaEpilogue) stage with stmatrix and store with TMA
  add_test(NAME sass_staged_${plugin}
           COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/sass_mma.sh $<TARGET_FILE:${plugin}> sm_90a gemm_kernel.*Tma[SE] STSM UTMASTG)
  set_tests_properties(sass_staged_${plugin} PROPERTIES SKIP_RETURN_CODE 77 LABELS unit)
endforeach()

# decode_replay's GEMV and attention: 16-byte loads, no local memory (no spills) in any architecture
klab_sass_test(decode_replay gemv_kernel gemv_pipe_kernel attn_kernel attn_fused_kernel)
