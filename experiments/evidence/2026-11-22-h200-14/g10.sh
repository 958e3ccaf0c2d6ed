#!/bin/bash
# fourteenth sitting, call 10: the final code (3457179: persistence compile-time): verify the several-tiles-a-CTA stack; the committed INI's llama8b-4l, llama8b-4l-b8, small-16l under graph_pdl
C=$1; export KLAB_COMMIT=$C
t0=$SECONDS; KLAB_COMMIT=$C KLAB_TARGETS="klab decode_replay" bash tools/gpu-run.sh build > $OUT/build.txt 2>&1 || { tail -30 $OUT/build.txt; exit 1; }; echo "build $((SECONDS-t0)) s"
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu; rm -f $OUT/log.txt $OUT/results.tgz
nvidia-smi --query-gpu=name,uuid --format=csv,noheader
K=build-gpu/klab; R=$OUT/r; mkdir -p $R $OUT/iniv
python3 .sit/s14/mkini5.py $OUT/iniv/decode_replay.ini verify
t0=$SECONDS; timeout 40 $K --no-isolate --verify-only --plugin decode_replay --ini-dir $OUT/iniv --out $R --run-id persist > $OUT/persist.txt 2>&1; echo "persist exit $? in $((SECONDS-t0)) s"; grep -E "^run persist" $OUT/persist.txt | head -1
t0=$SECONDS; timeout 70 $K --plugin decode_replay --case llama8b-4l,llama8b-4l-b8,small-16l --dtype fp16 --profile graph_pdl --out $R --run-id decode --timeout 60 > $OUT/decode.txt 2>&1; echo "decode exit $? in $((SECONDS-t0)) s"
grep -E "^(llama|small)" $OUT/decode.txt | cut -c1-150
tar -C $OUT -czf $OUT/g10-runs.tgz r iniv; gzip -f $OUT/*.txt; rm -rf $R $OUT/iniv
