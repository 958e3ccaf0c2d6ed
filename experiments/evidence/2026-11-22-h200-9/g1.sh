#!/bin/bash
# ninth sitting, call 1: attn=mma_cluster (the splits merged in a cluster's shared memory): test_gpu_decode (every configuration verified, the -cluster cases), the tune at attn-only (graph, graph_pdl) and llama8b-4l (graph_pdl), probes with the attention named
C=$1; export KLAB_COMMIT=$C
t0=$SECONDS; KLAB_COMMIT=$C KLAB_TARGETS="klab decode_replay test_gpu_decode" bash tools/gpu-run.sh build > $OUT/build.txt 2>&1 || { tail -30 $OUT/build.txt; exit 1; }; echo "build $((SECONDS-t0)) s"
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu; rm -f $OUT/log.txt $OUT/results.tgz
nvidia-smi --query-gpu=name,uuid --format=csv,noheader
K=build-gpu/klab; R=$OUT/r; mkdir -p $R $OUT/ini
t0=$SECONDS; (cd build-gpu && timeout 150 ctest -R 'test_gpu_decode' --output-on-failure > $OUT/ctest.txt 2>&1); echo "ctest exit $? in $((SECONDS-t0)) s"; grep -E "Passed|Failed|FAILED|Skipped|\[  FAILED|not ok" $OUT/ctest.txt | head -20
t0=$SECONDS; timeout 80 $K --tune --out $R --tune-cache $R/tune-cache.ini --timeout 75 --run-id t-attn --plugin decode_replay --case attn-only --dtype fp16 --profile graph,graph_pdl > $OUT/tune-attn.txt 2>&1; echo "attn tune exit $? in $((SECONDS-t0)) s"
grep -E "^attn-only" $OUT/tune-attn.txt | grep -E "gemv=plain" | cut -c1-150
t0=$SECONDS; timeout 170 $K --tune --out $R --tune-cache $R/tune-cache.ini --timeout 165 --run-id t-llama --plugin decode_replay --case llama8b-4l --dtype fp16 --profile graph_pdl > $OUT/tune-llama.txt 2>&1; echo "llama tune exit $? in $((SECONDS-t0)) s"
grep -E "^llama8b" $OUT/tune-llama.txt | grep -E "mma" | cut -c1-150
tar -C $OUT -czf $OUT/g1-runs.tgz r
python3 .sit/s9/mkini.py $OUT/ini/decode_replay.ini; cp $OUT/ini/decode_replay.ini $R/
t0=$SECONDS; KLAB_DECODE_PROBES=$R/probes timeout 120 $K --plugin decode_replay --ini-dir $OUT/ini --out $R --run-id probe1 --timeout 115 > $OUT/probe1.txt 2>&1; echo "probes exit $? in $((SECONDS-t0)) s"
grep -E "^(llama|small|attn)" $OUT/probe1.txt | cut -c1-140
python3 tools/decode_probes.py $R/probe1 --probes $R/probes/decode_replay.probes > $OUT/probe1-tables.md 2>&1
grep -A30 "## kernels of" $OUT/probe1-tables.md | head -120
gzip -f $R/probes/decode_replay.probes/*.csv $R/*/decode_replay.samples/*.csv 2>/dev/null
tar -C $OUT -czf $OUT/g1-runs.tgz r; gzip -f $OUT/probe1.txt $OUT/tune-attn.txt $OUT/tune-llama.txt $OUT/ctest.txt; rm -rf $R $OUT/ini
