# GPU tests: real kernels on a real device, through the klab binary. Skipped (exit 77, with the
# reason) where there is no GPU; tools/gpu-run.sh runs them on the GPU machine.
set(KLAB_GPU_TEST_PLUGINS gpu_oob gpu_hang gpu_future gpu_escape gpu_cheats)
foreach(p ${KLAB_GPU_TEST_PLUGINS})
  klab_add_plugin(${p} SOURCES plugins/gpu/${p}.cu)
endforeach()
target_link_libraries(gpu_escape PRIVATE CUDA::cublas)

klab_test(test_gpu SOURCES test_gpu.c klab_gpu.c klab_run.c GPU)
add_dependencies(test_gpu klab vector_add rmsnorm ${KLAB_GPU_TEST_PLUGINS} ${KLAB_ABI2_PLUGINS})
set_tests_properties(test_gpu PROPERTIES TIMEOUT 600)

# Timer 2's GPU tests (batched, hot and step timing; the blind spots) and their test plugins, written
# for plugin ABI 2: built only once plugin.h speaks it (until branch abi is merged, it does not).
file(STRINGS ${PROJECT_SOURCE_DIR}/plugin-sdk/include/klab/plugin.h KLAB_ABI_MAJOR_LINE
     REGEX "^#define KLAB_ABI_MAJOR [0-9]+")
if(KLAB_ABI_MAJOR_LINE MATCHES "KLAB_ABI_MAJOR 2$")
  set(KLAB_TIMER_TEST_PLUGINS timer_twice timer_escape timer_steps)
  foreach(p ${KLAB_TIMER_TEST_PLUGINS})
    klab_add_plugin(${p} SOURCES plugins/timer/${p}.cu)
  endforeach()
  klab_test(test_gpu_timing SOURCES test_gpu_timing.c klab_gpu.c klab_run.c GPU)
  add_dependencies(test_gpu_timing klab ${KLAB_TIMER_TEST_PLUGINS})
  set_tests_properties(test_gpu_timing PROPERTIES TIMEOUT 600)
else()
  message(STATUS "test_gpu_timing: not built: its test plugins need plugin ABI 2 (${KLAB_ABI_MAJOR_LINE})")
endif()

# swiglu and reduction on small odd shapes (tests/gpu_ini/swiglu.ini, reduction.ini): every profile
# verified in every dtype, plain and batched; an odd packed width refused
klab_test(test_gpu_swired SOURCES test_gpu_swired.c klab_gpu.c klab_run.c GPU)
add_dependencies(test_gpu_swired klab swiglu reduction)
set_tests_properties(test_gpu_swired PROPERTIES TIMEOUT 600)
# The row plugins (rmsnorm, softmax, rmsnorm_rope: the row-kernel skeleton) on small odd shapes, every
# path forced, RoPE refusals, and the shipped INIs and sweeps verified; skipped without a GPU.
klab_test(test_gpu_rows SOURCES test_gpu_rows.c klab_gpu.c klab_run.c GPU)
add_dependencies(test_gpu_rows klab rmsnorm softmax rmsnorm_rope)
set_tests_properties(test_gpu_rows PROPERTIES TIMEOUT 900)
# decode_replay on tiny stacks: every profile verified against float64 (output and appended KV), fixed
# and dynamic, timed as steps; its probes written where KLAB_DECODE_PROBES points. Skipped without a GPU.
klab_test(test_gpu_decode SOURCES test_gpu_decode.c klab_gpu.c klab_run.c GPU)
add_dependencies(test_gpu_decode klab decode_replay)
set_tests_properties(test_gpu_decode PROPERTIES TIMEOUT 900)
