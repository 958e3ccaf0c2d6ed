# tools/torch_rows.py reads every shipped INI (and the row-length sweeps) through libklab_bench and names
# the PyTorch callables of each case without torch or a GPU: an INI it cannot read, a case it cannot
# place, or a --dry-run that needs torch fails here, before any GPU work.
if(NOT Python3_Interpreter_FOUND)
  message(FATAL_ERROR "python3 not found: the test of tools/torch_rows.py needs it (apt-get install python3)")
endif()
file(GLOB KLAB_TORCH_ROWS_INIS CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/ini/*.ini
     ${PROJECT_SOURCE_DIR}/experiments/rowsweep_*.ini)
list(TRANSFORM KLAB_TORCH_ROWS_INIS PREPEND "--ini=")
add_test(NAME torch_rows_dry_run
         COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tools/torch_rows.py --dry-run --build ${PROJECT_BINARY_DIR}
                 ${KLAB_TORCH_ROWS_INIS})
# the GEMM family's PyTorch side from its INIs' dim.* alone: each plugin's callables and the
# tensors they wrap with the shapes the plugin's layouts give (A m x k and B k x n; fp8's bf16 A and W
# n x k beside the e4m3 copies and their scales; the gated MLP's x and the two f x k weights); no case
# of the three skipped
add_test(NAME torch_rows_dry_run_gemm
         COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tools/torch_rows.py --dry-run --build ${PROJECT_BINARY_DIR}
                 --plugins matmul_h200,fp8_gemm,fused_gated_mlp)
set_tests_properties(torch_rows_dry_run_gemm PROPERTIES LABELS unit FAIL_REGULAR_EXPRESSION "skipped|Error"
  PASS_REGULAR_EXPRESSION "mlp-down-4096 +- +bf16,fp16 +1500 ms  torch\\.matmul, torch\\.compile-max-autotune  \\[a\\[4096, 14336\\] b\\[14336, 4096\\]\\] dim\\.m=4096 dim\\.n=4096 dim\\.k=14336.*64x7168x4096 .* torch\\.fp8-each-call, torch\\.compile, torch\\._scaled_mm  \\[a\\[64, 4096\\] w\\[7168, 4096\\] a_e4m3\\[64, 4096\\] w_e4m3\\[7168, 4096\\] scales\\[8\\]\\] param\\.fast_accum=1 .*4096x4096to14336-gelu .* torch\\.eager, torch\\.compile, torch\\.compile-max-autotune  \\[x\\[4096, 4096\\] w_gate\\[14336, 4096\\] w_up\\[14336, 4096\\]\\] param\\.activation=gelu dim\\.m=4096 dim\\.k=4096 dim\\.f=14336")
# --compare sets fp8_gemm's PyTorch rows beside the klab profile each stands for (quantise-each-call
# beside autoquant, torch._scaled_mm beside prequant), not beside the fastest klab row (cublaslt here)
add_test(NAME torch_rows_compare_fp8
         COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tools/torch_rows.py
                 --compare ${KLAB_TESTS_DIR}/fixtures/csv/torch_compare_fp8.csv)
set_tests_properties(torch_rows_compare_fp8 PROPERTIES LABELS unit PASS_REGULAR_EXPRESSION
  "torch\\.fp8-each-call +400\\.00 .*autoquant +200\\.00 +ratio +2\\.000.*torch\\._scaled_mm +100\\.00 .*prequant +110\\.00 +ratio +0\\.909")
# matmul_h200 has no 'fused': its PyTorch rows stand beside wgmma_persistent, not beside the fastest klab
# row, which here is the plugin's cuBLAS baseline (torch.matmul's own kernel)
add_test(NAME torch_rows_compare_matmul
         COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tools/torch_rows.py
                 --compare ${KLAB_TESTS_DIR}/fixtures/csv/torch_compare_matmul.csv)
set_tests_properties(torch_rows_compare_matmul PROPERTIES LABELS unit FAIL_REGULAR_EXPRESSION " cublas " PASS_REGULAR_EXPRESSION
  "torch\\.matmul +171\\.00 .*wgmma_persistent +190\\.00 +ratio +0\\.900")

# tools/klab/ and klab agree: INIs accepted and refused with klab's messages, klab's statistics, a row
# klab reads back and writes again byte for byte, a plugin described as klab loads it; torch_rows.py's
# --units, --quick and --phases-out (test_klab_package.py)
add_test(NAME klab_package COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/test_klab_package.py ${PROJECT_BINARY_DIR})
set_tests_properties(klab_package PROPERTIES LABELS unit)

# tools/torch_decode.py: the plan of every decode_replay case without torch or a GPU, its bytes from the
# plugin's own work() (the rows' gbps must use klab's count), and fewer than 1000 steps refused
add_test(NAME torch_decode_dry_run
         COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tools/torch_decode.py --dry-run --build ${PROJECT_BINARY_DIR})
set_tests_properties(torch_decode_dry_run PROPERTIES LABELS unit
                     PASS_REGULAR_EXPRESSION "long-kv-dyn +bf16 .*KV dynamic \\[1, 32768\\].*503\\.4 MB a step")
add_test(NAME torch_decode_few_steps
         COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tools/torch_decode.py --dry-run --steps 999)
set_tests_properties(torch_decode_few_steps PROPERTIES LABELS unit PASS_REGULAR_EXPRESSION "--steps must be at least 1000")
# tools/decode_probes.py: rows, ratio intervals, steps, kernels, pairing and enqueue tables of a fixture
# worked by hand with klab's statistics (libklab_bench), and the median's interval against core/interval.c's ranks
add_test(NAME decode_probes COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/test_decode_probes.py
         ${PROJECT_BINARY_DIR})
set_tests_properties(decode_probes PROPERTIES LABELS unit)
# tools/torch_rows.py's meta.ini part without torch or a GPU: the entries kb_write_meta gets, whose
# meta.ini a folder holds, no folder in a dry run (the file itself: test_run_meta, test_gpu_bench)
add_test(NAME torch_meta COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/test_torch_meta.py ${PROJECT_BINARY_DIR})
set_tests_properties(torch_meta PROPERTIES LABELS unit)
