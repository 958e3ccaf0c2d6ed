#!/bin/bash
# sitting 1, call 2: decode >= 1000 steps a row (fixed and dynamic), probes on llama8b-4l, PyTorch's decode
C=$1; export KLAB_COMMIT=$C
[ -x build-gpu/klab ] || { KLAB_COMMIT=$C bash tools/gpu-run.sh build > $OUT/build.txt 2>&1 || { tail -30 $OUT/build.txt; exit 1; }; }
[ -d /opt/deps ] || { bash tools/gpu-run.sh build > $OUT/build.txt 2>&1; }
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu
mkdir -p $OUT/r $OUT/ini $OUT/inip
cp ini/decode_replay.ini $OUT/ini/
t0=$SECONDS; timeout 260 build-gpu/klab --plugin decode_replay --ini-dir $OUT/ini --case llama8b-4l,llama8b-4l-dyn,small-16l,attn-only --dtype fp16 --out $OUT/r --run-id decode --timeout 250 > $OUT/decode.txt 2>&1; echo "decode exit $? in $((SECONDS-t0)) s"
grep -vE "^\[" $OUT/decode.txt | tail -40
awk '{print} /^\[case llama8b-4l(-dyn)?\]/ {print "param.probes = 1"}' ini/decode_replay.ini | awk '/^[[:space:]]*budget_ms/ {next} {print} /^\[defaults\]/ {print "budget_ms = 4000"}' > $OUT/inip/decode_replay.ini
t0=$SECONDS; KLAB_DECODE_PROBES=$OUT/r/probes timeout 120 build-gpu/klab --plugin decode_replay --ini-dir $OUT/inip --case llama8b-4l,llama8b-4l-dyn --dtype fp16 --out $OUT/r --run-id decode-probes --timeout 110 > $OUT/probes.txt 2>&1; echo "probes exit $? in $((SECONDS-t0)) s"; ls -la $OUT/r/probes | head
t0=$SECONDS; timeout 170 env PYTHONUNBUFFERED=1 python3 tools/torch_decode.py --build build-gpu --out $OUT/r/torch-decode --run-id torch-decode --cases llama8b-4l,small-16l,attn-only --dtypes fp16 > $OUT/torch-decode.txt 2>&1; echo "torch_decode exit $? in $((SECONDS-t0)) s"; tail -15 $OUT/torch-decode.txt
tar -C $OUT -czf $OUT/s2-runs.tgz r; rm -rf $OUT/r $OUT/ini $OUT/inip
