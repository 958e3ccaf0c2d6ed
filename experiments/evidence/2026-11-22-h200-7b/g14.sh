#!/bin/bash
# seventh sitting, call 16: the mma attention (own choice) verified and timed at bf16 and at long-kv (kv 32768), beside the fused path: the numerics the review asked about
C=$1; export KLAB_COMMIT=$C
t0=$SECONDS; KLAB_COMMIT=$C KLAB_TARGETS="klab decode_replay" bash tools/gpu-run.sh build > $OUT/build.txt 2>&1 || { tail -30 $OUT/build.txt; exit 1; }; echo "build $((SECONDS-t0)) s"
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu
nvidia-smi --query-gpu=name,uuid --format=csv,noheader
K=build-gpu/klab; R=$OUT/r; mkdir -p $R $OUT/ini
awk '/^[[:space:]]*budget_ms/ {next} {print} /^\[defaults\]/ {print "budget_ms = 3000"}' ini/decode_replay.ini > $OUT/ini/decode_replay.ini
t0=$SECONDS; timeout 200 $K --tune --ini-dir $OUT/ini --out $R --tune-cache $R/tune-cache.ini --timeout 195 --run-id t-numerics --plugin decode_replay --case long-kv,llama8b-4l,attn-only --dtype bf16,fp16 --profile graph > $OUT/numerics.txt 2>&1; echo "exit $? in $((SECONDS-t0)) s"
python3 - $R/t-numerics/decode_replay.csv <<'PY'
import csv,sys
for r in csv.DictReader(open(sys.argv[1])):
    if r['config'].endswith('gemv=plain'):
        print(r['case'], r['dtype'], r['config'], r['status'], r['median_ms'], 'err', r['rel_l2_err'], r['max_abs_err'], 'tol', r['tolerance'], r['flags'])
PY
tar -C $OUT -czf $OUT/g14-runs.tgz r; rm -rf $R $OUT/ini
