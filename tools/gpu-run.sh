#!/usr/bin/env bash
# One GPU sitting, in calls that each fit the device tool's 10 minutes. From the repository root on
# the GPU machine:
#
#   tools/gpu-run.sh build        the dependencies and the build alone (build-gpu/), for commands of one's own
#   tools/gpu-run.sh tests        build; the whole test suite with the GPU tests running; the timer's
#                                 self-test; compute-sanitizer memcheck and racecheck (vector_add,
#                                 rmsnorm); the PyTorch anchors (do_bench) for reference
#   tools/gpu-run.sh bench        build; the experiments (klab's INI files); the copy variants; klab with
#                                 PyTorch in the same rounds (tools/torch_rows.py); --batched and --hot rows
#   tools/gpu-run.sh all          both
#
# The row family (softmax, swiglu, reduction, rmsnorm, rmsnorm_rope), one call each. Durations measured
# on an H200 (2026-11-22, this branch with the rowkern plugins, KLAB_BUDGET_MS=500), build excluded:
# cmake and a full build take ~25 s on a fresh machine, ~2 s when build-gpu/ is already there.
#
#   tools/gpu-run.sh rows-klab    klab's own runs of ini/<plugin>.ini, 129 units             4.6 min
#   tools/gpu-run.sh rows-torch   the same INIs with PyTorch in the same rounds (eager, F.*,
#                                 torch.compile), plain                                       6.6 min
#   tools/gpu-run.sh rows-sweep   the row-length sweeps (experiments/rowsweep_*.ini): klab's
#                                 own runs, then with PyTorch in the same rounds              4.3 min
#   tools/gpu-run.sh rows-decode  decode-size cases under --batched, PyTorch in CUDA graphs   1.4 min
#   tools/gpu-run.sh rows-tune    klab --tune over the cases in $KLAB_TUNE (default: the shapes where the
#                                 first pass missed its targets), KLAB_BUDGET_MS=100 a trial unless set;
#                                 the tuning cache comes back as $OUT/tune-cache.ini
#   tools/gpu-run.sh sanitize     compute-sanitizer memcheck and racecheck, --verify-only, over every
#                                 plugin's tests/gpu_ini/*.ini and tests/gpu_ini_large/*.ini  3.4 min
#   tools/gpu-run.sh rows         rows-klab, rows-torch, rows-sweep and rows-decode in one go (17 min):
#                                 for a host without the device tool's 10-minute limit
#
# The GEMM family with PyTorch in the same rounds (issue 26), one call; build-gpu/ from a `build` call
# first (a fresh machine's build of the GEMM plugins takes ~1.5 min more):
#
#   tools/gpu-run.sh gemm-torch   tools/torch_rows.py over the issue's cases, in this order:
#                                 fused_gated_mlp 4096x4096to14336 (silu, gelu): eager, torch.compile,
#                                 torch.compile max-autotune-no-cudagraphs; fp8_gemm's five cases:
#                                 quantise-each-call eager and compiled, torch._scaled_mm prequantised;
#                                 matmul_h200 square-4096, mlp-up-4096, mlp-down-4096, square-8192,
#                                 decode-16: torch.matmul and torch.compile max-autotune. 12 units, bf16
#                                 (KLAB_GEMM_DTYPES=bf16,fp16,fp8e4m3 adds matmul's fp16: 17 units), each
#                                 sampled KLAB_BUDGET_MS (default 1000); torch_rows.py begins no unit
#                                 after KLAB_WALL_S (default 420) s and lists the ones left. Measured
#                                 on an H200 (2026-11-22, KLAB_BUDGET_MS=600, bf16): 123-150 s in all,
#                                 build excluded (the 5-7 min estimate before it was pessimistic)
#
# The row modes sample each case for KLAB_BUDGET_MS (default 500) instead of the INIs' 1000-1500 ms:
# klab has no --budget option, so klab's runs read copies of the INIs with budget_ms rewritten (under
# $OUT/ini-budget/; meta.ini names the copy), and torch_rows.py takes --budget-ms. A case stops earlier
# when its medians are precise (docs/timing.md); 500 ms is 100+ samples of a 1 ms case. Most of a
# unit's time is not sampling but set-up, the float64 reference on the CPU and verification (a 2^28
# reduction: ~7 s a unit), so a smaller budget saves less than it seems.
# A plugin whose .so is not in build-gpu/plugins is skipped, saying so.
#
# The device tool copies the working tree without its git history: say the commit, so that every
# meta.ini records it:  KLAB_COMMIT=<hash> bash tools/gpu-run.sh all
#
# Everything lands under $OUT: log.txt (the whole output, with each step's duration) and results.tgz
# (CSV files and meta.ini of every run); a short summary is printed last. The GPU host reaches no
# package registry: inih, libcsv and cmocka travel as Debian packages in .deps/ (tools/bootstrap.sh
# --device-deps) and are unpacked under /opt/deps, never over /. torch_anchors.py travels in .carry/
# when present.
set -uo pipefail
mode=${1:-all}
case $mode in
  build | tests | bench | all | rows | rows-klab | rows-torch | rows-sweep | rows-decode | rows-tune | sanitize | gemm-torch) ;;
  *) echo "usage: tools/gpu-run.sh build|tests|bench|all|rows-klab|rows-torch|rows-sweep|rows-decode|rows-tune|sanitize|rows|gemm-torch" >&2
     exit 2 ;;
