# CPU unit tests of the host's pure-C units, one program per core unit. None needs a GPU (timing's
# pure parts only need the CUDA runtime library linked).
klab_test(test_ini_config SOURCES test_ini_config.c ini_fixture.c LABELS unit)
klab_test(test_ini_cases SOURCES test_ini_cases.c ini_fixture.c LABELS unit)
klab_test(test_ini_check SOURCES test_ini_check.c ini_fixture.c LABELS unit)
klab_test(test_csv_sink SOURCES test_csv_sink.c LABELS unit)
klab_test(test_stats SOURCES test_stats.c LABELS unit)
klab_test(test_interval SOURCES test_interval.c LABELS unit)
klab_test(test_verify SOURCES test_verify.c LABELS unit)
# verify_compare on the pool: byte for byte the figures of the code before it (verify_v0.c, its copy)
# at 1, 2 and 4 threads; input_scan's checksum, widening and sum of squares at every thread count
klab_test(test_verify_threads SOURCES test_verify_threads.c verify_v0.c LABELS unit)
klab_test(test_checksum SOURCES test_checksum.c LABELS unit)
# the worker's thread pool: its chunks, the same bits at every thread count, fork, KLAB_THREADS
klab_test(test_parallel SOURCES test_parallel.c LABELS unit)
klab_test(test_roofline SOURCES test_roofline.c LABELS unit)
klab_test(test_row SOURCES test_row.c LABELS unit)
klab_test(test_timing_order SOURCES test_timing_order.c LABELS unit)
klab_test(test_rounds SOURCES test_rounds.c LABELS unit)
klab_test(test_samples_file SOURCES test_samples_file.c LABELS unit)
klab_test(test_cli SOURCES test_cli.c LABELS unit)
# test_cli also runs the klab binary: bad INI input is reported before any GPU work, and a plugin
# whose descriptor holds control characters is listed with them escaped
klab_add_plugin(ctl_text SOURCES plugins/cli/ctl_text.c)
target_sources(test_cli PRIVATE klab_run.c)
add_dependencies(test_cli klab vector_add crash_good ctl_text)
klab_test(test_discovery SOURCES test_discovery.c LABELS unit)
klab_test(test_tune_cache SOURCES test_tune_cache.c klab_run.c LABELS unit)
klab_test(test_wire SOURCES test_wire.c LABELS unit)
klab_test(test_text SOURCES test_text.c LABELS unit)
klab_test(test_table SOURCES test_table.c LABELS unit)
klab_test(test_redzone SOURCES test_redzone.c LABELS unit)
klab_test(test_sample SOURCES test_sample.c LABELS unit)
klab_test(test_case_build SOURCES test_case_build.c LABELS unit)
klab_test(test_results SOURCES test_results.c LABELS unit)
# meta.ini: klab's runs and libklab_bench's sessions through one writer (core/run_meta.c)
# and [phases]: the parent's clock over a worker's messages (lab_on_message), PyTorch's phases file,
# the section rewritten at the end of a run; --quick and --budget-ms in [method], quick parent rows
klab_test(test_run_meta SOURCES test_run_meta.c klab_run.c LABELS unit)

# the plugins' float64 references, linked in from plugins/ and the row library (plain C, no GPU)
klab_test(test_references SOURCES test_references.c references_fixture.c
          ../plugins/vector_add/vector_add_reference.c ../plugins/softmax/softmax_reference.c LABELS unit)
target_link_libraries(test_references PRIVATE klab_lib_row)

# the references of every plugin that runs them on the host's threads: the same bytes with no host, at
# KLAB_THREADS 1 and 4, and as the loops before the pool (RMSNorm and RoPE from the row library, the
# TN GEMM from the gemm library)
klab_test(test_references_threads SOURCES test_references_threads.c references_fixture.c
          ../plugins/softmax/softmax_reference.c ../plugins/swiglu/swiglu_reference.c
          ../plugins/reduction/reduction_reference.c ../plugins/vector_add/vector_add_reference.c
          ../plugins/fused_gated_mlp/fused_gated_mlp_reference.c ../plugins/matmul_h200/matmul_h200_config.c
          ../plugins/decode_replay/decode_replay_reference.c LABELS unit)
