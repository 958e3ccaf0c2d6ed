# Plugin tests: the loader's refusals, fault isolation through the klab binary, and the SDK used from
# outside the tree. Their plugins are built with klab_add_plugin() into build/tests/plugins
# (KLAB_PLUGIN_OUTPUT_DIR, set in tests/CMakeLists.txt), never beside the real ones.

# ---- tests/plugins/abi: one plugin per refusal of core/loader.c, and good ones ----
set(KLAB_ABI_PLUGINS
  abi_no_entry abi_null_entry abi_major3 abi_small_struct abi_no_profiles abi_bad_baseline abi_dtype0
  abi_name_mismatch abi_good abi_short_struct abi_v1 abi_half_hook)
foreach(p ${KLAB_ABI_PLUGINS})
  klab_add_plugin(${p} SOURCES plugins/abi/${p}.c)
endforeach()
# one source, two plugins: klab_add_variant(NAME SOURCE [DEFINE]) builds NAME.so from
# plugins/abi/SOURCE.c with ABI_PLUGIN_NAME="NAME" and DEFINE
function(klab_add_variant name source)
  klab_add_plugin(${name} SOURCES plugins/abi/${source}.c)
  target_compile_definitions(${name} PRIVATE ABI_PLUGIN_NAME="${name}" ${ARGN})
endfunction()
# dtype bits of a later ABI beside fp32 (ignored), and alone (nothing left: refused)
klab_add_variant(abi_dtype_unknown abi_dtype_unknown)
klab_add_variant(abi_dtype_future abi_dtype_unknown ABI_FUTURE_ONLY)
# a 2.2 plugin in this 2.1 host: an appended descriptor field; larger profiles
klab_add_variant(abi_v22_desc abi_v22 ABI_V22_DESC)
klab_add_variant(abi_v22_profile abi_v22)
# 2.0 fields the loader checks: an empty archs list; a profile_size too small
klab_add_variant(abi_bad_archs abi_bad_archs)
klab_add_variant(abi_small_profile abi_bad_archs ABI_SMALL_PROFILE)
# 2.1's parallel_for: a plugin of 2.0 (minor 0, no parallel_for) and one of 2.1 that uses it
klab_add_variant(abi_v20 abi_parallel ABI_AS_V20)
klab_add_variant(abi_v21_parallel abi_parallel)
list(APPEND KLAB_ABI_PLUGINS abi_dtype_unknown abi_dtype_future abi_v22_desc abi_v22_profile abi_bad_archs
  abi_small_profile abi_v20 abi_v21_parallel)
# each required hook left NULL in turn: abi_no_setup.so ... abi_no_teardown.so
foreach(hook setup run verify teardown)
  klab_add_variant(abi_no_${hook} abi_missing_hook ABI_MISSING_${hook})
  list(APPEND KLAB_ABI_PLUGINS abi_no_${hook})
endforeach()
# two plugins exporting host-named functions (stats_compute, checksum_update), for RTLD_LOCAL
klab_add_plugin(abi_interpose_a SOURCES plugins/abi/abi_interpose.c KEEP_EXPORTS)
target_compile_definitions(abi_interpose_a PRIVATE ABI_PLUGIN_NAME="abi_interpose_a" INTERPOSE_MARK=111)
klab_add_plugin(abi_interpose_b SOURCES plugins/abi/abi_interpose.c KEEP_EXPORTS)
target_compile_definitions(abi_interpose_b PRIVATE ABI_PLUGIN_NAME="abi_interpose_b" INTERPOSE_MARK=222)
list(APPEND KLAB_ABI_PLUGINS abi_interpose_a abi_interpose_b)
# not an ELF file at all, under a plugin's name: a text file copied to not_elf.so at build time
add_custom_command(OUTPUT ${KLAB_PLUGIN_OUTPUT_DIR}/not_elf.so
  COMMAND ${CMAKE_COMMAND} -E make_directory ${KLAB_PLUGIN_OUTPUT_DIR}
  COMMAND ${CMAKE_COMMAND} -E copy ${CMAKE_CURRENT_SOURCE_DIR}/plugins/abi/not_elf.txt
          ${KLAB_PLUGIN_OUTPUT_DIR}/not_elf.so
  DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/plugins/abi/not_elf.txt
  COMMENT "Writing a plugin that is not an ELF file: not_elf.so" VERBATIM)
