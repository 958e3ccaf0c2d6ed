#!/bin/bash
# eighth sitting, call 7: probes of llama8b-4l and small-16l with gemv=stream and plain named in the case (what the stream kernels take, why small-16l loses), and the mma attention at chunk 64/128/256 (llama8b-4l, attn-only)
C=$1; export KLAB_COMMIT=$C
t0=$SECONDS; KLAB_COMMIT=$C KLAB_TARGETS="klab decode_replay" bash tools/gpu-run.sh build > $OUT/build.txt 2>&1 || { tail -30 $OUT/build.txt; exit 1; }; echo "build $((SECONDS-t0)) s"
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu; rm -f $OUT/log.txt $OUT/results.tgz
nvidia-smi --query-gpu=name,uuid --format=csv,noheader
K=build-gpu/klab; R=$OUT/r; mkdir -p $R $OUT/ini
python3 .sit/s8/mkini.py $OUT/ini/decode_replay.ini; cp $OUT/ini/decode_replay.ini $R/
t0=$SECONDS; KLAB_DECODE_PROBES=$R/probes timeout 240 $K --plugin decode_replay --ini-dir $OUT/ini --out $R --run-id probe7 --timeout 235 > $OUT/probe7.txt 2>&1; echo "run exit $? in $((SECONDS-t0)) s"
grep -E "^(llama|small|attn)" $OUT/probe7.txt | cut -c1-140
python3 tools/decode_probes.py $R/probe7 --probes $R/probes/decode_replay.probes > $OUT/probe7-tables.md 2>&1
grep -A40 "## kernels of" $OUT/probe7-tables.md | head -90
gzip -f $R/probes/decode_replay.probes/*.csv $R/probe7/decode_replay.samples/*.csv 2>/dev/null
tar -C $OUT -czf $OUT/g7-runs.tgz r; gzip -f $OUT/probe7.txt; rm -rf $R $OUT/ini
