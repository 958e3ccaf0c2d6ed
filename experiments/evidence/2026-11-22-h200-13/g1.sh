#!/bin/bash
# thirteenth sitting, call 1: attn=mma_cluster_l2 (the attention prefetching W_o into L2): test_gpu_decode; the tune at llama8b-4l (graph_pdl, graph) and small-16l (graph_pdl); the variants (fraction, evict_last), plain, then probed
C=$1; export KLAB_COMMIT=$C
t0=$SECONDS; KLAB_COMMIT=$C KLAB_TARGETS="klab decode_replay test_gpu_decode" bash tools/gpu-run.sh build > $OUT/build.txt 2>&1 || { tail -30 $OUT/build.txt; exit 1; }; echo "build $((SECONDS-t0)) s"
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu; rm -f $OUT/log.txt $OUT/results.tgz
nvidia-smi --query-gpu=name,uuid --format=csv,noheader
K=build-gpu/klab; R=$OUT/r; mkdir -p $R $OUT/ini $OUT/inip
t0=$SECONDS; timeout 110 $K --tune --out $R --tune-cache $R/tune-cache.ini --timeout 100 --run-id tune --plugin decode_replay --case llama8b-4l --dtype fp16 --profile graph_pdl,graph > $OUT/tune.txt 2>&1; echo "tune exit $? in $((SECONDS-t0)) s"
grep -E "^llama" $OUT/tune.txt | grep -E "mma_cluster|own" | grep -E "plain|stream|own" | cut -c1-150
python3 .sit/s10/ratios.py $R/tune llama8b-4l graph_pdl cfg24 cfg19 llama8b-4l graph cfg24 cfg19 > $OUT/ratios.md 2>&1; cat $OUT/ratios.md
tar -C $OUT -czf $OUT/g1-runs.tgz r
python3 .sit/s13/mkini.py $OUT/ini/decode_replay.ini
t0=$SECONDS; timeout 150 $K --plugin decode_replay --ini-dir $OUT/ini --profile graph_pdl --out $R --run-id var --timeout 60 > $OUT/var.txt 2>&1; echo "var exit $? in $((SECONDS-t0)) s"
grep -E "^(llama|small)" $OUT/var.txt | cut -c1-120
tar -C $OUT -czf $OUT/g1-runs.tgz r
python3 .sit/s13/mkini.py $OUT/inip/decode_replay.ini probes
t0=$SECONDS; KLAB_DECODE_PROBES=$R/probes timeout 100 $K --plugin decode_replay --ini-dir $OUT/inip --case llama-base,llama-l2,llama-l2-last,small-base,small-l2 --out $R --run-id probed --timeout 60 > $OUT/probed.txt 2>&1; echo "probed exit $? in $((SECONDS-t0)) s"
python3 tools/decode_probes.py $R/probed --probes $R/probes/decode_replay.probes > $OUT/probed-tables.md 2>&1; grep -A9 "## kernels of" $OUT/probed-tables.md | head -80
gzip -f $R/probes/decode_replay.probes/*.csv 2>/dev/null
tar -C $OUT -czf $OUT/g1-runs.tgz r ini inip
t0=$SECONDS; (cd build-gpu && timeout 120 ctest -R 'test_gpu_decode' --output-on-failure > $OUT/ctest.txt 2>&1); echo "ctest exit $? in $((SECONDS-t0)) s"; grep -E "Passed|Failed|FAILED|\[  FAILED|not ok" $OUT/ctest.txt | head -12
gzip -f $OUT/ctest.txt $OUT/tune.txt $OUT/var.txt $OUT/probed.txt $OUT/build.txt; rm -rf $R $OUT/ini $OUT/inip
