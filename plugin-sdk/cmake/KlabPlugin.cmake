# klab_hopper_missing(ARCHS OUT): OUT is TRUE when the CUDA architecture list ARCHS builds no code a
# Hopper GPU (sm_90, sm_90a) runs natively. klab's kernels are measured on Hopper; a plugin built for
# CMake's default (nvcc's, sm_75 in CUDA 13) runs there only through the JIT, or not at all for
# sm_90a code, which is worth a word at configure time rather than a skipped row on the GPU.
function(klab_hopper_missing archs out)
  set(missing TRUE)
  foreach(a IN LISTS archs)
    if(a MATCHES "^(90a?(-real|-virtual)?|all|all-major|native)$")
      set(missing FALSE)
    endif()
  endforeach()
  set(${out} ${missing} PARENT_SCOPE)
endfunction()

# klab_add_plugin(NAME SOURCES src... [TORCH NAME_torch.py] [KEEP_EXPORTS])
#
# Builds a klab plugin: a shared object named NAME.so (no "lib" prefix: the host takes the plugin's
# name from the file's stem) that exports only klab_plugin_entry, so its other symbols can clash with
# nothing. Hidden visibility does that for the plugin's own code; a linker version script does it for
# whatever else lands in the object (a toolchain that links libstdc++ statically exported hundreds of
# its symbols). KEEP_EXPORTS skips the script (the lab's own tests of symbol clashes need that).
# TORCH names the plugin's PyTorch baselines (tools/klab/torch_module.py has the contract): copied beside
# NAME.so whenever it changes, where klab --with-torch looks for it, and installed with the plugin by
# klab_install_plugins. Used by the lab's own plugins and, through find_package(klab), by out-of-tree ones.
# Warns when a plugin with CUDA sources is built for no Hopper architecture (klab_hopper_missing, above).
function(klab_add_plugin name)
  cmake_parse_arguments(ARG "KEEP_EXPORTS" "TORCH" "SOURCES" ${ARGN})
  add_library(${name} MODULE ${ARG_SOURCES})
  set_target_properties(${name} PROPERTIES
    PREFIX ""
    C_VISIBILITY_PRESET hidden
    CXX_VISIBILITY_PRESET hidden
    CUDA_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON)
  if(ARG_SOURCES MATCHES "\\.cu(;|$)")
    get_target_property(archs ${name} CUDA_ARCHITECTURES)
    klab_hopper_missing("${archs}" missing)
    if(missing)
      message(WARNING "klab_add_plugin(${name}): CMAKE_CUDA_ARCHITECTURES is '${archs}', no Hopper "
                      "architecture (90 or 90a): on an H100 or H200 it runs only through the PTX JIT, if "
                      "at all. Set it, e.g. -DCMAKE_CUDA_ARCHITECTURES=90a.")
    endif()
  endif()
  if(DEFINED KLAB_PLUGIN_OUTPUT_DIR)
    set_target_properties(${name} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${KLAB_PLUGIN_OUTPUT_DIR})
  endif()
  if(DEFINED KLAB_C_WARNINGS)
    target_compile_options(${name} PRIVATE $<$<COMPILE_LANGUAGE:C>:${KLAB_C_WARNINGS}>
                                           $<$<COMPILE_LANGUAGE:CUDA>:${KLAB_CUDA_WARNINGS}>)
  endif()
  target_link_libraries(${name} PRIVATE klab::sdk CUDA::cudart)
  # a plugin with an undefined symbol is refused at dlopen; better to fail here, at link time
  target_link_options(${name} PRIVATE -Wl,--no-undefined)
  if(NOT ARG_KEEP_EXPORTS)
    set(map ${CMAKE_CURRENT_BINARY_DIR}/klab_plugin_exports.map)
    if(NOT EXISTS ${map})
      file(WRITE ${map} "{ global: klab_plugin_entry; local: *; };\n")
    endif()
    target_link_options(${name} PRIVATE -Wl,--version-script=${map})
    set_property(TARGET ${name} APPEND PROPERTY LINK_DEPENDS ${map})
  endif()
  if(ARG_TORCH)
    get_filename_component(module ${ARG_TORCH} ABSOLUTE)
    get_filename_component(module_name ${ARG_TORCH} NAME)
    if(NOT module_name STREQUAL "${name}_torch.py")
      message(FATAL_ERROR "klab_add_plugin(${name}): TORCH ${ARG_TORCH} must be named ${name}_torch.py, "
                          "the name klab looks for beside ${name}.so")
    endif()
    # beside the .so wherever it is built; a change to the module relinks the plugin, which copies it
    add_custom_command(TARGET ${name} POST_BUILD
      COMMAND ${CMAKE_COMMAND} -E copy_if_different ${module} $<TARGET_FILE_DIR:${name}>/${module_name} VERBATIM)
    set_property(TARGET ${name} APPEND PROPERTY LINK_DEPENDS ${module})
    set_target_properties(${name} PROPERTIES KLAB_TORCH_MODULE ${module})
  endif()
endfunction()

# klab_install_plugins(TARGETS name... [DESTINATION dir])
#
# Installs each plugin and, when klab_add_plugin was given one, its PyTorch module beside it. DESTINATION
# defaults to klab_PLUGIN_DIR (find_package(klab): the plugin folder of the klab found), where an
# installed klab looks by itself.
function(klab_install_plugins)
  cmake_parse_arguments(ARG "" "DESTINATION" "TARGETS" ${ARGN})
  if(NOT ARG_DESTINATION)
    if(NOT DEFINED klab_PLUGIN_DIR)
      message(FATAL_ERROR "klab_install_plugins: no DESTINATION, and no klab_PLUGIN_DIR (find_package(klab))")
    endif()
    set(ARG_DESTINATION ${klab_PLUGIN_DIR})
  endif()
  install(TARGETS ${ARG_TARGETS} LIBRARY DESTINATION ${ARG_DESTINATION})
  foreach(t ${ARG_TARGETS})
    get_target_property(module ${t} KLAB_TORCH_MODULE)
    if(module)
      install(FILES ${module} DESTINATION ${ARG_DESTINATION})
    endif()
  endforeach()
endfunction()
