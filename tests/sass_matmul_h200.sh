#!/bin/sh
# sass_matmul_h200.sh MATMUL_H200.so — the machine code of matmul_h200.so (tests/unit.cmake runs this):
#   - every hopper_gemm kernel (hg::gemm_kernel) built for sm_90a issues wgmma (HGMMA) and loads
#     through the tensor copy engine (UTMALDG), and the cluster variants multicast (UTMALDG...MULTICAST);
#   - the tiled kernel issues mma.sync (HMMA) on every architecture built;
#   - no kernel touches local memory (LDL/STL: a spill, or a register array indexed at run time) or has
#     a stack frame.
# Prints one line a kernel: arch, registers, HGMMA, UTMALDG, local-memory instructions (what
# docs/notes/matmul_h200.md records). TAP; skipped (exit 77) without cuobjdump (sass_check.sh --tool).
set -u
so=$1
# sass_check.sh finds the tool (or says why not, exit 77)
tool=$(sh "$(dirname "$0")/sass_check.sh" --tool)
rc=$?
if [ $rc -ne 0 ]; then
  printf '%s\n' "$tool"
  exit $rc
fi
sass=$("$tool" --dump-sass "$so") || { echo "not ok 1 - $tool --dump-sass $so failed"; exit 1; }
usage=$("$tool" --dump-resource-usage "$so") || { echo "not ok 1 - --dump-resource-usage failed"; exit 1; }
# registers and stack a function, from the resource usage: "arch function regs stack"
regs=$(printf '%s\n' "$usage" | awk '/^ *arch = / { arch = $3 } /Function / { f = $2; sub(/:$/, "", f) }
  /REG:/ { r = s = ""; for (i = 1; i <= NF; i++) { if ($i ~ /^REG:/) r = substr($i, 5); if ($i ~ /^STACK:/) s = substr($i, 7) }
           print arch, f, r, s }')
printf '%s\n' "$sass" | awk -v regs="$regs" '
  BEGIN { n = split(regs, lines, "\n"); for (i = 1; i <= n; i++) { split(lines[i], w, " "); reg[w[1] " " w[2]] = w[3]; stk[w[1] " " w[2]] = w[4] } }
  function flush() {
    if (fn == "") return
    key = arch " " fn
    short = fn; sub(/^_ZN2hg11/, "hg::", short); sub(/^_ZN.*tiled_kernel/, "tiled_kernel", short)
    printf "# %s %s regs=%s stack=%s hgmma=%d utmaldg=%d multicast=%d hmma=%d local=%d\n", arch, short, reg[key], stk[key], hg, tma, mc, hm, loc
    if (fn ~ /gemm_kernel/ && arch == "sm_90a") {
      ngemm++
      if (!hg || !tma) bad[++nbad] = arch " " fn ": HGMMA " hg ", UTMALDG " tma
      if (fn ~ /Li2EEE/ && !mc) bad[++nbad] = arch " " fn ": a cluster of 2 without a multicast load"
    }
    if (fn ~ /tiled_kernel/) { ntiled++; if (!hm) bad[++nbad] = arch " " fn ": no HMMA" }
    if (loc || (stk[key] != "" && stk[key] != "0")) { nlocal++; bad[++nbad] = arch " " fn ": local memory " loc ", stack " stk[key] }
  }
  /^[ \t]*arch = / { flush(); fn = ""; arch = $3 }
  /Function : / { flush(); fn = $3; hg = tma = mc = hm = loc = 0; next }
  fn != "" && /HGMMA/ { hg++ }
  fn != "" && /UTMALDG/ { tma++; if ($0 ~ /MULTICAST/) mc++ }
  fn != "" && /HMMA/ { hm++ }
  fn != "" && /[ \t]LD[L][ .]|[ \t]ST[L][ .]/ { loc++ }
  END {
    flush()
    fail = 0
    if (ngemm < 14) { print "not ok 1 - only " ngemm " hg::gemm_kernel functions for sm_90a"; fail = 1 } else print "ok 1 - " ngemm " sm_90a hg::gemm_kernel functions"
    if (ntiled < 2) { print "not ok 2 - only " ntiled " tiled_kernel functions"; fail = 1 } else print "ok 2 - " ntiled " tiled_kernel functions"
    if (nbad) { print "not ok 3 - HGMMA/UTMALDG/HMMA present, no local memory"; fail = 1 } else print "ok 3 - HGMMA/UTMALDG/HMMA present, no local memory"
    for (i = 1; i <= nbad; i++) print "#   " bad[i]
    print "1..3"
    exit fail
  }'
