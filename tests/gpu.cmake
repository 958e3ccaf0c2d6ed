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
# libklab_bench (the PyTorch bridge) with C callables in PyTorch's place: batched externals on one set
# of tensors (not-rotated) and rotating through copies (kb_add_external_rotating); skipped without a GPU.
klab_test(test_gpu_bench SOURCES test_gpu_bench.c klab_gpu.c klab_run.c GPU)
target_link_libraries(test_gpu_bench PRIVATE klab_bench CUDA::cudart)
add_dependencies(test_gpu_bench klab vector_add)
# Scale-out (docs/scale-out.md): --devices over this machine's GPUs, two shards merged, the
# --with-profiling pass under a fake ncu and, where ncu is on PATH, the real one
klab_test(test_gpu_scale SOURCES test_gpu_scale.c klab_gpu.c klab_run.c GPU)
add_dependencies(test_gpu_scale klab vector_add)
set_tests_properties(test_gpu_scale PROPERTIES TIMEOUT 900)
# matmul_h200 on small and odd shapes (tests/gpu_ini/matmul_h200*.ini): every profile and dtype verified,
# plain, batched and through --tune (every configuration of the wgmma spaces); refusals
klab_test(test_gpu_matmul SOURCES test_gpu_matmul.c klab_gpu.c klab_run.c GPU)
add_dependencies(test_gpu_matmul klab matmul_h200)
set_tests_properties(test_gpu_matmul PROPERTIES TIMEOUT 900)
# fp8_gemm and fused_gated_mlp on small odd shapes (tests/gpu_ini/fp8_gemm.ini, fused_gated_mlp.ini):
# every profile verified, plain and batched; fp8 rows carry fp8's error; skips and refusals with reasons
klab_test(test_gpu_gemm_family SOURCES test_gpu_gemm_family.c klab_gpu.c klab_run.c GPU)
add_dependencies(test_gpu_gemm_family klab fp8_gemm fused_gated_mlp)
set_tests_properties(test_gpu_gemm_family PROPERTIES TIMEOUT 600)
# the quantisation kernels byte for byte against the CPU reference (NaN, infinities, zero blocks)
klab_test(test_gpu_fp8_quant SOURCES test_gpu_fp8_quant.c klab_gpu.c klab_run.c
          ../plugins/fp8_gemm/fp8_quant_kernels.cu ../plugins/fp8_gemm/fp8_quant_reference.c GPU)
# decode_replay on tiny stacks: every profile verified against float64 (output and appended KV), fixed
# and dynamic, timed as steps; its probes written where KLAB_DECODE_PROBES points. Skipped without a GPU.
klab_test(test_gpu_decode SOURCES test_gpu_decode.c klab_gpu.c klab_run.c GPU)
add_dependencies(test_gpu_decode klab decode_replay)
set_tests_properties(test_gpu_decode PROPERTIES TIMEOUT 900)
