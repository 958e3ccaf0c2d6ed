#!/bin/sh
# The row-kernel skeleton's machine code (tests/sass/tests.cmake runs this): in every instantiation of
# rowk::row_kernel in rmsnorm.so, softmax.so and rmsnorm_rope.so, for every architecture built, the row
# moves through 16-byte global loads and stores (LDG.E.128, or LDG.E.EL.128 / LDG.E.EF.128 with the L1
# eviction priority of the wide streaming kernels; STG.E.128), and nothing goes to local memory
# (no LDL/STL, no stack frame: a run-time index into a register array, or a spill, would put it there).
# The ring plan's kernels (rowk::ring_kernel, row_ring.cuh), in their sm_90 code: the row comes in by
# bulk copies (UBLKCP) and leaves through 16-byte stores, and nothing goes to local memory either (their
# sm_80 code is a trap: ring plans are declined there before launch).
# Skipped (exit 77) where cuobjdump is missing: CUDA 13 ships without it here;
# `export PATH="$(../shared/tools/sass-tools.sh):$PATH"` brings it.
#   usage: sass_rows.sh BUILD_DIR
set -u
build=$1
tool=$(command -v cuobjdump 2>/dev/null)
[ -z "$tool" ] && [ -x /usr/local/cuda/bin/cuobjdump ] && tool=/usr/local/cuda/bin/cuobjdump
if [ -z "$tool" ]; then
  for t in "$HOME"/.cache/klab-sass-tools/lib/python3*/site-packages/nvidia/cu13/bin/cuobjdump; do
    [ -x "$t" ] && tool=$t
  done
fi
if [ -z "$tool" ]; then
  echo "1..0 # SKIP cuobjdump not found (export PATH=\"\$(../shared/tools/sass-tools.sh):\$PATH\")"
  exit 77
fi
fail=0
n=0
for p in rmsnorm softmax rmsnorm_rope; do
  so=$build/plugins/$p.so
  n=$((n + 1))
  if [ ! -f "$so" ]; then
    echo "not ok $n - $p: $so not built"
    fail=1
    continue
  fi
  # one line a row_kernel function: name, 128-bit loads, 128-bit stores, local-memory instructions
  report=$("$tool" --dump-sass "$so" | awk '
    /Function : / { if (f != "") print f, ld, st, loc; f = ""; if ($0 ~ /row_kernel/) { f = $NF; ld = st = loc = 0 } next }
    f != "" && /LDG\.E(\.E[LF])?\.128/ { ld++ }
    f != "" && /STG\.E\.128/ { st++ }
    f != "" && /[^A-Z](LDL|STL)[ .]/ { loc++ }
    END { if (f != "") print f, ld, st, loc }')
  usage=$("$tool" --dump-resource-usage "$so" | awk '
    /Function .*row_kernel/ { f = $2 } f != "" && /REG:/ { for (i = 1; i <= NF; i++) if ($i ~ /^(STACK|LOCAL):/ && $i !~ /:0$/) print f, $i; f = "" }')
  ring=$("$tool" --dump-sass "$so" | awk '
    /code for sm_/ { arch = $NF }
    /Function : / { if (f != "") print f, cp, st, loc; f = ""; if ($0 ~ /ring_kernel/ && arch ~ /sm_9/) { f = $NF; cp = st = loc = 0 } next }
    f != "" && /UBLKCP/ { cp++ }
    f != "" && /STG\.E\.128/ { st++ }
    f != "" && /[^A-Z](LDL|STL)[ .]/ { loc++ }
    END { if (f != "") print f, cp, st, loc }')
  rings=$(printf '%s\n' "$ring" | grep -c . )
  badring=$(printf '%s\n' "$ring" | awk 'NF == 4 && ($2 == 0 || $3 == 0 || $4 != 0)')
  ringusage=$("$tool" --dump-resource-usage "$so" | awk '
    /Function .*ring_kernel/ { f = $2 } f != "" && /REG:/ { for (i = 1; i <= NF; i++) if ($i ~ /^(STACK|LOCAL):/ && $i !~ /:0$/) print f, $i; f = "" }')
  want_rings=8 # rmsnorm_rope's too: its baseline normalises through the plain RMSNorm op
  kernels=$(printf '%s\n' "$report" | grep -c . )
  bad=$(printf '%s\n' "$report" | awk 'NF == 4 && ($2 == 0 || $3 == 0 || $4 != 0)')
  if [ "$kernels" -lt 8 ]; then
    echo "not ok $n - $p: only $kernels row_kernel functions in the SASS"
    fail=1
  elif [ -n "$bad" ] || [ -n "$usage" ]; then
    echo "not ok $n - $p: (function, 16-byte loads, 16-byte stores, local-memory instructions)"
    printf '%s\n%s\n' "$bad" "$usage" | sed 's/^/#   /'
    fail=1
  elif [ "$rings" -lt "$want_rings" ] || [ -n "$badring" ] || [ -n "$ringusage" ]; then
    echo "not ok $n - $p: $rings sm_90 ring_kernel functions (want $want_rings); (function, bulk copies, 16-byte stores, local-memory instructions)"
    printf '%s\n%s\n' "$badring" "$ringusage" | sed 's/^/#   /'
    fail=1
  else
    echo "ok $n - $p: $kernels row_kernel functions, each with 16-byte loads and stores, no local memory; $rings sm_90 ring_kernel functions with bulk copies and 16-byte stores, no local memory"
  fi
done
echo "1..$n"
exit $fail
