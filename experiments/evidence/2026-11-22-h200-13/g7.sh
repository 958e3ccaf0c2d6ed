#!/bin/bash
# thirteenth sitting, call 7: the cluster attention's splits (dim.chunk) at small-16l, attn-only, llama8b-4l, graph_pdl; then probed
C=$1; export KLAB_COMMIT=$C
t0=$SECONDS; KLAB_COMMIT=$C KLAB_TARGETS="klab decode_replay" bash tools/gpu-run.sh build > $OUT/build.txt 2>&1 || { tail -30 $OUT/build.txt; exit 1; }; echo "build $((SECONDS-t0)) s"
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu; rm -f $OUT/log.txt $OUT/results.tgz
nvidia-smi --query-gpu=name,uuid --format=csv,noheader
K=build-gpu/klab; R=$OUT/r; mkdir -p $R $OUT/ini $OUT/inip
python3 .sit/s13/mkini7.py $OUT/ini/decode_replay.ini
t0=$SECONDS; timeout 200 $K --plugin decode_replay --ini-dir $OUT/ini --out $R --run-id var --timeout 60 > $OUT/var.txt 2>&1; echo "var exit $? in $((SECONDS-t0)) s"
grep -E "^(L-|S-|A-)" $OUT/var.txt | cut -c1-120
tar -C $OUT -czf $OUT/g7-runs.tgz r ini
python3 .sit/s13/mkini7.py $OUT/inip/decode_replay.ini probes
t0=$SECONDS; KLAB_DECODE_PROBES=$R/probes timeout 100 $K --plugin decode_replay --ini-dir $OUT/inip --case S-c64,S-c128,S-c256,A-c256,A-c512 --out $R --run-id probed --timeout 60 > $OUT/probed.txt 2>&1; echo "probed exit $? in $((SECONDS-t0)) s"
python3 tools/decode_probes.py $R/probed --probes $R/probes/decode_replay.probes > $OUT/probed-tables.md 2>&1; grep -A14 "## kernels of" $OUT/probed-tables.md | grep -E "kernels of|graph_pdl" | head -40
gzip -f $R/probes/decode_replay.probes/*.csv 2>/dev/null
tar -C $OUT -czf $OUT/g7-runs.tgz r ini inip
gzip -f $OUT/var.txt $OUT/probed.txt $OUT/build.txt; rm -rf $R $OUT/ini $OUT/inip
