# The klab binary end to end: its command line, fault isolation and supervision through it, klab
# compare as a gate, klab report's golden files, INI files validated, and the scripts around it (the
# Slurm array, the SDK used from outside the tree).

# bad INI input is reported before any GPU work, and a plugin whose descriptor holds control
# characters is listed with them escaped
klab_test(test_cli SOURCES test_cli.c LABELS unit)
add_dependencies(test_cli klab vector_add crash_good ctl_text)
# the command line as a hostile user writes it (NaN and negative numbers, control bytes, folders that do
# not exist) and meta.ini's text escaped in the Markdown report
klab_test(test_options SOURCES test_options.c LABELS unit)
add_dependencies(test_options klab)
# klab compare as a gate: a changed configuration paired and shown (a committed pair of row-length
# sweeps), rows in one run only and changed configurations failing it, untrusted runs exit 2
klab_test(test_compare_gate SOURCES test_compare_gate.c LABELS unit)
add_dependencies(test_compare_gate klab)
# klab report over fixtures/runs: decisions.md and pages diffed against fixtures/report
add_test(NAME report_golden COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/report_golden.sh $<TARGET_FILE:klab>)
set_tests_properties(report_golden PROPERTIES LABELS unit)
# report.html's charts as Chromium draws them, over one run and over 26 (fixtures/runs/rowsweep-many)
add_test(NAME report_charts COMMAND ${CMAKE_CURRENT_LIST_DIR}/report_charts_check.py $<TARGET_FILE:klab>)
set_tests_properties(report_charts PROPERTIES LABELS unit SKIP_RETURN_CODE 77)
# past the 2,000 rows a page shows: what each page and the terminal left out, the claims over every row
add_test(NAME report_bound COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/report_bound.sh $<TARGET_FILE:klab>
         ${PROJECT_SOURCE_DIR}/tools/gen_bench_runs.py)
set_tests_properties(report_bound PROPERTIES LABELS unit)
# the Slurm script's command lines
add_test(NAME slurm_dry_run COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/slurm_dry_run.sh ${PROJECT_SOURCE_DIR}/tools/slurm/klab-array.sh)
set_tests_properties(slurm_dry_run PROPERTIES LABELS unit)
# the Slurm script under a real single-node Slurm it starts and stops: the build's klab's shards and a
# stand-in's, each run's merge job (skipped where slurm-wlm or munge is missing, but not under CI)
add_test(NAME slurm_single_node
         COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/slurm_single_node.sh ${PROJECT_SOURCE_DIR}/tools/slurm/klab-array.sh
                 $<TARGET_FILE:klab> ${KLAB_TESTS_DIR}/fixtures/runs/rowsweep-rmsnorm-a)
set_tests_properties(slurm_single_node PROPERTIES LABELS unit SKIP_RETURN_CODE 77 TIMEOUT 300)

# the ABI 2.0 test plugins where no GPU is needed (their GPU tests: gpu/test_gpu.c)
klab_test(test_abi2_plugins SOURCES test_abi2_plugins.c LABELS plugins)
add_dependencies(test_abi2_plugins klab vector_add abi_half_hook ${KLAB_ABI2_PLUGINS})
# plugins that crash or hang in a worker (fixtures/plugins/crash)
klab_test(test_isolation SOURCES test_isolation.c LABELS plugins)
add_dependencies(test_isolation klab vector_add ${KLAB_CRASH_PLUGINS})
# the hang test waits out a 2 s watchdog; the rest is fast
set_tests_properties(test_isolation PROPERTIES TIMEOUT 120)
# workers that die with their parent, SIGINT/SIGTERM to klab, the silence watchdog, protocol refusals;
# the run with a partial CSV needs a GPU and skips that one test without one
klab_test(test_supervisor SOURCES test_supervisor.c LABELS plugins)
add_dependencies(test_supervisor klab ${KLAB_CRASH_PLUGINS})
set_tests_properties(test_supervisor PROPERTIES TIMEOUT 120)
# These drive the klab binary, and where a GPU is present some of their runs reach it (the supervisor's
# stalled run, the isolation tests' workers probe it): they take the GPU tests' lock, so no GPU test
# ever times beside them (a run beside test_gpu's first case read as 2 ms of escaped work).
set_tests_properties(test_abi2_plugins test_isolation test_supervisor PROPERTIES RESOURCE_LOCK gpu)

if(NOT KLAB_SANITIZE) # they need plugins, an install and a build the sanitizer build leaves out
# ---- the SDK from outside: install, then build plugin-sdk/examples/saxpy with CMake and pkg-config ----
add_test(NAME sdk_out_of_tree
  COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/sdk_out_of_tree.sh ${PROJECT_BINARY_DIR}
          ${PROJECT_SOURCE_DIR}/plugin-sdk/examples/saxpy)
