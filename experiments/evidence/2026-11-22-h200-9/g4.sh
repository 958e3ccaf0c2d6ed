#!/bin/bash
# ninth sitting, call 4: the last code: test_gpu_decode; memcheck, racecheck, synccheck of the -cluster cases (B = 8 now clusters of 8); the plain run of the committed INI (>= 1000 steps, graph and graph_pdl, fixed and dynamic) with PyTorch's decode in the same call; probes of llama8b-4l; the tune at small-16l (graph_pdl)
C=$1; export KLAB_COMMIT=$C
t0=$SECONDS; KLAB_COMMIT=$C KLAB_TARGETS="klab klab_bench decode_replay test_gpu_decode" bash tools/gpu-run.sh build > $OUT/build.txt 2>&1 || { tail -30 $OUT/build.txt; exit 1; }; echo "build $((SECONDS-t0)) s"
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu; rm -f $OUT/log.txt $OUT/results.tgz
nvidia-smi --query-gpu=name,uuid --format=csv,noheader
K=build-gpu/klab; R=$OUT/r; mkdir -p $R $OUT/san $OUT/inip
t0=$SECONDS; (cd build-gpu && timeout 100 ctest -R 'test_gpu_decode' --output-on-failure > $OUT/ctest.txt 2>&1); echo "ctest exit $? in $((SECONDS-t0)) s"; grep -E "Passed|Failed|FAILED|\[  FAILED" $OUT/ctest.txt | head -8
san() { local tool=$1 f=$2 lim=$3 id=san-$1; shift 3
  t0=$SECONDS; timeout $lim compute-sanitizer --tool $tool --error-exitcode 99 --print-limit 20 $K --no-isolate --verify-only --config $f --out $R --run-id $id "$@" > $OUT/san/$id.txt 2>&1; rc=$?
  echo "$tool $*: exit $rc in $((SECONDS-t0)) s; $(grep -E '(ERROR|RACECHECK|SYNCCHECK) SUMMARY' $OUT/san/$id.txt | tail -1); rows passed: $(grep -c ' passed' $OUT/san/$id.txt)"; }
DS="--case tiny-d128-g4-cluster,tiny-g8-cluster16,tiny-attn-b8-cluster"
san synccheck tests/gpu_ini/decode_replay.ini 40 $DS
san memcheck tests/gpu_ini/decode_replay.ini 40 $DS
san racecheck tests/gpu_ini/decode_replay.ini 110 --case tiny-attn-b8-cluster
tar -C $OUT -czf $OUT/g4-san.tgz san; rm -rf $OUT/san
t0=$SECONDS; timeout 130 $K --plugin decode_replay --case llama8b-4l,llama8b-4l-dyn,small-16l,attn-only,attn-only-dyn --dtype fp16 --profile graph,graph_pdl --out $R --run-id decode --timeout 125 > $OUT/decode.txt 2>&1; echo "decode exit $? in $((SECONDS-t0)) s"
grep -E "^(llama|small|attn)" $OUT/decode.txt | cut -c1-150
tar -C $OUT -czf $OUT/g4-runs.tgz r
t0=$SECONDS; timeout 80 env PYTHONUNBUFFERED=1 python3 tools/torch_decode.py --build build-gpu --out $R/torch-decode --run-id torch-decode --cases llama8b-4l,small-16l,attn-only --dtypes fp16 > $OUT/torch-decode.txt 2>&1; echo "torch_decode exit $? in $((SECONDS-t0)) s"; tail -7 $OUT/torch-decode.txt
tar -C $OUT -czf $OUT/g4-runs.tgz r
awk '{print} /^\[case llama8b-4l\]/ {print "param.probes = 1"}' ini/decode_replay.ini | awk '/^[[:space:]]*budget_ms/ {next} {print} /^\[defaults\]/ {print "budget_ms = 3000"}' > $OUT/inip/decode_replay.ini
t0=$SECONDS; KLAB_DECODE_PROBES=$R/probes timeout 50 $K --plugin decode_replay --ini-dir $OUT/inip --case llama8b-4l --dtype fp16 --profile graph,graph_pdl --out $R --run-id decode-probes --timeout 45 > $OUT/probes.txt 2>&1; echo "probes exit $? in $((SECONDS-t0)) s"
python3 tools/decode_probes.py $R/decode-probes --probes $R/probes/decode_replay.probes > $OUT/probes-tables.md 2>&1; grep -A14 "## kernels of" $OUT/probes-tables.md | head -16
gzip -f $R/probes/decode_replay.probes/*.csv 2>/dev/null
tar -C $OUT -czf $OUT/g4-runs.tgz r
t0=$SECONDS; timeout 120 $K --tune --out $R --tune-cache $R/tune-cache.ini --timeout 115 --run-id t-small --plugin decode_replay --case small-16l --dtype fp16 --profile graph_pdl > $OUT/tune-small.txt 2>&1; echo "small tune exit $? in $((SECONDS-t0)) s"
grep -E "^small" $OUT/tune-small.txt | grep -E "mma" | cut -c1-150
tar -C $OUT -czf $OUT/g4-runs.tgz r; gzip -f $OUT/decode.txt $OUT/torch-decode.txt $OUT/ctest.txt $OUT/probes.txt $OUT/tune-small.txt; rm -rf $R $OUT/inip
