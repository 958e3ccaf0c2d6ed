# GPU tests: real kernels on a real device, through the klab binary. Skipped (exit 77, with the
# reason) where there is no GPU; tools/gpu-run.sh runs them on the GPU machine.
set(KLAB_GPU_TEST_PLUGINS gpu_oob gpu_hang gpu_future gpu_escape gpu_cheats)
foreach(p ${KLAB_GPU_TEST_PLUGINS})
  klab_add_plugin(${p} SOURCES plugins/gpu/${p}.cu)
endforeach()
target_link_libraries(gpu_escape PRIVATE CUDA::cublas)

klab_test(test_gpu SOURCES test_gpu.c klab_run.c GPU)
add_dependencies(test_gpu klab vector_add rmsnorm ${KLAB_GPU_TEST_PLUGINS} ${KLAB_ABI2_PLUGINS})
set_tests_properties(test_gpu PROPERTIES TIMEOUT 600)
