#!/usr/bin/env bash
# One GPU sitting in one call: build, GPU tests, the timer's self-test, the experiments, and PyTorch
# timed by klab's own timer in the same rounds. Full logs and CSVs go under $OUT (results.tgz and
# log.txt); a short table is printed last.
#
#   tools/gpu-run.sh [smoke|full]     on the GPU machine, from the repository root
#
# The GPU host reaches no package registry: inih, libcsv and cmocka come as Debian packages in .deps/
# (tools/bootstrap.sh --device-deps fetches them) and are unpacked under /opt/deps, never over /.
set -uo pipefail
mode=${1:-full}
OUT=${OUT:-$PWD/out/gpu-run}
mkdir -p "$OUT"
log="$OUT/log.txt"
: >"$log"
say() { echo "== $*" | tee -a "$log"; }
run() { say "$*"; "$@" 2>&1 | tee -a "$log"; return "${PIPESTATUS[0]}"; }

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
tests=ON
[ "$mode" = smoke ] && tests=OFF
run cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a -DKLAB_BUILD_TESTS=$tests >/dev/null
run cmake --build build-gpu -j 16 || { say "build failed"; exit 1; }
K=build-gpu/klab
runs="$OUT/runs"
mkdir -p "$runs"

if [ "$tests" = ON ]; then
  run ctest --test-dir build-gpu --output-on-failure -j 4 --timeout 600
fi
run $K --self-test
run $K --plugin vector_add,rmsnorm --out "$runs" --run-id main
if [ "$mode" = full ]; then
  run $K --plugin rmsnorm --case 4096x4096,ragged --dtype fp16 --out "$runs" --run-id graph --graph
  run $K --plugin rmsnorm --case 4096x4096 --dtype fp16 --out "$runs" --run-id hot --hot
fi
tar -C "$OUT" -czf "$OUT/results.tgz" runs && rm -rf "$runs"
say "done: results.tgz and log.txt in $OUT"
