#!/bin/bash
# tenth sitting, call 2: the attention's span against its bytes (attn-only at kv 512 .. 16384, mma_cluster and mma_tma, probed, graph and graph_pdl); ncu source counters of the TMA kernel (attn-only graph_pdl)
C=$1; export KLAB_COMMIT=$C
t0=$SECONDS; KLAB_COMMIT=$C KLAB_TARGETS="klab decode_replay" bash tools/gpu-run.sh build > $OUT/build.txt 2>&1 || { tail -30 $OUT/build.txt; exit 1; }; echo "build $((SECONDS-t0)) s"
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu; rm -f $OUT/log.txt $OUT/results.tgz
nvidia-smi --query-gpu=name,uuid --format=csv,noheader
K=build-gpu/klab; R=$OUT/r; mkdir -p $R $OUT/ini
python3 .sit/s10/mkini.py $OUT/ini/decode_replay.ini
t0=$SECONDS; KLAB_DECODE_PROBES=$R/probes timeout 200 $K --plugin decode_replay --ini-dir $OUT/ini --out $R --run-id scale --timeout 60 > $OUT/scale.txt 2>&1; echo "scale exit $? in $((SECONDS-t0)) s"
grep -E "^attn" $OUT/scale.txt | cut -c1-120
python3 tools/decode_probes.py $R/scale --probes $R/probes/decode_replay.probes > $OUT/scale-tables.md 2>&1; grep -A6 "## kernels of" $OUT/scale-tables.md | grep -E "kernels of|graph \| attn" | head -40
gzip -f $R/probes/decode_replay.probes/*.csv 2>/dev/null
tar -C $OUT -czf $OUT/g2-runs.tgz r ini
t0=$SECONDS; timeout 150 ncu --clock-control none --section WarpStateStats --section SourceCounters --page source --print-source sass --csv -k regex:attn_mma -c 1 $K --no-isolate --verify-only --plugin decode_replay --ini-dir $OUT/ini --case attn-kv4096-tma --profile graph_pdl --out $R --run-id ncu > $OUT/ncu-src.csv 2> $OUT/ncu-src.err; echo "ncu source exit $? in $((SECONDS-t0)) s"; wc -c $OUT/ncu-src.csv; tail -2 $OUT/ncu-src.err
gzip -f $OUT/ncu-src.csv $OUT/scale.txt $OUT/build.txt; rm -rf $R $OUT/ini
