#!/bin/bash
# ninth sitting, call 5: where the cluster attention's warps stall, instruction by instruction (ncu source counters, attn-only graph_pdl, the last code)
C=$1; export KLAB_COMMIT=$C
t0=$SECONDS; KLAB_COMMIT=$C KLAB_TARGETS="klab decode_replay" bash tools/gpu-run.sh build > $OUT/build.txt 2>&1 || { tail -30 $OUT/build.txt; exit 1; }; echo "build $((SECONDS-t0)) s"
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu; rm -f $OUT/log.txt $OUT/results.tgz
nvidia-smi --query-gpu=name,uuid --format=csv,noheader
K=build-gpu/klab; R=$OUT/r; mkdir -p $R
t0=$SECONDS; timeout 150 ncu --clock-control none --section WarpStateStats --section SourceCounters --page source --print-source sass --csv -k regex:attn_mma -c 1 $K --no-isolate --verify-only --plugin decode_replay --case attn-only --dtype fp16 --profile graph_pdl --out $R --run-id ncu > $OUT/ncu-src.csv 2> $OUT/ncu-src.err; echo "ncu source exit $? in $((SECONDS-t0)) s"; wc -c $OUT/ncu-src.csv; head -3 $OUT/ncu-src.csv | cut -c1-400; tail -3 $OUT/ncu-src.err
t0=$SECONDS; timeout 100 ncu --clock-control none --section WarpStateStats --section SourceCounters -k regex:attn_mma -c 1 $K --no-isolate --verify-only --plugin decode_replay --case attn-only --dtype fp16 --profile graph_pdl --out $R --run-id ncu2 > $OUT/ncu-stalls.txt 2>&1; echo "ncu details exit $? in $((SECONDS-t0)) s"
grep -vE "^==PROF==" $OUT/ncu-stalls.txt | grep -A60 "Warp State Statistics\|Source Counters" | head -90
gzip -f $OUT/ncu-src.csv; rm -rf $R
