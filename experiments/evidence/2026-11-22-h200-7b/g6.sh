#!/bin/bash
# seventh sitting, call 6: the decode attention paths (fused, split, mma) x GEMV paths in the same rounds, and the probes of the own choice
C=$1; export KLAB_COMMIT=$C
[ -x build-gpu/klab ] || { KLAB_COMMIT=$C bash tools/gpu-run.sh build > $OUT/build.txt 2>&1 || { tail -30 $OUT/build.txt; exit 1; }; }
[ -d /opt/deps ] || bash tools/gpu-run.sh build > $OUT/build.txt 2>&1
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu
nvidia-smi --query-gpu=name,uuid,clocks.max.sm,temperature.gpu --format=csv,noheader
K=build-gpu/klab; R=$OUT/r; mkdir -p $R $OUT/ini
t0=$SECONDS; timeout 170 ctest --test-dir build-gpu -R 'test_gpu_decode|sass_decode|test_decode' --output-on-failure --timeout 165 > $OUT/ctest.txt 2>&1; echo "ctest exit $? in $((SECONDS-t0)) s"
grep -E "Test +#|tests passed|^not ok" $OUT/ctest.txt | head -20
awk '/^[[:space:]]*budget_ms/ {next} {print} /^\[defaults\]/ {print "budget_ms = 3000"}' ini/decode_replay.ini > $OUT/ini/decode_replay.ini
t0=$SECONDS; timeout 300 $K --tune --ini-dir $OUT/ini --out $R --tune-cache $R/tune-cache.ini --timeout 295 --run-id t-dec --plugin decode_replay --case attn-only,llama8b-4l,small-16l --dtype fp16 --profile graph,graph_pdl > $OUT/tune-dec.txt 2>&1; echo "tune decode exit $? in $((SECONDS-t0)) s"
tar -C $OUT -czf $OUT/g6-runs.tgz r
grep -E "^(attn|llama|small)" $OUT/tune-dec.txt | awk '{print $1, $3, $4, $6, $7, $10}' | sort -k1,1 -k2,2 -k4,4n; grep -A8 "tuned on" $OUT/tune-dec.txt | cut -c1-200
tar -C $OUT -czf $OUT/g6-runs.tgz r; rm -rf $R $OUT/ini