target_link_libraries(test_references_threads PRIVATE klab_lib_row klab_lib_gemm klab_lib_gated klab_lib_hopper)
# klab_host_bench: the host side of a large rows unit and a 2^27 reduction at several thread counts
# (docs/timing.md "Host-side work"); built so it does not rot, never run by ctest (it times)
add_executable(klab_host_bench bench_host.c verify_v0.c ../plugins/reduction/reduction_reference.c)
target_link_libraries(klab_host_bench PRIVATE klab_core klab_lib_row)
target_compile_options(klab_host_bench PRIVATE ${KLAB_C_WARNINGS})
target_compile_definitions(klab_host_bench PRIVATE _XOPEN_SOURCE=700)

if(NOT KLAB_SANITIZE) # they need plugins the sanitizer build leaves out (CMakeLists.txt)
# swiglu and reduction: their references by hand, their shipped INI files validated through the klab
# binary (test_references_swired), and the machine code of their fast kernels: 16-byte loads, no local
# memory (sass_check.sh; skipped without cuobjdump)
klab_test(test_references_swired SOURCES test_references_swired.c references_fixture.c
          ../plugins/swiglu/swiglu_reference.c ../plugins/reduction/reduction_plan.c
          ../plugins/reduction/reduction_reference.c klab_run.c LABELS unit)
target_link_libraries(test_references_swired PRIVATE klab_lib_gated)
add_dependencies(test_references_swired klab swiglu reduction)
endif()
function(klab_sass_test plugin)
  add_test(NAME sass_${plugin} COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/sass_check.sh $<TARGET_FILE:${plugin}> ${ARGN})
  set_tests_properties(sass_${plugin} PROPERTIES SKIP_RETURN_CODE 77 LABELS unit
                       ENVIRONMENT "KLAB_NVCC=${CMAKE_CUDA_COMPILER}")
endfunction()
if(NOT KLAB_SANITIZE) # they need plugins the sanitizer build leaves out (CMakeLists.txt)
klab_sass_test(swiglu ew_vec_kernel)
klab_sass_test(reduction partial_kernel sm_90a:cluster_kernel)
endif()
# klab --tune without a GPU: a unit's entries and configurations, and the parent's choice of the best
klab_test(test_tune SOURCES test_tune.c LABELS unit)
# the row-kernel plans (plugins/lib/row/row_plan.c) and the configurations the INI files name
klab_test(test_row_plan SOURCES test_row_plan.c LABELS unit)
target_link_libraries(test_row_plan PRIVATE klab_lib_row)

if(NOT KLAB_SANITIZE) # they need plugins the sanitizer build leaves out (CMakeLists.txt)
# the row plugins' and the GEMM family's INI files (shipped, sweeps, tuning, GPU tests) checked against
# their plugins, as `klab --validate` does it, without a GPU
foreach(ini ini/rmsnorm.ini ini/softmax.ini ini/rmsnorm_rope.ini experiments/rowsweep_rmsnorm.ini
        experiments/rowsweep_softmax.ini experiments/rmsnorm_tuning.ini tests/gpu_ini/rows_rmsnorm.ini
        tests/gpu_ini/softmax.ini tests/gpu_ini/rmsnorm_rope.ini tests/gpu_ini/rows_rope_bad.ini
        ini/matmul_h200.ini tests/gpu_ini/matmul_h200.ini tests/gpu_ini/matmul_h200_bad.ini
        ini/fp8_gemm.ini ini/fused_gated_mlp.ini tests/gpu_ini/fp8_gemm.ini tests/gpu_ini/fused_gated_mlp.ini)
  get_filename_component(stem ${ini} NAME_WE)
  get_filename_component(dir ${ini} DIRECTORY)
  string(REPLACE "/" "_" dir ${dir})
  add_test(NAME validate_${dir}_${stem}
           COMMAND klab --validate --plugin-path ${PROJECT_BINARY_DIR}/plugins --config ${PROJECT_SOURCE_DIR}/${ini})
  set_tests_properties(validate_${dir}_${stem} PROPERTIES LABELS unit PASS_REGULAR_EXPRESSION "0 invalid, 0 plugins refused")
endforeach()

