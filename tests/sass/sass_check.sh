#!/bin/sh
# sass_check.sh PLUGIN.so PATTERN...
#
# The machine code of a plugin, for every architecture it carries (cuobjdump --dump-sass):
#   - no kernel touches local memory (LDL/STL: a register array indexed at run time, or a spill);
#   - every kernel whose mangled name matches a PATTERN (an awk regular expression) loads global memory
#     16 bytes at a time (LDG.E.128, with whatever cache qualifiers), and each PATTERN matches a kernel.
#     ARCH:PATTERN looks only at the code for ARCH (sm_90a:cluster_kernel: kernels that other
#     architectures build as a trap).
# TAP output. Skipped (exit 77) when cuobjdump is missing: CUDA 13 ships without it here;
# ../shared/tools/sass-tools.sh puts it on PATH, and so does KLAB_CUOBJDUMP=/path/to/cuobjdump.
set -u
so=$1
shift
tool=${KLAB_CUOBJDUMP:-}
if [ -z "$tool" ]; then
  tool=$(command -v cuobjdump 2>/dev/null || true)
fi
if [ -z "$tool" ] && [ -n "${KLAB_NVCC:-}" ] && [ -x "$(dirname "$KLAB_NVCC")/cuobjdump" ]; then
  tool="$(dirname "$KLAB_NVCC")/cuobjdump"
fi
if [ -z "$tool" ]; then
  for t in "${SASS_TOOLS_VENV:-$HOME/.cache/klab-sass-tools}"/lib/python3*/site-packages/nvidia/cu13/bin/cuobjdump; do
    [ -x "$t" ] && tool=$t
  done
fi
if [ -z "$tool" ]; then
  echo "1..0 # SKIP cuobjdump not found (../shared/tools/sass-tools.sh, or KLAB_CUOBJDUMP)"
  exit 77
fi
# sass_check.sh --tool: print the cuobjdump found, for the other SASS scripts (sass_matmul_h200.sh)
if [ "$so" = "--tool" ]; then
  printf '%s\n' "$tool"
  exit 0
fi
if [ ! -r "$so" ]; then
  echo "not ok 1 - $so is not readable"
  exit 1
fi
sass=$("$tool" --dump-sass "$so") || { echo "not ok 1 - $tool --dump-sass $so failed"; exit 1; }

printf '%s\n' "$sass" | awk -v patterns="$*" -v so="$(basename "$so")" '
  function flush() {
    if (fn == "") return
    nfn++
    if (local[fn]) nlocal++
    if (local[fn]) bad[++nbad] = arch " " fn ": " local[fn] " local-memory instructions (LDL/STL)"
    for (i = 1; i <= np; i++)
      if (fn ~ pat[i] && (parch[i] == "" || parch[i] == arch)) {
        matched[i]++
        if (!wide) { narrow[i]++; bad[++nbad] = arch " " fn ": no 16-byte global load (LDG.E.128)" }
      }
  }
  BEGIN {
    np = split(patterns, pat, " ")
    for (i = 1; i <= np; i++) {
      show[i] = pat[i]
      if (match(pat[i], /^sm_[0-9a-z]+:/)) { parch[i] = substr(pat[i], 1, RLENGTH - 1); pat[i] = substr(pat[i], RLENGTH + 1) }
    }
  }
  /^[ \t]*arch = / { flush(); fn = ""; arch = $3 }
  /Function : / { flush(); fn = $3; wide = 0; local[fn] = 0; next }
  /[ \t]LD[L][ .]|[ \t]ST[L][ .]/ { local[fn]++ }
  /LDG\.E(\.[A-Z0-9]+)*\.128/ { wide = 1 }
  END {
    flush()
    n = 0
    for (i = 1; i <= np; i++) {
      n++
      if (!matched[i]) { print "not ok " n " - " so ": no kernel matches " show[i]; fail = 1 }
      else if (narrow[i]) { print "not ok " n " - " so ": " narrow[i] " of " matched[i] " kernels matching " show[i] " lack 16-byte loads"; fail = 1 }
      else print "ok " n " - " so ": " matched[i] " kernels match " show[i] ", each with 16-byte loads"
    }
    n++
    if (nlocal) {
      print "not ok " n " - " so ": " nlocal " of " nfn " kernels touch local memory"
      fail = 1
    } else
      print "ok " n " - " so ": " nfn " kernels, none touches local memory"
    for (i = 1; i <= nbad; i++) print "# " bad[i]
    print "1.." n
    exit fail
  }'
