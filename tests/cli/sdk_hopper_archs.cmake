# cmake -DKLAB_PLUGIN_CMAKE=.../KlabPlugin.cmake -P sdk_hopper_archs.cmake: klab_hopper_missing, the
# rule behind klab_add_plugin's warning, over the architecture lists people write.
include(${KLAB_PLUGIN_CMAKE})
function(expect archs want)
  klab_hopper_missing("${archs}" got)
  if(NOT got STREQUAL want)
    message(FATAL_ERROR "klab_hopper_missing(\"${archs}\") is ${got}, expected ${want}")
  endif()
endfunction()
expect("75" TRUE)            # nvcc 13's default, what an unset CMAKE_CUDA_ARCHITECTURES gives
expect("80;86;89" TRUE)
expect("" TRUE)
expect("100a;120" TRUE)      # Blackwell alone: no Hopper code either
expect("900" TRUE)           # not sm_90
expect("80;90a" FALSE)       # klab's own default
expect("90" FALSE)
expect("90-real" FALSE)
expect("90a-virtual" FALSE)
expect("all-major" FALSE)
expect("native" FALSE)       # the build machine's own GPU: cannot be judged here
message(STATUS "klab_hopper_missing: all cases as expected")
