# Writes version.h with the current commit at every build (not only at configure), rewriting the file
# only when the text changes so that nothing recompiles needlessly.
# KLAB_COMMIT, when set, wins: a tree copied to a GPU host may carry no .git, or one that is not the
# history the tree came from (it would name another commit, "-dirty").
if(DEFINED ENV{KLAB_COMMIT} AND NOT "$ENV{KLAB_COMMIT}" STREQUAL "")
  set(KLAB_GIT_COMMIT "$ENV{KLAB_COMMIT}")
else()
  execute_process(COMMAND git -C "${SRC}" rev-parse --short=12 HEAD
                  OUTPUT_VARIABLE KLAB_GIT_COMMIT OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET
                  RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0 OR KLAB_GIT_COMMIT STREQUAL "")
    set(KLAB_GIT_COMMIT "unknown")
  else()
    execute_process(COMMAND git -C "${SRC}" status --porcelain --untracked-files=no
                    OUTPUT_VARIABLE dirty OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    if(NOT dirty STREQUAL "")
      string(APPEND KLAB_GIT_COMMIT "-dirty")
    endif()
  endif()
endif()
configure_file("${IN}" "${OUT}.tmp" @ONLY)
file(COPY_FILE "${OUT}.tmp" "${OUT}" ONLY_IF_DIFFERENT)