add_custom_target(abi_not_elf ALL DEPENDS ${KLAB_PLUGIN_OUTPUT_DIR}/not_elf.so)
list(APPEND KLAB_ABI_PLUGINS abi_not_elf)

klab_test(test_loader SOURCES test_loader.c LABELS plugins)
add_dependencies(test_loader ${KLAB_ABI_PLUGINS})

# ---- tests/plugins/abi2: one plugin per ABI 2.0 capability (GPU tests in test_gpu, CPU ones here) ----
set(KLAB_ABI2_PLUGINS abi2_fp8 abi2_int32 abi2_sampled abi2_arch abi2_tuning abi2_steps)
foreach(p ${KLAB_ABI2_PLUGINS})
  klab_add_plugin(${p} SOURCES plugins/abi2/${p}.cu)
endforeach()

klab_test(test_abi2_plugins SOURCES test_abi2_plugins.c klab_run.c LABELS plugins)
add_dependencies(test_abi2_plugins klab vector_add abi_half_hook ${KLAB_ABI2_PLUGINS})

# ---- tests/plugins/crash: plugins that crash or hang in a worker, run through the klab binary ----
set(KLAB_CRASH_PLUGINS crash_entry crash_ctor crash_hang crash_good crash_exit10 crash_stall)
foreach(p ${KLAB_CRASH_PLUGINS})
  klab_add_plugin(${p} SOURCES plugins/crash/${p}.c)
endforeach()

klab_test(test_isolation SOURCES test_isolation.c klab_run.c LABELS plugins)
add_dependencies(test_isolation klab vector_add ${KLAB_CRASH_PLUGINS})
# the hang test waits out a 2 s watchdog; the rest is fast
set_tests_properties(test_isolation PROPERTIES TIMEOUT 120)

# workers that die with their parent, SIGINT/SIGTERM to klab, the silence watchdog, protocol refusals;
# the run with a partial CSV needs a GPU and skips that one test without one
klab_test(test_supervisor SOURCES test_supervisor.c klab_run.c klab_bg.c LABELS plugins)
add_dependencies(test_supervisor klab ${KLAB_CRASH_PLUGINS})
set_tests_properties(test_supervisor PROPERTIES TIMEOUT 120)

if(NOT KLAB_SANITIZE) # an install and a build of its own: the normal build's (CMakeLists.txt)
# ---- the SDK from outside: install, then build plugin-sdk/examples/saxpy with CMake and pkg-config ----
add_test(NAME sdk_out_of_tree
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/sdk_out_of_tree.sh ${PROJECT_BINARY_DIR}
          ${PROJECT_SOURCE_DIR}/plugin-sdk/examples/saxpy)
set_tests_properties(sdk_out_of_tree PROPERTIES
  TIMEOUT 600 LABELS "plugins;sdk"
  ENVIRONMENT "CMAKE_COMMAND=${CMAKE_COMMAND};KLAB_NVCC=${CMAKE_CUDA_COMPILER};KLAB_CMAKE_GENERATOR=${CMAKE_GENERATOR}")
# ---- a plugin with its PyTorch module from outside: plugin-sdk/examples/leaky_relu, installed klab's
# --validate, --with-torch --validate and report over tests/fixtures/runs/leaky_relu ----
add_test(NAME sdk_example_torch
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/sdk_example_torch.sh ${PROJECT_BINARY_DIR}
          ${PROJECT_SOURCE_DIR}/plugin-sdk/examples/leaky_relu ${CMAKE_CURRENT_SOURCE_DIR}/fixtures/runs/leaky_relu)
set_tests_properties(sdk_example_torch PROPERTIES
  TIMEOUT 600 LABELS "plugins;sdk"
  ENVIRONMENT "CMAKE_COMMAND=${CMAKE_COMMAND};KLAB_NVCC=${CMAKE_CUDA_COMPILER};KLAB_CMAKE_GENERATOR=${CMAKE_GENERATOR}")
endif()

# These drive the klab binary, and where a GPU is present some of their runs reach it (the supervisor's
# stalled run, the isolation tests' workers probe it): they take the GPU tests' lock, so no GPU test
# ever times beside them (a run beside test_gpu's first case read as 2 ms of escaped work).
set_tests_properties(test_abi2_plugins test_isolation test_supervisor PROPERTIES RESOURCE_LOCK gpu)
