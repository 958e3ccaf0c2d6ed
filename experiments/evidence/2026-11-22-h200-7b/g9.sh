#!/bin/bash
# seventh sitting, call 9: the decode tune at llama8b-4l with >= 1000 steps a row (every attention x GEMV path), the mma attention's probes at attn-only and its ncu sections
C=$1; export KLAB_COMMIT=$C
[ -x build-gpu/klab ] || { KLAB_COMMIT=$C bash tools/gpu-run.sh build > $OUT/build.txt 2>&1 || { tail -30 $OUT/build.txt; exit 1; }; }
[ -d /opt/deps ] || bash tools/gpu-run.sh build > $OUT/build.txt 2>&1
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu
nvidia-smi --query-gpu=name,uuid --format=csv,noheader
K=build-gpu/klab; R=$OUT/r; mkdir -p $R $OUT/ini $OUT/inip
t0=$SECONDS; timeout 260 $K --tune --out $R --tune-cache $R/tune-cache.ini --timeout 255 --run-id t-llama --plugin decode_replay --case llama8b-4l --dtype fp16 --profile graph,graph_pdl > $OUT/tune-llama.txt 2>&1; echo "tune exit $? in $((SECONDS-t0)) s"
grep -E "^llama" $OUT/tune-llama.txt | awk '{print $3, $4, $6, $7, $10, $NF}' | sort -k1,1 -k3,3n; grep -A4 "tuned on" $OUT/tune-llama.txt | cut -c1-200
tar -C $OUT -czf $OUT/g9-runs.tgz r
awk '{print} /^\[case attn-only\]/ {print "param.probes = 1"}' ini/decode_replay.ini | awk '/^[[:space:]]*budget_ms/ {next} {print} /^\[defaults\]/ {print "budget_ms = 3000"}' > $OUT/inip/decode_replay.ini
t0=$SECONDS; KLAB_DECODE_PROBES=$R/probes timeout 60 $K --plugin decode_replay --ini-dir $OUT/inip --case attn-only --dtype fp16 --profile graph,graph_pdl --out $R --run-id attn-probes --timeout 55 > $OUT/probes.txt 2>&1; echo "probes exit $? in $((SECONDS-t0)) s"
S="--section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section Occupancy --section LaunchStats --section SchedulerStats"
t0=$SECONDS; timeout 60 ncu $S -k regex:attn_mma -c 2 $K --no-isolate --verify-only --plugin decode_replay --ini-dir $OUT/inip --case attn-only --dtype fp16 --profile eager --out $R --run-id ncu-mma > $OUT/ncu-mma.txt 2>&1; echo "ncu exit $? in $((SECONDS-t0)) s"
grep -E "attn_mma|DRAM Throughput|Duration|Achieved Occupancy|Registers Per|Issued Warp|Eligible Warps|Compute \(SM\)" $OUT/ncu-mma.txt | head -20
tar -C $OUT -czf $OUT/g9-runs.tgz r; rm -rf $R $OUT/ini $OUT/inip
