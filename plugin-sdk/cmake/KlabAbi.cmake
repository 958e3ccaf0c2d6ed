# KLAB_ABI_MAJOR, KLAB_ABI_MINOR and KLAB_ABI_VERSION ("2.0"), read from klab/plugin.h, the one place
# the ABI version is written. The build puts them in the installed CMake package (klab_ABI_*, and the
# package's version: find_package(klab 2.0) accepts an SDK of ABI 2.0 or a later 2.x) and in klab.pc.
file(STRINGS ${CMAKE_CURRENT_LIST_DIR}/../include/klab/plugin.h _klab_abi_lines
     REGEX "^#define KLAB_ABI_(MAJOR|MINOR) [0-9]+$")
foreach(_klab_line IN LISTS _klab_abi_lines)
  if(_klab_line MATCHES "^#define KLAB_ABI_(MAJOR|MINOR) ([0-9]+)$")
    set(KLAB_ABI_${CMAKE_MATCH_1} ${CMAKE_MATCH_2})
  endif()
endforeach()
if(NOT DEFINED KLAB_ABI_MAJOR OR NOT DEFINED KLAB_ABI_MINOR)
  message(FATAL_ERROR "KLAB_ABI_MAJOR and KLAB_ABI_MINOR not found in klab/plugin.h")
endif()
set(KLAB_ABI_VERSION "${KLAB_ABI_MAJOR}.${KLAB_ABI_MINOR}")