esac
OUT=${OUT:-$PWD/out/gpu-run}
BUDGET=${KLAB_BUDGET_MS:-500}
[ "$mode" = rows-tune ] && BUDGET=${KLAB_BUDGET_MS:-100}
[ "$mode" = gemm-torch ] && BUDGET=${KLAB_BUDGET_MS:-1000}
mkdir -p "$OUT/runs"
log="$OUT/log.txt"
: >"$log"
say() { echo "== $*" | tee -a "$log"; }
# every step re-packs the results, so a call cut off at its time limit still returns what it measured
save() { tar -C "$OUT" -czf "$OUT/results.tgz.tmp" runs && mv "$OUT/results.tgz.tmp" "$OUT/results.tgz"; }
run() {
  say "$*"
  local t0=$SECONDS
  "$@" 2>&1 | tee -a "$log"
  local rc=${PIPESTATUS[0]}
  say "exit $rc after $((SECONDS - t0)) s"
  save
  return $rc
}
summary=()
note() { summary+=("$*"); }
is_mode() { local m; for m; do [ "$mode" = "$m" ] && return 0; done; return 1; }

# A host without a registry needs .deps/; without it cmake would fail several lines into its log, so
# say why first, before any build time is spent (a device start is minutes of a session's budget).
if ! pkg-config --exists inih 2>/dev/null; then
  if [ ! -d .deps ]; then
    echo "gpu-run.sh: inih is not installed and there is no .deps/ here: on the machine that sends this tree," \
      "run tools/bootstrap.sh --device-deps and carry .deps (docs/gpu-host.md)" >&2
    exit 1
  fi
  mkdir -p /opt/deps
  for f in .deps/*.deb; do dpkg -x "$f" /opt/deps; done
  sed -i 's#^prefix=/usr$#prefix=/opt/deps/usr#' /opt/deps/usr/lib/x86_64-linux-gnu/pkgconfig/*.pc
  export PKG_CONFIG_PATH=/opt/deps/usr/lib/x86_64-linux-gnu/pkgconfig
  export CMAKE_PREFIX_PATH=/opt/deps/usr CMAKE_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu
  export CMAKE_INCLUDE_PATH=/opt/deps/usr/include
  export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi

run nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem,temperature.gpu,power.draw --format=csv
run git log -1 --format='commit %h %s' || true
B=build-gpu
run cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a
# KLAB_TARGETS: build only these targets (a sitting that needs a few, on a machine that costs more)
run cmake --build $B -j 16 ${KLAB_TARGETS:+--target $KLAB_TARGETS} || { say "build failed"; exit 1; }
K=$B/klab
R="$OUT/runs"
ROWS="softmax swiglu reduction rmsnorm rmsnorm_rope"
TORCH=(env PYTHONUNBUFFERED=1 python3 tools/torch_rows.py --build $B)

# The plugin an INI names ([experiment] plugin = NAME).
plugin_of() { sed -nE 's/^[[:space:]]*plugin[[:space:]]*[=:][[:space:]]*([A-Za-z0-9_]+).*/\1/p' "$1" | head -1; }
# 0 when plugin $1 was built; otherwise says so (once) and returns 1.
declare -A said
have() {
  [ -f "$B/plugins/$1.so" ] && return 0
  # to stderr: have() runs inside $(...) whose stdout is a list
  [ -z "${said[$1]:-}" ] && say "skip $1: $B/plugins/$1.so was not built (not in this tree)" >&2
  said[$1]=1
  return 1
}
# Copies of INI files in directory $1 with budget_ms = $BUDGET: every budget_ms line dropped, one set
# in [defaults] (added at the end when the file has no [defaults]; klab inherits after parsing).
budget_inis() {
  local dir=$1 f
  shift
  mkdir -p "$dir"
  for f; do
    awk -v b="$BUDGET" '
      /^[[:space:]]*budget_ms[[:space:]]*[=:]/ { next }
      { print }
      /^[[:space:]]*\[defaults\]/ { print "budget_ms = " b; d = 1 }
      END { if (!d) { print "[defaults]"; print "budget_ms = " b } }' "$f" >"$dir/$(basename "$f")"
  done
}
built_rows() { local p out=; for p in $ROWS; do have $p && out+=${out:+,}$p; done; echo "$out"; }
sweeps() { local f; for f in experiments/rowsweep_*.ini; do [ -f "$f" ] && have "$(plugin_of "$f")" && echo "$f"; done; }

