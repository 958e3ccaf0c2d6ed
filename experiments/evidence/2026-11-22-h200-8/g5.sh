#!/bin/bash
# eighth sitting, call 5: decode_replay 1.4.0's gemv=stream: the tune (graph, graph_pdl) at llama8b-4l and small-16l, the plain run on the tuned configurations (>= 1000 steps, fixed and dynamic), the probes of the tuned llama8b-4l
C=$1; export KLAB_COMMIT=$C
t0=$SECONDS; KLAB_COMMIT=$C KLAB_TARGETS="klab decode_replay" bash tools/gpu-run.sh build > $OUT/build.txt 2>&1 || { tail -30 $OUT/build.txt; exit 1; }; echo "build $((SECONDS-t0)) s"
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu; rm -f $OUT/log.txt $OUT/results.tgz
nvidia-smi --query-gpu=name,uuid --format=csv,noheader
K=build-gpu/klab; R=$OUT/r; mkdir -p $R $OUT/inip
t0=$SECONDS; timeout 230 $K --tune --out $R --tune-cache $R/tune-cache.ini --timeout 225 --run-id t-stream2 --plugin decode_replay --case llama8b-4l,small-16l --dtype fp16 --profile graph,graph_pdl > $OUT/tune.txt 2>&1; echo "decode tune exit $? in $((SECONDS-t0)) s"
grep -E "^(llama8b|small)" $OUT/tune.txt | grep -E "mma|fused,gemv=plain" | awk '{print $1,$2,$3,$4,$5,$6,$7}' | head -24
tar -C $OUT -czf $OUT/g5-runs.tgz r
t0=$SECONDS; timeout 150 $K --plugin decode_replay --tune-cache $R/tune-cache.ini --case llama8b-4l,llama8b-4l-dyn,small-16l --dtype fp16 --profile graph,graph_pdl --out $R --run-id decode-tuned --timeout 145 > $OUT/decode.txt 2>&1; echo "decode plain exit $? in $((SECONDS-t0)) s"
grep -E "^(llama|small)" $OUT/decode.txt | cut -c1-150 | head -12
tar -C $OUT -czf $OUT/g5-runs.tgz r
awk '{print} /^\[case llama8b-4l\]/ {print "param.probes = 1"}' ini/decode_replay.ini | awk '/^[[:space:]]*budget_ms/ {next} {print} /^\[defaults\]/ {print "budget_ms = 3000"}' > $OUT/inip/decode_replay.ini
t0=$SECONDS; KLAB_DECODE_PROBES=$R/probes timeout 60 $K --plugin decode_replay --ini-dir $OUT/inip --tune-cache $R/tune-cache.ini --case llama8b-4l --dtype fp16 --profile graph,graph_pdl --out $R --run-id decode-probes --timeout 55 > $OUT/probes.txt 2>&1; echo "probes exit $? in $((SECONDS-t0)) s"
python3 tools/decode_probes.py $R/decode-probes --probes $R/probes/decode_replay.probes > $OUT/probes-tables.md 2>&1; head -60 $OUT/probes-tables.md
gzip -f $R/probes/decode_replay.probes/*.csv 2>/dev/null
tar -C $OUT -czf $OUT/g5-runs.tgz r; gzip -f $OUT/tune.txt $OUT/decode.txt $OUT/probes.txt; rm -rf $R $OUT/inip
