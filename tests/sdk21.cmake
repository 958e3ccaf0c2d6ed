# Plugin ABI 2.1: the hooks that get the context and host, check_param, the profile list, the device
# service, and a plugin built against the 2.0 header as it shipped (tests/plugins/sdk20/klab/plugin.h,
# found before the SDK's by the quoted include beside its source).
klab_add_plugin(sdk20_plugin SOURCES plugins/sdk20/sdk20_plugin.c)
klab_add_plugin(sdk21_hooks SOURCES plugins/sdk21/sdk21_hooks.c)
klab_test(test_sdk21 SOURCES test_sdk21.c klab_run.c LABELS plugins)
add_dependencies(test_sdk21 klab sdk20_plugin sdk21_hooks)
# the descriptor by field name from C++20: a plugin that builds (and loads, test_sdk21), and one whose
# fields are out of order, which the compiler refuses
klab_add_plugin(sdk21_cxx SOURCES plugins/sdk21/sdk21_cxx.cpp)
set_target_properties(sdk21_cxx PROPERTIES CXX_STANDARD 20 CXX_STANDARD_REQUIRED ON CXX_EXTENSIONS OFF)
# g++ 12 under -Wextra warns of every field a designated initializer leaves out, which is the point
target_compile_options(sdk21_cxx PRIVATE -Wall -Wextra -Werror -Wno-missing-field-initializers)
add_dependencies(test_sdk21 sdk21_cxx)
add_test(NAME sdk21_cxx_field_order
  COMMAND ${CMAKE_CXX_COMPILER} -std=c++20 -fsyntax-only -I${PROJECT_SOURCE_DIR}/plugin-sdk/include
          ${CMAKE_CURRENT_SOURCE_DIR}/plugins/sdk21/sdk21_cxx_misordered.cpp)
set_tests_properties(sdk21_cxx_field_order PROPERTIES LABELS "plugins;sdk"
  PASS_REGULAR_EXPRESSION "designator order")
# klab/convert.h: the half, bfloat16 and fp8 conversions against known values and the host's widening
klab_test(test_convert SOURCES test_convert.c LABELS unit)
# kb_verify_cpu: a plugin's verify() against outputs computed on the CPU, with no GPU (libklab_bench)
klab_test(test_verify_cpu SOURCES test_verify_cpu.c klab_run.c LABELS plugins)
target_link_libraries(test_verify_cpu PRIVATE klab_bench)
target_include_directories(test_verify_cpu PRIVATE ${PROJECT_SOURCE_DIR}/core)
add_dependencies(test_verify_cpu vector_add)
# klab_add_plugin warns when no Hopper architecture is built: the rule, over the lists people write
add_test(NAME sdk_hopper_archs
  COMMAND ${CMAKE_COMMAND} -DKLAB_PLUGIN_CMAKE=${PROJECT_SOURCE_DIR}/plugin-sdk/cmake/KlabPlugin.cmake
          -P ${CMAKE_CURRENT_SOURCE_DIR}/sdk_hopper_archs.cmake)
set_tests_properties(sdk_hopper_archs PROPERTIES LABELS "plugins;sdk")
