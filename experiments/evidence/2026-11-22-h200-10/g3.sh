#!/bin/bash
# tenth sitting, call 3: mma_tma triggering its dependents before its wait (ee0191f): test_gpu_decode; the tune at attn-only, llama8b-4l (graph_pdl, graph) and small-16l (graph_pdl); the span-against-bytes INI again
C=$1; export KLAB_COMMIT=$C
t0=$SECONDS; KLAB_COMMIT=$C KLAB_TARGETS="klab decode_replay test_gpu_decode" bash tools/gpu-run.sh build > $OUT/build.txt 2>&1 || { tail -30 $OUT/build.txt; exit 1; }; echo "build $((SECONDS-t0)) s"
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu; rm -f $OUT/log.txt $OUT/results.tgz
nvidia-smi --query-gpu=name,uuid --format=csv,noheader
K=build-gpu/klab; R=$OUT/r; mkdir -p $R $OUT/ini
t0=$SECONDS; timeout 100 $K --tune --out $R --tune-cache $R/tune-cache.ini --timeout 95 --run-id tune --plugin decode_replay --case attn-only,llama8b-4l --dtype fp16 --profile graph,graph_pdl > $OUT/tune.txt 2>&1; echo "tune exit $? in $((SECONDS-t0)) s"
grep -E "^(attn|llama)" $OUT/tune.txt | grep -E "mma_cluster|mma_tma|own" | grep -E "plain|stream|own" | cut -c1-150
tar -C $OUT -czf $OUT/g3-runs.tgz r
python3 .sit/s10/mkini.py $OUT/ini/decode_replay.ini
t0=$SECONDS; KLAB_DECODE_PROBES=$R/probes timeout 60 $K --plugin decode_replay --ini-dir $OUT/ini --case attn-kv512-cluster,attn-kv512-tma,attn-kv4096-cluster,attn-kv4096-tma --profile graph_pdl --out $R --run-id scale --timeout 50 > $OUT/scale.txt 2>&1; echo "scale exit $? in $((SECONDS-t0)) s"
grep -E "^attn" $OUT/scale.txt | cut -c1-120
tar -C $OUT -czf $OUT/g3-runs.tgz r
t0=$SECONDS; timeout 100 $K --tune --out $R --tune-cache $R/tune-cache.ini --timeout 95 --run-id tune-small --plugin decode_replay --case small-16l --dtype fp16 --profile graph_pdl > $OUT/tune-small.txt 2>&1; echo "small tune exit $? in $((SECONDS-t0)) s"
grep -E "^small" $OUT/tune-small.txt | grep -E "mma_cluster|mma_tma|own" | grep -E "plain|own" | cut -c1-150
tar -C $OUT -czf $OUT/g3-runs.tgz r
t0=$SECONDS; (cd build-gpu && timeout 150 ctest -R 'test_gpu_decode' --output-on-failure > $OUT/ctest.txt 2>&1); echo "ctest exit $? in $((SECONDS-t0)) s"; grep -E "Passed|Failed|FAILED|\[  FAILED|not ok" $OUT/ctest.txt | head -12
gzip -f $OUT/ctest.txt $OUT/tune.txt $OUT/tune-small.txt $OUT/scale.txt $OUT/build.txt; rm -rf $R $OUT/ini
