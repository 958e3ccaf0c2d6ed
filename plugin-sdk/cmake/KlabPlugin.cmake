# klab_add_plugin(NAME SOURCES src... [KEEP_EXPORTS])
#
# Builds a klab plugin: a shared object named NAME.so (no "lib" prefix: the host takes the plugin's
# name from the file's stem) that exports only klab_plugin_entry, so its other symbols can clash with
# nothing. Hidden visibility does that for the plugin's own code; a linker version script does it for
# whatever else lands in the object (a toolchain that links libstdc++ statically exported hundreds of
# its symbols). KEEP_EXPORTS skips the script (the lab's own tests of symbol clashes need that).
# Used by the lab's own plugins and, through find_package(klab), by out-of-tree ones.
function(klab_add_plugin name)
  cmake_parse_arguments(ARG "KEEP_EXPORTS" "" "SOURCES" ${ARGN})
  add_library(${name} MODULE ${ARG_SOURCES})
  set_target_properties(${name} PROPERTIES
    PREFIX ""
    C_VISIBILITY_PRESET hidden
    CXX_VISIBILITY_PRESET hidden
    CUDA_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON)
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
endfunction()