if is_mode tests all; then
  run ctest --test-dir $B --output-on-failure -j 4 --timeout 600
  note "tests: $(grep -E 'tests passed' "$log" | tail -1)"
  run $K --self-test && note "self-test: passed" || note "self-test: FAILED"
  # The sanitizers slow kernels 10-100x, so they verify only (--verify-only) on the small GPU-test
  # shapes, in this process (--no-isolate) so the tool sees the kernels.
  for tool in memcheck racecheck; do
    run compute-sanitizer --tool $tool --error-exitcode 99 $K --no-isolate --verify-only \
      --plugin vector_add,rmsnorm --ini-dir tests/gpu_ini --out "$R" --run-id sanitizer-$tool
    rc=$?
    note "compute-sanitizer $tool: exit $rc ($(grep -E 'ERROR SUMMARY' "$log" | tail -1))"
  done
  if [ -f .carry/torch_anchors.py ]; then
    (cd .carry && run env OUT="$R" python3 torch_anchors.py >/dev/null) # OUT for the script only: save() keeps $OUT
    note "torch_anchors.py: $(wc -l <"$R/anchors.csv" 2>/dev/null || echo no) rows"
  fi
fi

if is_mode bench all; then
  # PyTorch and klab in the same rounds first: it is the comparison every claim rests on
  run "${TORCH[@]}" --out "$R/torch" --plugins vector_add --cases copy-2^28,copy-2^24 --dtypes fp32
  note "torch_rows vector_add: exit $?"
  # the five shapes of the first sittings: the row family's other cases are rows-torch's
  run "${TORCH[@]}" --out "$R/torch" --plugins rmsnorm --cases 4096x4096,4096x8192,16384x8192,4096x5120,ragged
  note "torch_rows rmsnorm: exit $?"
  run $K --plugin vector_add,rmsnorm --out "$R" --run-id main
  note "klab main run: exit $?"
  run $K --config experiments/copy_variants.ini --out "$R" --run-id copy-variants
  run $K --plugin rmsnorm --case 4096x4096,4096x8192,ragged --dtype fp16 --out "$R" --run-id batched --batched
  run $K --plugin rmsnorm,vector_add --case 4096x4096,copy-2^24 --dtype fp16,fp32 --out "$R" --run-id hot --hot
fi

