# The plugins' C parts (plugins/, no GPU): their float64 references, plans, configurations and
# schedulers. PLUGINS_SRC is the plugins' source folder.
set(PLUGINS_SRC ${PROJECT_SOURCE_DIR}/plugins)

# the plugins' float64 references, linked in from plugins/ and the row library (plain C, no GPU)
klab_test(test_references SOURCES test_references.c ${PLUGINS_SRC}/vector_add/vector_add_reference.c
          ${PLUGINS_SRC}/softmax/softmax_reference.c LABELS unit)
target_link_libraries(test_references PRIVATE klab_lib_row)

# the references of every plugin that runs them on the host's threads: the same bytes with no host, at
# KLAB_THREADS 1 and 4, and as the loops before the pool (RMSNorm and RoPE from the row library, the
# TN GEMM from the gemm library)
klab_test(test_references_threads SOURCES test_references_threads.c
          ${PLUGINS_SRC}/softmax/softmax_reference.c ${PLUGINS_SRC}/swiglu/swiglu_reference.c
          ${PLUGINS_SRC}/reduction/reduction_reference.c ${PLUGINS_SRC}/vector_add/vector_add_reference.c
          ${PLUGINS_SRC}/fused_gated_mlp/fused_gated_mlp_reference.c ${PLUGINS_SRC}/matmul_h200/matmul_h200_config.c
          ${PLUGINS_SRC}/decode_replay/decode_replay_reference.c LABELS unit)
target_link_libraries(test_references_threads PRIVATE klab_lib_row klab_lib_gemm klab_lib_gated klab_lib_hopper)

if(NOT KLAB_SANITIZE) # they need plugins the sanitizer build leaves out (CMakeLists.txt)
# swiglu and reduction: their references by hand, their shipped INI files validated through the klab
# binary (their machine code: sass/)
klab_test(test_references_swired SOURCES test_references_swired.c
          ${PLUGINS_SRC}/swiglu/swiglu_reference.c ${PLUGINS_SRC}/reduction/reduction_plan.c
          ${PLUGINS_SRC}/reduction/reduction_reference.c LABELS unit)
target_link_libraries(test_references_swired PRIVATE klab_lib_gated)
add_dependencies(test_references_swired klab swiglu reduction)
endif()

# the row-kernel plans (plugins/lib/row/row_plan.c) and the configurations the INI files name
klab_test(test_row_plan SOURCES test_row_plan.c LABELS unit)
target_link_libraries(test_row_plan PRIVATE klab_lib_row)

# matmul_h200: its reference, the sampled check, the tuning space and hopper_gemm's tile scheduler
# (plain C; its machine code: sass/). Its INI files are validated in cli/.
klab_test(test_matmul_h200 SOURCES test_matmul_h200.c ${PLUGINS_SRC}/matmul_h200/matmul_h200_config.c LABELS unit)
target_link_libraries(test_matmul_h200 PRIVATE klab_lib_hopper)
if(NOT KLAB_SANITIZE)
# lib/hopper/hopper_wgmma.cuh is gen_hopper_wgmma.py's output: a hand edit there, or a generator change
# not run, fails here rather than drifting
add_test(NAME hopper_wgmma_generated
         COMMAND sh -c "python3 \"$0\" | cmp - \"$1\"" ${PLUGINS_SRC}/lib/hopper/gen_hopper_wgmma.py
                 ${PLUGINS_SRC}/lib/hopper/hopper_wgmma.cuh)
set_tests_properties(hopper_wgmma_generated PROPERTIES LABELS unit)
endif()

# fp8_gemm and fused_gated_mlp: the e4m3 quantisation reference by hand (codes, ties, saturation, NaN,
# block layouts, the error the tolerance rests on); the GEMM and gated-MLP references and case shapes;
# their INI files are validated in cli/
klab_test(test_fp8_quant SOURCES test_fp8_quant.c ${PLUGINS_SRC}/fp8_gemm/fp8_quant_reference.c
          ${PLUGINS_SRC}/fp8_gemm/fp8_gemm_reference.c LABELS unit)
target_link_libraries(test_fp8_quant PRIVATE klab_lib_gemm)
klab_test(test_gemm_family SOURCES test_gemm_family.c ${PLUGINS_SRC}/fp8_gemm/fp8_gemm_reference.c
          ${PLUGINS_SRC}/fp8_gemm/fp8_gemm_config.c ${PLUGINS_SRC}/fused_gated_mlp/fused_gated_mlp_reference.c
          ${PLUGINS_SRC}/fused_gated_mlp/fused_gated_mlp_config.c LABELS unit)
target_link_libraries(test_gemm_family PRIVATE klab_lib_gemm)

# decode_replay's float64 reference by hand, its length schedule, geometry and bytes (plain C)
klab_test(test_decode_replay SOURCES test_decode_replay.c ${PLUGINS_SRC}/decode_replay/decode_replay_reference.c
          ${PLUGINS_SRC}/decode_replay/decode_replay_probes.c ${PLUGINS_SRC}/decode_replay/decode_replay_geom.c
          LABELS unit)
target_link_libraries(test_decode_replay PRIVATE klab_lib_row)
# its tensors for every case of its INI files: each kernel argument bound to the tensor of its name, each
# kernel's writes within their tensor, a probe slot for each kernel
klab_test(test_decode_tensors SOURCES test_decode_tensors.c ${PLUGINS_SRC}/decode_replay/decode_replay_tensors.c
          ${PLUGINS_SRC}/decode_replay/decode_replay_geom.c LABELS unit)
target_link_libraries(test_decode_tensors PRIVATE klab_lib_cuda)