set_tests_properties(sdk_out_of_tree PROPERTIES
  TIMEOUT 600 LABELS "plugins;sdk"
  ENVIRONMENT "CMAKE_COMMAND=${CMAKE_COMMAND};KLAB_NVCC=${CMAKE_CUDA_COMPILER};KLAB_CMAKE_GENERATOR=${CMAKE_GENERATOR}")
# ---- a plugin with its PyTorch module from outside: plugin-sdk/examples/leaky_relu, installed klab's
# --validate, --with-torch --validate and report over fixtures/runs/leaky_relu ----
add_test(NAME sdk_example_torch
  COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/sdk_example_torch.sh ${PROJECT_BINARY_DIR}
          ${PROJECT_SOURCE_DIR}/plugin-sdk/examples/leaky_relu ${KLAB_TESTS_DIR}/fixtures/runs/leaky_relu)
set_tests_properties(sdk_example_torch PROPERTIES
  TIMEOUT 600 LABELS "plugins;sdk"
  ENVIRONMENT "CMAKE_COMMAND=${CMAKE_COMMAND};KLAB_NVCC=${CMAKE_CUDA_COMPILER};KLAB_CMAKE_GENERATOR=${CMAKE_GENERATOR}")

# klab's command line through the binary, no GPU: --shape and --dim cases, a --case that matches
# nothing refused, each subcommand's --help, --tune --validate's summary, klab report's options, and
# the --json documents parsed by python3's json (test_cli_options.py)
add_test(NAME cli_options COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/test_cli_options.py ${PROJECT_BINARY_DIR})
set_tests_properties(cli_options PROPERTIES LABELS unit)

# the plugins' INI files (shipped, sweeps, tuning, GPU tests) checked against their plugins, as
# `klab --validate` does it, without a GPU; the test's name is validate_<folder>_<stem>
foreach(ini ini/rmsnorm.ini ini/softmax.ini ini/rmsnorm_rope.ini experiments/rowsweep_rmsnorm.ini
        experiments/rowsweep_softmax.ini experiments/rmsnorm_tuning.ini tests/gpu/ini/rows_rmsnorm.ini
        tests/gpu/ini/softmax.ini tests/gpu/ini/rmsnorm_rope.ini tests/gpu/ini/rows_rope_bad.ini
        ini/matmul_h200.ini tests/gpu/ini/matmul_h200.ini tests/gpu/ini/matmul_h200_bad.ini
        ini/fp8_gemm.ini ini/fused_gated_mlp.ini tests/gpu/ini/fp8_gemm.ini tests/gpu/ini/fused_gated_mlp.ini
        ini/decode_replay.ini tests/gpu/ini/decode_replay.ini)
  get_filename_component(stem ${ini} NAME_WE)
  get_filename_component(dir ${ini} DIRECTORY)
  string(REPLACE "/" "_" dir ${dir})
  add_test(NAME validate_${dir}_${stem}
           COMMAND klab --validate --plugin-path ${PROJECT_BINARY_DIR}/plugins --config ${PROJECT_SOURCE_DIR}/${ini})
  set_tests_properties(validate_${dir}_${stem} PROPERTIES LABELS unit PASS_REGULAR_EXPRESSION "0 invalid, 0 plugins refused")
endforeach()
endif()

# plugin ABI 2.1: the hooks that get the context and host, check_param, the profile list, the device
# service, and a plugin built against the 2.0 header loaded and validated (fixtures/plugins/sdk2x)
klab_test(test_sdk21 SOURCES test_sdk21.c LABELS plugins)
add_dependencies(test_sdk21 klab sdk20_plugin sdk21_hooks sdk21_cxx)
# the descriptor by field name from C++20: one whose fields are out of order, which the compiler refuses
add_test(NAME sdk21_cxx_field_order
  COMMAND ${CMAKE_CXX_COMPILER} -std=c++20 -fsyntax-only -I${PROJECT_SOURCE_DIR}/plugin-sdk/include
          ${KLAB_TESTS_DIR}/fixtures/plugins/sdk21/sdk21_cxx_misordered.cpp)
set_tests_properties(sdk21_cxx_field_order PROPERTIES LABELS "plugins;sdk"
  PASS_REGULAR_EXPRESSION "designator order")
# kb_verify_cpu: a plugin's verify() against outputs computed on the CPU, with no GPU (libklab_bench)
klab_test(test_verify_cpu SOURCES test_verify_cpu.c LABELS plugins)
target_link_libraries(test_verify_cpu PRIVATE klab_bench)
add_dependencies(test_verify_cpu vector_add)
# klab_add_plugin warns when no Hopper architecture is built: the rule, over the lists people write
add_test(NAME sdk_hopper_archs
  COMMAND ${CMAKE_COMMAND} -DKLAB_PLUGIN_CMAKE=${PROJECT_SOURCE_DIR}/plugin-sdk/cmake/KlabPlugin.cmake
          -P ${CMAKE_CURRENT_LIST_DIR}/sdk_hopper_archs.cmake)
set_tests_properties(sdk_hopper_archs PROPERTIES LABELS "plugins;sdk")