# the row-kernel skeleton's SASS: 16-byte loads and stores, no local memory (skipped without cuobjdump)
add_test(NAME sass_rows COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/sass_rows.sh ${PROJECT_BINARY_DIR})
set_tests_properties(sass_rows PROPERTIES LABELS unit SKIP_RETURN_CODE 77)
endif()
# klab compare: synthetic runs with known noise, judged in the library and through the binary
klab_test(test_compare SOURCES test_compare.c compare_fixture.c klab_run.c GPU LABELS unit) # GPU: two real runs where there is one
if(KLAB_SANITIZE)
  add_dependencies(test_compare klab) # its GPU test, which runs rmsnorm, skips without one
else()
  add_dependencies(test_compare klab rmsnorm)
endif()
# klab compare as a gate: a changed configuration paired and shown (a committed pair of row-length
# sweeps), rows in one run only and changed configurations failing it, untrusted runs exit 2
klab_test(test_compare_gate SOURCES test_compare_gate.c compare_fixture.c klab_run.c LABELS unit)
add_dependencies(test_compare_gate klab)
# klab --with-torch: the command built for tools/torch_rows.py, and through the binary a failing, a
# missing and a fake interpreter, and the real torch_rows.py --dry-run (no torch, no GPU)
if(NOT KLAB_SANITIZE) # softmax, Python and libklab_bench: the normal build's (CMakeLists.txt)
klab_test(test_lab_torch SOURCES test_lab_torch.c klab_run.c GPU LABELS unit) # GPU: its runs time on one where there is one
add_dependencies(test_lab_torch klab vector_add softmax)
endif()

# klab report: the claim grammar and its statuses over CSV fixtures, experiment and decision files
# refused with file:line, the shipped ones loaded; the report written and drawn (test_report)
klab_test(test_claims SOURCES test_claims.c report_fixture.c LABELS unit)
klab_test(test_report SOURCES test_report.c report_fixture.c klab_run.c LABELS unit)
add_dependencies(test_report klab)
# klab report over tests/fixtures/runs: decisions.md and pages diffed against tests/fixtures/report
add_test(NAME report_golden COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/report_golden.sh $<TARGET_FILE:klab>)
set_tests_properties(report_golden PROPERTIES LABELS unit)
# report.html's charts as Chromium draws them, over one run and over 26 (tests/fixtures/runs/rowsweep-many)
add_test(NAME report_charts COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/report_charts_check.py $<TARGET_FILE:klab>)
set_tests_properties(report_charts PROPERTIES LABELS unit SKIP_RETURN_CODE 77)
klab_test(test_svg SOURCES test_svg.c LABELS unit)

# scale-out (docs/scale-out.md): --shard and --devices' split of the units, klab merge (cmocka and the
# binary), --with-profiling's ncu output from fixtures and a fake ncu, the Slurm script's command lines
klab_test(test_shard SOURCES test_shard.c klab_run.c LABELS unit)
add_dependencies(test_shard klab vector_add)
klab_test(test_merge SOURCES test_merge.c klab_run.c LABELS unit)
add_dependencies(test_merge klab)
# klab --resume: an interrupted CSV cut back to its last whole unit (fixtures), the selection stored in
# meta.ini read back, and the refusals (commit, INI, schema, options, no meta.ini) through the binary
klab_test(test_resume SOURCES test_resume.c klab_run.c LABELS unit)
add_dependencies(test_resume klab vector_add)
klab_test(test_profiling SOURCES test_profiling.c klab_run.c LABELS unit)
add_test(NAME slurm_dry_run COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/slurm_dry_run.sh ${PROJECT_SOURCE_DIR}/tools/slurm/klab-array.sh)
set_tests_properties(slurm_dry_run PROPERTIES LABELS unit)
# the Slurm script under a real single-node Slurm it starts and stops: the build's klab's shards and a
# stand-in's, each run's merge job (skipped where slurm-wlm or munge is missing, but not under CI)
add_test(NAME slurm_single_node
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/slurm_single_node.sh ${PROJECT_SOURCE_DIR}/tools/slurm/klab-array.sh
                 $<TARGET_FILE:klab> ${CMAKE_CURRENT_SOURCE_DIR}/fixtures/runs/rowsweep-rmsnorm-a)
set_tests_properties(slurm_single_node PROPERTIES LABELS unit SKIP_RETURN_CODE 77 TIMEOUT 300)

