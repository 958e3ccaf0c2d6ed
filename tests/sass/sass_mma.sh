#!/bin/sh
# sass_mma.sh PLUGIN.so ARCH PATTERN MNEMONIC...
#
# Every kernel of PLUGIN.so built for ARCH whose mangled name matches PATTERN (an awk regular expression)
# contains each MNEMONIC (QGMMA: fp8 wgmma; HGMMA: 16-bit wgmma; UTMALDG: a tensor copy engine load),
# and at least one kernel matches. Local memory is sass_check.sh's to check. One line a kernel with the
# counts. TAP; skipped (exit 77) without cuobjdump (sass_check.sh --tool).
set -u
so=$1 arch=$2 pat=$3
shift 3
# sass_check.sh finds the tool (or says why not, exit 77)
tool=$(sh "$(dirname "$0")/sass_check.sh" --tool)
rc=$?
if [ $rc -ne 0 ]; then
  printf '%s\n' "$tool"
  exit $rc
fi
"$tool" --dump-sass "$so" | awk -v want="$arch" -v pat="$pat" -v mn="$*" -v so="$(basename "$so")" '
  function flush() {
    if (fn == "" || arch != want || fn !~ pat) return
    nk++
    line = "# " arch " " fn ":"
    for (i = 1; i <= nm; i++) { line = line " " m[i] "=" c[i]; if (!c[i]) { bad++; miss = miss " " fn " lacks " m[i] ";" } }
    print line
  }
  BEGIN { nm = split(mn, m, " ") }
  /^[ \t]*arch = / { flush(); fn = ""; arch = $3 }
  /Function : / { flush(); fn = $3; for (i = 1; i <= nm; i++) c[i] = 0; next }
  { for (i = 1; i <= nm; i++) if (index($0, m[i])) c[i]++ }
  END {
    flush()
    if (!nk) { print "not ok 1 - " so ": no " want " kernel matches " pat; print "1..1"; exit 1 }
    if (bad) { print "not ok 1 - " so ":" miss; print "1..1"; exit 1 }
    print "ok 1 - " so ": " nk " " want " kernels matching " pat ", each with " mn
    print "1..1"
  }'
