#!/bin/bash
# tenth sitting, call 1: attn=mma_tma (297450f): test_gpu_decode; the tune at attn-only and llama8b-4l (graph, graph_pdl: mma_tma against mma_cluster in the same rounds); sanitizers of the -tma cases
C=$1; export KLAB_COMMIT=$C
t0=$SECONDS; KLAB_COMMIT=$C KLAB_TARGETS="klab klab_bench decode_replay test_gpu_decode" bash tools/gpu-run.sh build > $OUT/build.txt 2>&1 || { tail -30 $OUT/build.txt; exit 1; }; echo "build $((SECONDS-t0)) s"
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu; rm -f $OUT/log.txt $OUT/results.tgz
nvidia-smi --query-gpu=name,uuid --format=csv,noheader
K=build-gpu/klab; R=$OUT/r; mkdir -p $R $OUT/san
t0=$SECONDS; (cd build-gpu && timeout 150 ctest -R 'test_gpu_decode' --output-on-failure > $OUT/ctest.txt 2>&1); echo "ctest exit $? in $((SECONDS-t0)) s"; grep -E "Passed|Failed|FAILED|\[  FAILED|not ok" $OUT/ctest.txt | head -12
t0=$SECONDS; timeout 150 $K --tune --out $R --tune-cache $R/tune-cache.ini --timeout 140 --run-id tune --plugin decode_replay --case attn-only,llama8b-4l --dtype fp16 --profile graph,graph_pdl > $OUT/tune.txt 2>&1; echo "tune exit $? in $((SECONDS-t0)) s"
grep -E "^(attn|llama)" $OUT/tune.txt | grep -E "mma_cluster|mma_tma|own" | grep -E "plain|stream|own" | cut -c1-160
tar -C $OUT -czf $OUT/g1-runs.tgz r
san() { local tool=$1 f=$2 lim=$3 id=san-$1; shift 3
  t0=$SECONDS; timeout $lim compute-sanitizer --tool $tool --error-exitcode 99 --print-limit 20 $K --no-isolate --verify-only --config $f --out $R --run-id $id "$@" > $OUT/san/$id.txt 2>&1; rc=$?
  echo "$tool $*: exit $rc in $((SECONDS-t0)) s; $(grep -E '(ERROR|RACECHECK|SYNCCHECK) SUMMARY' $OUT/san/$id.txt | tail -1); rows passed: $(grep -c ' passed' $OUT/san/$id.txt)"; }
DS="--case tiny-d128-g4-tma,tiny-g8-tma16,tiny-attn-b8-tma"
san memcheck tests/gpu_ini/decode_replay.ini 45 $DS
san synccheck tests/gpu_ini/decode_replay.ini 45 $DS
san racecheck tests/gpu_ini/decode_replay.ini 70 --case tiny-d128-g4-tma --dtype fp16
tar -C $OUT -czf $OUT/g1-san.tgz san; rm -rf $OUT/san
tar -C $OUT -czf $OUT/g1-runs.tgz r; gzip -f $OUT/ctest.txt $OUT/tune.txt $OUT/build.txt; rm -rf $R