# matmul_h200: its reference, the sampled check, the tuning space and hopper_gemm's tile scheduler
# (plain C), and its machine code (sass_matmul_h200.sh: HGMMA and UTMALDG in every wgmma kernel, no
# local memory; skipped without cuobjdump). Its INI files are validated in the loop above.
klab_test(test_matmul_h200 SOURCES test_matmul_h200.c ../plugins/matmul_h200/matmul_h200_config.c LABELS unit)
target_link_libraries(test_matmul_h200 PRIVATE klab_lib_hopper)
if(NOT KLAB_SANITIZE) # they need plugins the sanitizer build leaves out (CMakeLists.txt)
add_test(NAME sass_matmul_h200 COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/sass_matmul_h200.sh $<TARGET_FILE:matmul_h200>)
set_tests_properties(sass_matmul_h200 PROPERTIES LABELS unit SKIP_RETURN_CODE 77
                     ENVIRONMENT "KLAB_NVCC=${CMAKE_CUDA_COMPILER}")
# lib/hopper/hopper_wgmma.cuh is gen_hopper_wgmma.py's output: a hand edit there, or a generator change
# not run, fails here rather than drifting
add_test(NAME hopper_wgmma_generated
         COMMAND sh -c "python3 \"$0\" | cmp - \"$1\"" ${PROJECT_SOURCE_DIR}/plugins/lib/hopper/gen_hopper_wgmma.py
                 ${PROJECT_SOURCE_DIR}/plugins/lib/hopper/hopper_wgmma.cuh)
set_tests_properties(hopper_wgmma_generated PROPERTIES LABELS unit)
endif()

# fp8_gemm and fused_gated_mlp: the e4m3 quantisation reference by hand (codes, ties, saturation, NaN,
# block layouts, the error the tolerance rests on); the GEMM and gated-MLP references and case shapes;
# their INI files are validated with the row plugins' above; the quantisation kernels' SASS
# (16-byte loads, no local memory; skipped without cuobjdump)
klab_test(test_fp8_quant SOURCES test_fp8_quant.c ../plugins/fp8_gemm/fp8_quant_reference.c
          ../plugins/fp8_gemm/fp8_gemm_reference.c LABELS unit)
target_link_libraries(test_fp8_quant PRIVATE klab_lib_gemm)
klab_test(test_gemm_family SOURCES test_gemm_family.c ../plugins/fp8_gemm/fp8_gemm_reference.c
          ../plugins/fp8_gemm/fp8_gemm_config.c ../plugins/fused_gated_mlp/fused_gated_mlp_reference.c
          ../plugins/fused_gated_mlp/fused_gated_mlp_config.c LABELS unit)
target_link_libraries(test_gemm_family PRIVATE klab_lib_gemm)
if(NOT KLAB_SANITIZE) # they need plugins the sanitizer build leaves out (CMakeLists.txt)
klab_sass_test(fp8_gemm amax2_kernel cast2_kernel block_kernel)
klab_sass_test(fused_gated_mlp ew_vec_kernel)
# the wgmma kernels (lib/hopper/hopper_gemm.cuh) of both: fp8 QGMMA, bf16 HGMMA, and tensor-copy loads
foreach(pair fp8_gemm:QGMMA fused_gated_mlp:HGMMA)
  string(REPLACE ":" ";" pair ${pair})
  list(GET pair 0 plugin)
  list(GET pair 1 mma)
  add_test(NAME sass_mma_${plugin}
           COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/sass_mma.sh $<TARGET_FILE:${plugin}> sm_90a gemm_kernel ${mma} UTMALDG)
  set_tests_properties(sass_mma_${plugin} PROPERTIES SKIP_RETURN_CODE 77 LABELS unit)
  # their epi=tma kernels (ScaledTmaStore, GatedTmaEpilogue) stage with stmatrix and store with TMA
  add_test(NAME sass_staged_${plugin}
           COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/sass_mma.sh $<TARGET_FILE:${plugin}> sm_90a gemm_kernel.*Tma[SE] STSM UTMASTG)
  set_tests_properties(sass_staged_${plugin} PROPERTIES SKIP_RETURN_CODE 77 LABELS unit)
endforeach()
endif()

# decode_replay's float64 reference by hand, its length schedule, geometry and bytes (plain C)
klab_test(test_decode_replay SOURCES test_decode_replay.c ../plugins/decode_replay/decode_replay_reference.c
          ../plugins/decode_replay/decode_replay_probes.c ../plugins/decode_replay/decode_replay_geom.c
          LABELS unit)
