#!/bin/bash
# seventh sitting, call 7: decode_replay's new own choice (attn=mma) in a plain run at >= 1000 steps a row, its probes, and PyTorch's decode in the same sitting
C=$1; export KLAB_COMMIT=$C
t0=$SECONDS; KLAB_COMMIT=$C bash tools/gpu-run.sh build > $OUT/build.txt 2>&1 || { tail -30 $OUT/build.txt; exit 1; }; echo "build $((SECONDS-t0)) s"
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu
nvidia-smi --query-gpu=name,uuid,clocks.max.sm,temperature.gpu --format=csv,noheader
K=build-gpu/klab; R=$OUT/r; mkdir -p $R $OUT/ini $OUT/inip
cp ini/decode_replay.ini $OUT/ini/
t0=$SECONDS; timeout 230 $K --plugin decode_replay --ini-dir $OUT/ini --case llama8b-4l,llama8b-4l-dyn,small-16l,attn-only --dtype fp16 --out $R --run-id decode --timeout 220 > $OUT/decode.txt 2>&1; echo "decode exit $? in $((SECONDS-t0)) s"
grep -vE "^\[" $OUT/decode.txt | grep -E "^(llama|small|attn)" | cut -c1-150
tar -C $OUT -czf $OUT/g7-runs.tgz r
awk '{print} /^\[case llama8b-4l\]/ {print "param.probes = 1"}' ini/decode_replay.ini | awk '/^[[:space:]]*budget_ms/ {next} {print} /^\[defaults\]/ {print "budget_ms = 3000"}' > $OUT/inip/decode_replay.ini
t0=$SECONDS; KLAB_DECODE_PROBES=$R/probes timeout 60 $K --plugin decode_replay --ini-dir $OUT/inip --case llama8b-4l --dtype fp16 --profile graph,graph_pdl --out $R --run-id decode-probes --timeout 55 > $OUT/probes.txt 2>&1; echo "probes exit $? in $((SECONDS-t0)) s"
tar -C $OUT -czf $OUT/g7-runs.tgz r
t0=$SECONDS; timeout 200 env PYTHONUNBUFFERED=1 python3 tools/torch_decode.py --build build-gpu --out $R/torch-decode --run-id torch-decode --cases llama8b-4l,small-16l,attn-only --dtypes fp16 > $OUT/torch-decode.txt 2>&1; echo "torch_decode exit $? in $((SECONDS-t0)) s"; tail -12 $OUT/torch-decode.txt
tar -C $OUT -czf $OUT/g7-runs.tgz r; rm -rf $R $OUT/ini $OUT/inip
