# GPU tests: real kernels on a real device, through the klab binary. Skipped (exit 77, with the
# reason) where there is no GPU; tools/gpu-run.sh runs them on the GPU machine.
set(KLAB_GPU_TEST_PLUGINS gpu_oob gpu_hang gpu_future gpu_escape gpu_cheats)
foreach(p ${KLAB_GPU_TEST_PLUGINS})
  klab_add_plugin(${p} SOURCES ${KLAB_TESTS_DIR}/fixtures/plugins/gpu/${p}.cu)
endforeach()
target_link_libraries(gpu_escape PRIVATE CUDA::cublas)

# klab_gpu_test(NAME [TIMEOUT s] [SOURCES src...] [DEPENDS target...]): a GPU test program, NAME.c with
# what every one shares (klab_gpu.c) and SOURCES; the plugins it runs built first.
function(klab_gpu_test name)
  cmake_parse_arguments(ARG "" "TIMEOUT" "SOURCES;DEPENDS" ${ARGN})
  klab_test(${name} SOURCES ${name}.c klab_gpu.c ${ARG_SOURCES} GPU)
  if(ARG_DEPENDS)
    add_dependencies(${name} ${ARG_DEPENDS})
  endif()
  if(ARG_TIMEOUT)
    set_tests_properties(${name} PROPERTIES TIMEOUT ${ARG_TIMEOUT})
  endif()
endfunction()

klab_gpu_test(test_gpu TIMEOUT 600
              DEPENDS klab vector_add rmsnorm ${KLAB_GPU_TEST_PLUGINS} ${KLAB_ABI2_PLUGINS})

# Timer 2's GPU tests (batched, hot and step timing; the blind spots) and their test plugins, written
# for plugin ABI 2: built only once plugin.h speaks it (until branch abi is merged, it does not).
file(STRINGS ${PROJECT_SOURCE_DIR}/plugin-sdk/include/klab/plugin.h KLAB_ABI_MAJOR_LINE
     REGEX "^#define KLAB_ABI_MAJOR [0-9]+")
if(KLAB_ABI_MAJOR_LINE MATCHES "KLAB_ABI_MAJOR 2$")
  set(KLAB_TIMER_TEST_PLUGINS timer_twice timer_escape timer_steps timer_l2)
  foreach(p ${KLAB_TIMER_TEST_PLUGINS})
    klab_add_plugin(${p} SOURCES ${KLAB_TESTS_DIR}/fixtures/plugins/timer/${p}.cu)
  endforeach()
  klab_gpu_test(test_gpu_timing TIMEOUT 600 DEPENDS klab ${KLAB_TIMER_TEST_PLUGINS})
  # without a GPU: the L2-residue plugin loads, describes itself and its INI checks against it
  add_test(NAME validate_timer_l2 COMMAND klab --validate --plugin-path ${KLAB_PLUGIN_OUTPUT_DIR}
           --config ${KLAB_TESTS_DIR}/fixtures/plugins/timer/timer_l2.ini)
  set_tests_properties(validate_timer_l2 PROPERTIES LABELS plugins PASS_REGULAR_EXPRESSION "0 invalid, 0 plugins refused")
else()
  message(STATUS "test_gpu_timing: not built: its test plugins need plugin ABI 2 (${KLAB_ABI_MAJOR_LINE})")
endif()

# swiglu and reduction on small odd shapes (gpu/ini/swiglu.ini, reduction.ini): every profile
# verified in every dtype, plain and batched; an odd packed width refused
klab_gpu_test(test_gpu_swired TIMEOUT 600 DEPENDS klab swiglu reduction)
# The row plugins (rmsnorm, softmax, rmsnorm_rope: the row-kernel skeleton) on small odd shapes, every
# path forced, RoPE refusals, and the shipped INIs and sweeps verified; skipped without a GPU.
klab_gpu_test(test_gpu_rows TIMEOUT 900 DEPENDS klab rmsnorm softmax rmsnorm_rope)
# libklab_bench (the PyTorch bridge) with C callables in PyTorch's place: batched externals on one set
# of tensors (not-rotated) and rotating through copies (kb_add_external_rotating); cases sized by dim.NAME
# (the GEMM family's tensors) and the dims and params kb_begin refuses; skipped without a GPU.
klab_gpu_test(test_gpu_bench DEPENDS klab vector_add matmul_h200 fp8_gemm fused_gated_mlp)
target_link_libraries(test_gpu_bench PRIVATE klab_bench CUDA::cudart)
# Scale-out (docs/scale-out.md): --devices over this machine's GPUs, two shards merged, the
# --with-profiling pass under a fake ncu and, where ncu is on PATH, the real one
klab_gpu_test(test_gpu_scale TIMEOUT 900 DEPENDS klab vector_add)
# klab --resume: a run stopped by SIGINT after its first unit, resumed, has a whole run's rows (its
# first unit's as written), one seed, meta.ini untouched, no .partial or .progress left
klab_gpu_test(test_gpu_resume TIMEOUT 600 DEPENDS klab vector_add)
# matmul_h200 on small and odd shapes (gpu/ini/matmul_h200*.ini): every profile and dtype verified,
# plain, batched and through --tune (every configuration of the wgmma spaces); refusals
klab_gpu_test(test_gpu_matmul TIMEOUT 900 DEPENDS klab matmul_h200)
# fp8_gemm and fused_gated_mlp on small odd shapes (gpu/ini/fp8_gemm.ini, fused_gated_mlp.ini):
# every profile verified, plain and batched; fp8 rows carry fp8's error; skips and refusals with reasons
klab_gpu_test(test_gpu_gemm_family TIMEOUT 600 DEPENDS klab fp8_gemm fused_gated_mlp)
# the quantisation kernels byte for byte against the CPU reference (NaN, infinities, zero blocks)
klab_gpu_test(test_gpu_fp8_quant
              SOURCES ${PROJECT_SOURCE_DIR}/plugins/fp8_gemm/fp8_quant_kernels.cu ${PROJECT_SOURCE_DIR}/plugins/fp8_gemm/fp8_quant_reference.c)
# decode_replay on tiny stacks: every profile verified against float64 (output and appended KV), fixed
# and dynamic, timed as steps; its probes written where KLAB_DECODE_PROBES points. Skipped without a GPU.
klab_gpu_test(test_gpu_decode TIMEOUT 900 DEPENDS klab decode_replay)
