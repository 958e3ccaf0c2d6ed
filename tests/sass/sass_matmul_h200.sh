#!/bin/sh
# sass_matmul_h200.sh MATMUL_H200.so — the machine code of matmul_h200.so (tests/sass/tests.cmake runs this):
#   - every hopper_gemm kernel (hg::gemm_kernel) built for sm_90a issues wgmma (HGMMA) and loads
#     through the tensor copy engine (UTMALDG), and the cluster variants multicast (UTMALDG...MULTICAST);
#   - every kernel with the staged epilogue (TmaStoreEpilogue, epi=tma) writes through stmatrix (STSM)
#     and the copy engine (UTMASTG);
#   - every column-split kernel (COLSPLIT: two consumers over one 256-column tile) issues m64n128 wgmma
#     (HGMMA.64x128x16) and no m64n256;
#   - no remote mbarrier arrival (SYNCS.ARRIVE...RED: a consumer freeing a stage in its peer CTA) comes
#     behind a GPU-scope fence (CGAERRBAR, the tail of `.release.cluster`'s MEMBAR.ALL.GPU): that fence
#     once a k-tile is what held the 2-CTA cluster kernels at ~0.6x (docs/notes/matmul_h200.md);
#   - the tiled kernel issues mma.sync (HMMA) on every architecture built; every skinny kernel built for
#     sm_90a (its other targets trap) issues HMMA and streams B with 16-byte loads past L1: v1 (template
#     argument U > 0) into registers (LDG.E.NA.128: ld.global.nc.L1::no_allocate.v4), v2 (U = 0) into
#     its cp.async ring (LDGSTS.E.BYPASS.LTC128B.128: cp.async.cg ... L2::128B); every skinny v3 kernel
#     (hs::stream_kernel, lib/hopper/hopper_stream.cuh) loads through the copy engine (UTMALDG) and issues
#     wgmma m64n8 or m64n16 reading its weight operand transposed (HGMMA.64x{8,16}x16 ... tnspA);
#   - no kernel touches local memory (LDL/STL: a spill, or a register array indexed at run time) or has
#     a stack frame.
# Prints one line a kernel: arch, registers, HGMMA, UTMALDG, HMMA, local-memory instructions (what
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
    short = fn; sub(/^_ZN2hg11/, "hg::", short); sub(/^_ZN.*tiled_kernel/, "tiled_kernel", short); sub(/^_ZN.*skinny_kernel/, "skinny_kernel", short); sub(/^_ZN2hs13/, "hs::", short)
    printf "# %s %s regs=%s stack=%s hgmma=%d utmaldg=%d multicast=%d utmastg=%d stsm=%d fenced_arrive=%d hmma=%d local=%d\n", arch, short, reg[key], stk[key], hg, tma, mc, tst, stsm, fenced, hm, loc
    if (fn ~ /gemm_kernel/ && arch == "sm_90a") {
      ngemm++
      if (!hg || !tma) bad[++nbad] = arch " " fn ": HGMMA " hg ", UTMALDG " tma
      # Config<T, BM, BN, STAGES, CONSUMERS, B_MN, CLUSTER, PINGPONG, COLSPLIT>: CLUSTER 2 sits between the bools
      if (fn ~ /ELb[01]ELi2ELb[01]ELb[01]EE/) { ncluster++; if (!mc) bad[++nbad] = arch " " fn ": a cluster of 2 without a multicast load" }
      if (fn ~ /TmaStoreEpilogue/) { nstaged++; if (!tst || !stsm) bad[++nbad] = arch " " fn ": epi=tma without UTMASTG (" tst ") or STSM (" stsm ")" }
      # COLSPLIT (the last bool): each consumer runs m64n128 over its half of a 256-column tile, never m64n256
      if (fn ~ /ELb0ELb1EE/) { ncs++; if (!hg128 || hg256) bad[++nbad] = arch " " fn ": column split with HGMMA.64x128 " hg128 ", HGMMA.64x256 " hg256 }
      if (fenced) bad[++nbad] = arch " " fn ": " fenced " remote mbarrier arrivals behind a GPU-scope fence"
    }
    if (fn ~ /tiled_kernel/) { ntiled++; if (!hm) bad[++nbad] = arch " " fn ": no HMMA" }
    if (fn ~ /skinny_kernel/ && arch == "sm_90a") {
      # skinny_kernel<T, W, U, D, J>: U = 0 is v2
      if (fn ~ /skinny_kernelI[0-9]+__[a-z0-9_]+Li[0-9]+ELi0ELi/) { nring++; if (!hm || !ldgsts) bad[++nbad] = arch " " fn ": HMMA " hm ", LDGSTS.E.BYPASS.LTC128B.128 " ldgsts }
      else { nskinny++; if (!hm || !ldna) bad[++nbad] = arch " " fn ": HMMA " hm ", LDG.E.NA.128 " ldna }
    }
    if (fn ~ /stream_kernel/ && arch == "sm_90a") { nstream++; if (!tma || !tnspa) bad[++nbad] = arch " " fn ": UTMALDG " tma ", HGMMA.64x{8,16}x16 tnspA " tnspa }
    if (loc || (stk[key] != "" && stk[key] != "0")) { nlocal++; bad[++nbad] = arch " " fn ": local memory " loc ", stack " stk[key] }
  }
  /^[ \t]*arch = / { flush(); fn = ""; arch = $3 }
  /Function : / { flush(); fn = $3; hg = hg128 = hg256 = tma = mc = hm = loc = tst = stsm = fenced = ldna = ldgsts = tnspa = 0; prev = ""; next }
  fn != "" && /HGMMA/ { hg++; if ($0 ~ /HGMMA\.64x128x16/) hg128++; if ($0 ~ /HGMMA\.64x256x16/) hg256++ }
  fn != "" && /HGMMA\.64x(8|16)x16\..*tnspA/ { tnspa++ }
  fn != "" && /UTMALDG/ { tma++; if ($0 ~ /MULTICAST/) mc++ }
  fn != "" && /HMMA/ { hm++ }
  fn != "" && /LDG\.E\.NA\.128/ { ldna++ }
  fn != "" && /LDGSTS\.E\.BYPASS\.LTC128B\.128/ { ldgsts++ }
  fn != "" && /UTMASTG/ { tst++ }
  fn != "" && /STSM/ { stsm++ }
  fn != "" && /SYNCS\.ARRIVE\.TRANS64\.RED/ && prev ~ /CGAERRBAR/ { fenced++ }
  fn != "" && /\/\*[0-9a-f]+\*\// { prev = $0 }
  fn != "" && /[ \t]LD[L][ .]|[ \t]ST[L][ .]/ { loc++ }
  END {
    flush()
    fail = 0
    # 25 a dtype: 12 variants direct, 7 epi=tma, 3 x (partial, serial) split-K; 7 of them cluster 2
    if (ngemm < 50 || ncluster < 14) { print "not ok 1 - only " ngemm " hg::gemm_kernel functions for sm_90a (" ncluster " of cluster 2)"; fail = 1 } else print "ok 1 - " ngemm " sm_90a hg::gemm_kernel functions, " ncluster " of cluster 2"
    if (ntiled < 2) { print "not ok 2 - only " ntiled " tiled_kernel functions"; fail = 1 } else print "ok 2 - " ntiled " tiled_kernel functions"
    if (nbad) { print "not ok 3 - HGMMA/UTMALDG/HMMA present, UTMASTG/STSM where epi=tma, no fenced remote arrive, no local memory"; fail = 1 } else print "ok 3 - HGMMA/UTMALDG/HMMA present, UTMASTG/STSM where epi=tma, no fenced remote arrive, no local memory"
    for (i = 1; i <= nbad; i++) print "#   " bad[i]
    if (nstaged < 14 || ncs < 4) { print "not ok 4 - only " nstaged " epi=tma hg::gemm_kernel functions (7 variants x bf16/fp16), " ncs " column-split (2 x bf16/fp16)"; fail = 1 } else print "ok 4 - " nstaged " epi=tma hg::gemm_kernel functions, " ncs " column-split"
    if (nskinny < 8) { print "not ok 5 - only " nskinny " sm_90a skinny v1 kernels (unroll x token tiles x bf16/fp16)"; fail = 1 } else print "ok 5 - " nskinny " sm_90a skinny v1 kernels"
    if (nring < 24) { print "not ok 6 - only " nring " sm_90a skinny v2 kernels ((warps, ring) x token tiles x bf16/fp16)"; fail = 1 } else print "ok 6 - " nring " sm_90a skinny v2 kernels"
    # stages {4, 8, 16} x prefetch {0, 1} x token tiles {8, 16} x bf16/fp16 (matmul never builds the PDL prologue)
    if (nstream < 24) { print "not ok 7 - only " nstream " sm_90a skinny v3 kernels (stages x token tiles x bf16/fp16)"; fail = 1 } else print "ok 7 - " nstream " sm_90a skinny v3 kernels"
    print "1..7"
    exit fail
  }'
