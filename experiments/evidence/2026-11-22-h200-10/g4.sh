#!/bin/bash
# tenth sitting, call 4: where the attention's fixed ~6 us goes: ncu source counters and warp states of attn_mma_kernel (mma_cluster, the reverted code) at kv 512 and kv 4096 (attn-only shape, graph_pdl)
C=$1; export KLAB_COMMIT=$C
t0=$SECONDS; KLAB_COMMIT=$C KLAB_TARGETS="klab decode_replay" bash tools/gpu-run.sh build > $OUT/build.txt 2>&1 || { tail -30 $OUT/build.txt; exit 1; }; echo "build $((SECONDS-t0)) s"
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu; rm -f $OUT/log.txt $OUT/results.tgz
nvidia-smi --query-gpu=name,uuid --format=csv,noheader
K=build-gpu/klab; R=$OUT/r; mkdir -p $R $OUT/ini; export KLAB_DECODE_PROBES=$R/probes
python3 .sit/s10/mkini.py $OUT/ini/decode_replay.ini
for kv in 512 4096; do
  t0=$SECONDS; timeout 90 ncu --clock-control none --section WarpStateStats --section SourceCounters --page source --print-source sass --csv -k regex:attn_mma -c 1 $K --no-isolate --verify-only --plugin decode_replay --ini-dir $OUT/ini --case attn-kv$kv-cluster --profile graph_pdl --out $R --run-id ncu$kv > $OUT/ncu-src-$kv.csv 2> $OUT/ncu-src-$kv.err; echo "ncu source kv$kv exit $? in $((SECONDS-t0)) s"; wc -c < $OUT/ncu-src-$kv.csv
  t0=$SECONDS; timeout 90 ncu --clock-control none --section SpeedOfLight --section WarpStateStats --section LaunchStats --section Occupancy -k regex:attn_mma -c 1 $K --no-isolate --verify-only --plugin decode_replay --ini-dir $OUT/ini --case attn-kv$kv-cluster --profile graph_pdl --out $R --run-id ncud$kv > $OUT/ncu-det-$kv.txt 2>&1; echo "ncu details kv$kv exit $? in $((SECONDS-t0)) s"
  grep -E "Duration|DRAM Throughput|Warp Cycles Per Issued|Registers|Achieved Occupancy|Grid Size|Cluster" $OUT/ncu-det-$kv.txt | head -12
done
gzip -f $OUT/ncu-src-*.csv $OUT/build.txt; rm -rf $R $OUT/ini