# klab's own rows of the family: 129 (case, dtype) units, ~2 s each with set-up, the float64
# reference and sampling at the budget (4.6 min)
if is_mode rows-klab rows; then
  P=$(built_rows)
  rm -rf "$OUT/ini-budget/main" # a persistent $OUT kept copies from earlier calls: the run reads the folder whole
  budget_inis "$OUT/ini-budget/main" ini/*.ini
  if [ -n "$P" ]; then
    run $K --plugin "$P" --ini-dir "$OUT/ini-budget/main" --out "$R" --run-id rows-main
    note "klab rows-main ($P): exit $?"
  fi
fi

# PyTorch in the same rounds, plain: the same 129 units with their callables, torch.compile's
# recompiled for each shape and dtype (dynamic=False): 0.6-11 s a unit, 6.6 min in all
if is_mode rows-torch rows; then
  P=$(built_rows)
  if [ -n "$P" ]; then
    run "${TORCH[@]}" --out "$R/torch-rows" --plugins "$P" --budget-ms "$BUDGET"
    note "torch_rows ($P): exit $?"
  fi
fi

# The row-length sweeps, N = 128 .. 262144 at M*N = 2^25, 48 units: klab's own run of each INI
# (~1.5 s a unit, 74 s), then the same INIs with PyTorch in the same rounds (~3.5 s a unit, 183 s)
if is_mode rows-sweep rows; then
  args=()
  for f in $(sweeps); do
    budget_inis "$OUT/ini-budget/sweep" "$f"
    run $K --config "$OUT/ini-budget/sweep/$(basename "$f")" --out "$R" --run-id "$(basename "$f" .ini)"
    note "klab $(basename "$f" .ini): exit $?"
    args+=(--ini "$f")
  done
  if [ ${#args[@]} -gt 0 ]; then
    run "${TORCH[@]}" --out "$R/torch-rowsweep" "${args[@]}" --budget-ms "$BUDGET"
    note "torch_rows sweeps: exit $?"
  fi
fi

# Decode sizes, launch-bound: klab's profiles batched (N runs in one graph, rotated copies) against
# PyTorch's callables captured in a CUDA graph and replayed N times (docs/timing.md); cases of the
# INIs, or shapes with the INI's [defaults] (torch_rows.py --cases); ~20 s a plugin, mostly torch's
# import and the first compile
if is_mode rows-decode rows; then
  decode() { # plugin cases
    have "$1" || return 0
    run "${TORCH[@]}" --out "$R/torch-decode" --mode batched --plugins "$1" --cases "$2" --budget-ms "$BUDGET" \
      && note "torch_rows decode $1: passed" || note "torch_rows decode $1: exit $?"
  }
  decode rmsnorm 1x4096,8x4096
  decode softmax 1x4096,8x4096
  decode swiglu 1x14336,32x11008,packed-1x14336,packed-32x11008
  decode rmsnorm_rope 1x4096
fi

# klab --tune over chosen cases: KLAB_TUNE holds entries "INI:CASES:DTYPES" (INI: a plugin's name, its
# ini/<plugin>.ini, or an INI file's path). Every trial is verified and timed in the same rounds as the
# profile's own choice; the best per case goes into $OUT/tune-cache.ini (docs/timing.md, "Tuning").
if is_mode rows-tune; then
  TUNE=${KLAB_TUNE:-"rmsnorm:4096x5120,4096x4096,ragged:fp16 softmax:4096x1024,1024x32768:fp16 experiments/rowsweep_rmsnorm.ini:n32768,n131072:fp16"}
  rm -rf "$OUT/ini-budget/tune"
  for entry in $TUNE; do
    IFS=: read -r ini cases dts <<<"$entry"
    [ -f "$ini" ] || ini=ini/$ini.ini
    have "$(plugin_of "$ini")" || continue
    budget_inis "$OUT/ini-budget/tune" "$ini"
    run $K --tune --config "$OUT/ini-budget/tune/$(basename "$ini")" --case "$cases" ${dts:+--dtype "$dts"} \
      --profile fused --out "$R" --run-id "tune-$(basename "$ini" .ini)" --tune-cache "$OUT/tune-cache.ini"
    note "klab --tune $entry: exit $?"
  done
fi

# The GEMM family beside PyTorch (issue 26): one torch_rows.py session a plugin, the issue's cases in
# priority order (the gated MLP's claim against torch.compile, fp8's autoquant against quantise-each-call,
# then matmul), --ini-cases-only since one --cases list names the three INIs' cases
if is_mode gemm-torch; then
  P=
  for p in fused_gated_mlp fp8_gemm matmul_h200; do have $p && P+=${P:+,}$p; done
  if [ -n "$P" ]; then
    run "${TORCH[@]}" --out "$R/torch-gemm" --plugins "$P" --ini-cases-only \
      --cases 4096x4096to14336,4096x4096to14336-gelu,8192x8192x8192,4096x4096x4096,4096x14336x4096,16384x4096x4096,64x7168x4096,square-4096,mlp-up-4096,mlp-down-4096,square-8192,decode-16 \
      --dtypes "${KLAB_GEMM_DTYPES:-bf16,fp8e4m3}" --budget-ms "$BUDGET" --wall-s "${KLAB_WALL_S:-420}"
    note "torch_rows gemm ($P): exit $?"
  fi
fi

# Every plugin's GPU-test INIs and one large case each, verified under each tool. The INIs of the
# test-only plugins (tests/plugins: out-of-bounds writes, hangs, cheats on purpose) are skipped: their
# plugins are not in build-gpu/plugins. Exit 99 is the tool finding an error; klab's own 1 (a case a
# test INI expects refused) or 2 (an INI this build's plugin does not take) are said, not errors.
# 2-32 s a file under either tool, 3.4 min for both.
if is_mode sanitize; then
  for tool in memcheck racecheck; do
    errors=0 files=0
    for f in tests/gpu_ini/*.ini tests/gpu_ini_large/*.ini; do
      [ -f "$f" ] || continue
      p=$(plugin_of "$f")
      [ -f "$B/plugins/$p.so" ] || continue
      id="sanitize-$tool-$(basename "$(dirname "$f")")-$(basename "$f" .ini)"
      from=$(($(wc -l <"$log") + 1))
      run compute-sanitizer --tool $tool --error-exitcode 99 $K --no-isolate --verify-only --config "$f" \
        --out "$R" --run-id "$id"
      rc=$?
      files=$((files + 1))
      # racecheck does not model the mbarrier/TMA ordering inside cuBLAS's own kernels (nvjet_*, cutlass*,
      # sm90_xmma*): the H200 sitting of 2026-11-22 found hazards only there. Those are said apart; a
      # finding in any other kernel (klab's) is an error.
      vendor_re='^(nvjet|cutlass|sm[0-9]+_xmma|cublas|xmma)'
      found=$(tail -n +$from "$log" | grep -oE 'access at (void )?[A-Za-z_][A-Za-z0-9_]*' | awk '{print $NF}' | sort -u)
      own=$(grep -vE "$vendor_re" <<<"$found" | grep . | tr '\n' ' ')
      vendor=$(grep -E "$vendor_re" <<<"$found" | grep -c . || true)
      [ $rc -eq 99 ] && { [ -n "$own" ] || [ "$vendor" -eq 0 ]; } && errors=$((errors + 1))
      where=
      [ -n "$own" ] && where=" in klab's kernels: $own"
      [ "${vendor:-0}" -gt 0 ] && where+=" in $vendor of cuBLAS's kernels (not klab's)"
      # this run's own summary line: none when the tool itself did not finish
      note "$tool $f: exit $rc ($(tail -n +$from "$log" | grep -E '(ERROR|RACECHECK) SUMMARY' | tail -1 || true))$where"
    done
    note "compute-sanitizer $tool: $files INI files, $errors with errors in klab's kernels"
  done
fi

save && rm -rf "$R"
echo
echo "== summary"
printf '%s\n' "${summary[@]}"
for f in $(tar -tzf "$OUT/results.tgz" | grep -E '(main|torch)/(rmsnorm|vector_add)\.csv$'); do
  is_mode tests bench all || break
  tar -xzOf "$OUT/results.tgz" "$f" | awk -F, -v f="$f" 'NR==1{for(i=1;i<=NF;i++)c[$i]=i; next}
    $c["dtype"]=="fp16" || $c["plugin"]=="vector_add" {printf "%-28s %-12s %-5s %-14s %-9s %9s us %7s GB/s %6s %s\n",
    f, $c["case"], $c["dtype"], $c["profile"], $c["status"], $c["median_ms"]*1000, int($c["gbps"]), $c["frac_limit"], $c["speedup"]}'
done
# the row modes: every PyTorch row against klab's fused profile, with the ratio's lower bound
if is_mode rows-torch rows-sweep rows-decode rows gemm-torch; then
  tmp=$(mktemp -d)
  tar -C "$tmp" -xzf "$OUT/results.tgz"
  csvs=$(find "$tmp/runs" -path '*/torch-*/*.csv' | sort)
  [ -n "$csvs" ] && python3 tools/torch_rows.py --compare $csvs
  rm -rf "$tmp"
fi
