#!/bin/bash
# fourteenth sitting, call 9: did the persistent loop (06a81ef) slow small-16l's O and down streams? small-16l graph_pdl with decode_replay.so built from this tree (cc4da28) and from 997c62f's plugins/ (.sit/s14/old), ABAB
C=$1; export KLAB_COMMIT=$C
t0=$SECONDS; KLAB_COMMIT=$C KLAB_TARGETS="klab decode_replay" bash tools/gpu-run.sh build > $OUT/build.txt 2>&1 || { tail -30 $OUT/build.txt; exit 1; }; echo "build $((SECONDS-t0)) s"
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu; rm -f $OUT/log.txt $OUT/results.tgz
nvidia-smi --query-gpu=name,uuid --format=csv,noheader
K=build-gpu/klab; R=$OUT/r; mkdir -p $R $OUT/ini /tmp/so
cp build-gpu/plugins/decode_replay.so /tmp/so/new.so
rm -rf plugins.new && cp -r plugins plugins.new && rm -rf plugins && cp -r .sit/s14/old/plugins plugins
t0=$SECONDS; KLAB_COMMIT=$C KLAB_TARGETS="decode_replay" bash tools/gpu-run.sh build > $OUT/build-old.txt 2>&1 || { tail -30 $OUT/build-old.txt; exit 1; }; echo "build old $((SECONDS-t0)) s"
cp build-gpu/plugins/decode_replay.so /tmp/so/old.so
rm -rf plugins && mv plugins.new plugins
python3 .sit/s14/mkini9.py $OUT/ini/decode_replay.ini
for run in new-a old-a new-b old-b; do
  cp /tmp/so/${run%-*}.so build-gpu/plugins/decode_replay.so
  t0=$SECONDS; timeout 60 $K --plugin decode_replay --ini-dir $OUT/ini --out $R --run-id $run --timeout 50 > $OUT/$run.txt 2>&1; echo "$run exit $? in $((SECONDS-t0)) s"; grep -E "^S " $OUT/$run.txt | cut -c1-120
done
tar -C $OUT -czf $OUT/g9-runs.tgz r ini; gzip -f $OUT/*.txt; rm -rf $R $OUT/ini
