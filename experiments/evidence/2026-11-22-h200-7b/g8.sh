#!/bin/bash
# seventh sitting, call 8: compute-sanitizer over the kernels new this sitting (skinny v1/v2, 256x128 cluster 2, the pipelined GEMV, the mma attention): memcheck, racecheck, synccheck on their GPU-test INIs
C=$1; export KLAB_COMMIT=$C
[ -x build-gpu/klab ] || { KLAB_COMMIT=$C bash tools/gpu-run.sh build > $OUT/build.txt 2>&1 || { tail -30 $OUT/build.txt; exit 1; }; }
[ -d /opt/deps ] || bash tools/gpu-run.sh build > $OUT/build.txt 2>&1
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu
nvidia-smi --query-gpu=name,uuid --format=csv,noheader
K=build-gpu/klab; R=$OUT/r; mkdir -p $R
san() { local tool=$1 f=$2 lim=$3 id=san-$1-$(basename $2 .ini); shift 3
  t0=$SECONDS; timeout $lim compute-sanitizer --tool $tool --error-exitcode 99 $K --no-isolate --verify-only --config $f --out $R --run-id $id "$@" > $OUT/$id.txt 2>&1; rc=$?
  own=$(grep -oE 'access at (void )?[A-Za-z_][A-Za-z0-9_]*' $OUT/$id.txt | awk '{print $NF}' | sort -u | grep -vE '^(nvjet|cutlass|sm[0-9]+_xmma|cublas|xmma)' | tr '\n' ' ')
  echo "$tool $f $*: exit $rc in $((SECONDS-t0)) s; $(grep -E '(ERROR|RACECHECK|SYNCCHECK) SUMMARY' $OUT/$id.txt | tail -1); klab's kernels named: ${own:-none}"; }
san memcheck tests/gpu_ini/decode_replay.ini 60
san memcheck tests/gpu_ini/matmul_h200.ini 60
san racecheck tests/gpu_ini/decode_replay.ini 120
san synccheck tests/gpu_ini/decode_replay.ini 90
san racecheck tests/gpu_ini/matmul_h200.ini 200 --case skinny-13,odd-200 --profile skinny,wgmma_persistent --dtype bf16 --tune
for f in $OUT/san-*.txt; do gzip -f $f; done
tar -C $OUT -czf $OUT/g8-runs.tgz r; rm -rf $R
