#!/usr/bin/env bash
# One GPU sitting, in calls that each fit the device tool's 10 minutes. From the repository root on
# the GPU machine:
#
#   tools/gpu-run.sh tests   build; the whole test suite with the GPU tests running; the timer's
#                            self-test; compute-sanitizer memcheck and racecheck over every profile;
#                            the PyTorch anchors (do_bench) for reference
#   tools/gpu-run.sh bench   build; the experiments (klab's INI files); the copy variants; klab with
#                            PyTorch in the same rounds (tools/torch_rows.py); --batched and --hot rows
#   tools/gpu-run.sh all     both
#
# The device tool copies the working tree without its git history: say the commit, so that every
# meta.ini records it:  KLAB_COMMIT=<hash> bash tools/gpu-run.sh all
#
# Everything lands under $OUT: log.txt (the whole output) and results.tgz (CSV files and meta.ini of
# every run); a short table is printed last. The GPU host reaches no package registry: inih, libcsv
# and cmocka travel as Debian packages in .deps/ (tools/bootstrap.sh --device-deps) and are unpacked
# under /opt/deps, never over /. torch_anchors.py travels in .carry/ when present.
set -uo pipefail
mode=${1:-all}
OUT=${OUT:-$PWD/out/gpu-run}
mkdir -p "$OUT/runs"
log="$OUT/log.txt"
: >"$log"
say() { echo "== $*" | tee -a "$log"; }
# every step re-packs the results, so a call cut off at its time limit still returns what it measured
save() { tar -C "$OUT" -czf "$OUT/results.tgz.tmp" runs && mv "$OUT/results.tgz.tmp" "$OUT/results.tgz"; }
run() { say "$*"; "$@" 2>&1 | tee -a "$log"; local rc=${PIPESTATUS[0]}; save; return $rc; }
summary=()
note() { summary+=("$*"); }

if ! pkg-config --exists inih 2>/dev/null && [ -d .deps ]; then
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
run cmake --build $B -j 16 || { say "build failed"; exit 1; }
K=$B/klab
R="$OUT/runs"

if [ "$mode" = tests ] || [ "$mode" = all ]; then
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
    (cd .carry && OUT="$R" run python3 torch_anchors.py >/dev/null)
    note "torch_anchors.py: $(wc -l <"$R/anchors.csv" 2>/dev/null || echo no) rows"
  fi
fi

if [ "$mode" = bench ] || [ "$mode" = all ]; then
  # PyTorch and klab in the same rounds first: it is the comparison every claim rests on
  run env PYTHONUNBUFFERED=1 python3 tools/torch_rows.py --build $B --out "$R/torch"
  note "torch_rows: exit $?"
  run $K --plugin vector_add,rmsnorm --out "$R" --run-id main
  note "klab main run: exit $?"
  run $K --config experiments/copy_variants.ini --out "$R" --run-id copy-variants
  run $K --plugin rmsnorm --case 4096x4096,4096x8192,ragged --dtype fp16 --out "$R" --run-id batched --batched
  run $K --plugin rmsnorm,vector_add --case 4096x4096,copy-2^24 --dtype fp16,fp32 --out "$R" --run-id hot --hot
fi

save && rm -rf "$R"
echo
echo "== summary"
printf '%s\n' "${summary[@]}"
for f in $(tar -tzf "$OUT/results.tgz" | grep -E '(main|torch)/(rmsnorm|vector_add)\.csv$'); do
  tar -xzOf "$OUT/results.tgz" "$f" | awk -F, -v f="$f" 'NR==1{for(i=1;i<=NF;i++)c[$i]=i; next}
    $c["dtype"]=="fp16" || $c["plugin"]=="vector_add" {printf "%-28s %-12s %-5s %-14s %-9s %9s us %7s GB/s %6s %s\n",
    f, $c["case"], $c["dtype"], $c["profile"], $c["status"], $c["median_ms"]*1000, int($c["gbps"]), $c["frac_limit"], $c["speedup"]}'
done
