# Writes version.h with the current commit at every build (not only at configure), rewriting the file
# only when the text changes so that nothing recompiles needlessly.
execute_process(COMMAND git -C "${SRC}" rev-parse --short=12 HEAD
                OUTPUT_VARIABLE KLAB_GIT_COMMIT OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR KLAB_GIT_COMMIT STREQUAL "")
  # a copy of the tree without its history (the GPU machine gets one): the caller may say the commit
  if(DEFINED ENV{KLAB_COMMIT} AND NOT "$ENV{KLAB_COMMIT}" STREQUAL "")
    set(KLAB_GIT_COMMIT "$ENV{KLAB_COMMIT}")
  else()
    set(KLAB_GIT_COMMIT "unknown")
  endif()
else()
  execute_process(COMMAND git -C "${SRC}" status --porcelain --untracked-files=no
                  OUTPUT_VARIABLE dirty OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(NOT dirty STREQUAL "")
    string(APPEND KLAB_GIT_COMMIT "-dirty")
  endif()
endif()
configure_file("${IN}" "${OUT}.tmp" @ONLY)
file(COPY_FILE "${OUT}.tmp" "${OUT}" ONLY_IF_DIFFERENT)
