#!/bin/bash
# ninth sitting, call 3: synccheck's barrier report at the cluster attention (call 2) case by case; racecheck of the single-wave cluster cases; the ring of 3 tiles (96 KB) in the tune at attn-only and llama8b-4l (graph_pdl)
C=$1; export KLAB_COMMIT=$C
t0=$SECONDS; KLAB_COMMIT=$C KLAB_TARGETS="klab decode_replay" bash tools/gpu-run.sh build > $OUT/build.txt 2>&1 || { tail -30 $OUT/build.txt; exit 1; }; echo "build $((SECONDS-t0)) s"
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu; rm -f $OUT/log.txt $OUT/results.tgz
nvidia-smi --query-gpu=name,uuid --format=csv,noheader
K=build-gpu/klab; R=$OUT/r; mkdir -p $R $OUT/san
san() { local tool=$1 f=$2 lim=$3 id=san-$1-$4; shift 3
  t0=$SECONDS; timeout $lim compute-sanitizer --tool $tool --error-exitcode 99 --print-limit 20 $K --no-isolate --verify-only --config $f --out $R --run-id $id --case "$@" > $OUT/san/$id.txt 2>&1; rc=$?
  echo "$tool $*: exit $rc in $((SECONDS-t0)) s; $(grep -E '(ERROR|RACECHECK|SYNCCHECK) SUMMARY' $OUT/san/$id.txt | tail -1); rows passed: $(grep -c ' passed' $OUT/san/$id.txt); $(grep -m1 -E 'error detected|Missing|Divergent' $OUT/san/$id.txt)"; }
for c in syn-attn-b8-c16 syn-attn-b8-c8 syn-attn-b1-c16 syn-stack-b8-c16 syn-attn-b8-c16-fixed; do san synccheck .sit/s9/syn.ini 40 $c; done
san memcheck .sit/s9/syn.ini 40 syn-attn-b8-c16
san racecheck tests/gpu_ini/decode_replay.ini 150 tiny-d128-g4-cluster,tiny-g8-cluster16
tar -C $OUT -czf $OUT/g3-san.tgz san; rm -rf $OUT/san $R; mkdir -p $R
t0=$SECONDS; timeout 60 $K --tune --out $R --tune-cache $R/tune-cache.ini --timeout 55 --run-id t-attn --plugin decode_replay --case attn-only --dtype fp16 --profile graph_pdl > $OUT/tune-attn.txt 2>&1; echo "attn tune exit $? in $((SECONDS-t0)) s"
grep -E "^attn-only" $OUT/tune-attn.txt | grep -E "gemv=plain" | cut -c1-150
t0=$SECONDS; timeout 170 $K --tune --out $R --tune-cache $R/tune-cache.ini --timeout 165 --run-id t-llama --plugin decode_replay --case llama8b-4l --dtype fp16 --profile graph_pdl > $OUT/tune-llama.txt 2>&1; echo "llama tune exit $? in $((SECONDS-t0)) s"
grep -E "^llama8b" $OUT/tune-llama.txt | grep -E "mma.*(stream|plain)" | cut -c1-150
tar -C $OUT -czf $OUT/g3-runs.tgz r; gzip -f $OUT/tune-attn.txt $OUT/tune-llama.txt; rm -rf $R