target_link_libraries(test_decode_replay PRIVATE klab_lib_row)
# its tensors for every case of its INI files: each kernel argument bound to the tensor of its name, each
# kernel's writes within their tensor, a probe slot for each kernel
klab_test(test_decode_tensors SOURCES test_decode_tensors.c ../plugins/decode_replay/decode_replay_tensors.c
          ../plugins/decode_replay/decode_replay_geom.c LABELS unit)
target_link_libraries(test_decode_tensors PRIVATE klab_lib_cuda)
if(NOT KLAB_SANITIZE) # the plugin, Python and libklab_bench: the normal build's (CMakeLists.txt)
# its INI files checked against the plugin as `klab --validate` does it, without a GPU
foreach(ini ini/decode_replay.ini tests/gpu_ini/decode_replay.ini)
  get_filename_component(dir ${ini} DIRECTORY)
  string(REPLACE "/" "_" dir ${dir})
  add_test(NAME validate_${dir}_decode_replay
           COMMAND klab --validate --plugin-path ${PROJECT_BINARY_DIR}/plugins --config ${PROJECT_SOURCE_DIR}/${ini})
  set_tests_properties(validate_${dir}_decode_replay PROPERTIES LABELS unit PASS_REGULAR_EXPRESSION "0 invalid, 0 plugins refused")
endforeach()
# tools/torch_decode.py: the plan of every decode_replay case without torch or a GPU, its bytes from the
# plugin's own work() (the rows' gbps must use klab's count), and fewer than 1000 steps refused
find_package(Python3 COMPONENTS Interpreter REQUIRED)
add_test(NAME torch_decode_dry_run
         COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tools/torch_decode.py --dry-run --build ${PROJECT_BINARY_DIR})
set_tests_properties(torch_decode_dry_run PROPERTIES LABELS unit
                     PASS_REGULAR_EXPRESSION "long-kv-dyn +bf16 .*KV dynamic \\[1, 32768\\].*503\\.4 MB a step")
add_test(NAME torch_decode_few_steps
         COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tools/torch_decode.py --dry-run --steps 999)
set_tests_properties(torch_decode_few_steps PROPERTIES LABELS unit PASS_REGULAR_EXPRESSION "--steps must be at least 1000")
# tools/decode_probes.py: rows, ratio intervals, steps, kernels, pairing and enqueue tables of a fixture
# worked by hand with klab's statistics (libklab_bench), and the median's interval against core/interval.c's ranks
add_test(NAME decode_probes COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tests/test_decode_probes.py
         ${PROJECT_BINARY_DIR})
set_tests_properties(decode_probes PROPERTIES LABELS unit)
# tools/torch_rows.py's meta.ini part without torch or a GPU: the entries kb_write_meta gets, whose
# meta.ini a folder holds, no folder in a dry run (the file itself: test_run_meta, test_gpu_bench)
add_test(NAME torch_meta COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tests/test_torch_meta.py ${PROJECT_BINARY_DIR})
set_tests_properties(torch_meta PROPERTIES LABELS unit)
# decode_replay's GEMV and attention: 16-byte loads, no local memory (no spills) in any architecture
klab_sass_test(decode_replay gemv_kernel gemv_pipe_kernel attn_kernel attn_fused_kernel)
endif()
# the one CSV reader (csv_read.c) against damaged files: cell counts, quotes, NUL, cut and over-long
# cells, unknown statuses, files that are not regular ones; a byte order mark and CRLF accepted
klab_test(test_csv_read SOURCES test_csv_read.c klab_run.c LABELS unit)
# run folders read back for klab report: a large run's counters joined to its rows, and a run folder
# whose meta.ini and samples files are FIFOs, /dev/zero or outside the folder (the report is written)
klab_test(test_run_set SOURCES test_run_set.c report_fixture.c klab_run.c LABELS unit)
add_dependencies(test_run_set klab)
# the command line as a hostile user writes it (NaN and negative numbers, control bytes, folders that do
# not exist) and meta.ini's text escaped in the Markdown report
klab_test(test_options SOURCES test_options.c report_fixture.c klab_run.c LABELS unit)
add_dependencies(test_options klab)
