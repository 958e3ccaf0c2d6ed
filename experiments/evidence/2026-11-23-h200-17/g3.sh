#!/bin/bash
# seventeenth sitting, call 3 (issue 22): streaming plans of several blocks an SM beside the one-block
# 1024 x 8 plan at the long rows (ABAB cases); ncu of the 1024 x 8 kernel at fp16 512x65536 and fp32
# 1024x32768 (issue, pipes, stall reasons): is its gap the SM's arithmetic, serial with memory?
C=$1; export KLAB_COMMIT=$C
t0=$SECONDS; KLAB_COMMIT=$C KLAB_TARGETS="klab klab_bench rmsnorm softmax" bash tools/gpu-run.sh build > $OUT/build.txt 2>&1 || { tail -30 $OUT/build.txt; exit 1; }; echo "build $((SECONDS-t0)) s"
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu
nvidia-smi --query-gpu=name,uuid,clocks.max.sm --format=csv,noheader
K=build-gpu/klab; R=$OUT/r; mkdir -p $R $OUT/ini $OUT/logs
python3 .sit/s17/mkini3.py $OUT/ini
cat > $OUT/show.py <<'PY'
import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    if r['median_ms']: print(f"{r['case']:26s} {r['dtype']:5s} {float(r['median_ms'])*1e3:8.2f} [{float(r['median_lo'])*1e3:.2f}-{float(r['median_hi'])*1e3:.2f}] {100*float(r['frac_limit'] or 0):5.1f}% {r['config']}")
    else: print(r['case'], r['dtype'], r['status'], r['reason'][:120])
PY
t0=$SECONDS; timeout 200 $K --config $OUT/ini/s17_3_rmsnorm.ini --out $R --run-id ab-rms --timeout 60 > $OUT/logs/ab-rms.txt 2>&1; echo "rmsnorm A/B exit $? in $((SECONDS-t0)) s"
python3 $OUT/show.py $R/ab-rms/rmsnorm.csv
tar -C $OUT -czf $OUT/g3-runs.tgz r ini logs
t0=$SECONDS; timeout 100 $K --config $OUT/ini/s17_3_softmax.ini --out $R --run-id ab-smx --timeout 60 > $OUT/logs/ab-smx.txt 2>&1; echo "softmax A/B exit $? in $((SECONDS-t0)) s"
python3 $OUT/show.py $R/ab-smx/softmax.csv
tar -C $OUT -czf $OUT/g3-runs.tgz r ini logs
for c in n65536-fp16-own-0:fp16 n32768-fp32-own-0:fp32; do
  cs=${c%%:*}; d=${c##*:}
  t0=$SECONDS; timeout 100 ncu --clock-control none --section SpeedOfLight --section WarpStateStats --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section InstructionStats -k regex:row_kernel -c 1 -o $OUT/ncu-$cs $K --no-isolate --verify-only --config $OUT/ini/s17_3_rmsnorm.ini --case $cs --dtype $d --out $R --run-id ncu-$cs > $OUT/logs/ncu-$cs.txt 2>&1; echo "ncu $cs exit $? in $((SECONDS-t0)) s"
  ncu -i $OUT/ncu-$cs.ncu-rep --page details --csv > $OUT/logs/det-$cs.csv 2>&1
  grep -E '"(Duration|DRAM Throughput|Memory Throughput|Compute \(SM\) Throughput|Executed Ipc Active|Issue Slots Busy|Issued Warp Per Scheduler|No Eligible|Warp Cycles Per Issued Instruction|Executed Instructions|Achieved Occupancy|L1/TEX Hit Rate|L2 Hit Rate)"' $OUT/logs/det-$cs.csv | awk -F'","' '{print $(NF-3) " | " $(NF-1) " " $NF}' | head -16
  ncu -i $OUT/ncu-$cs.ncu-rep --page raw --csv --metrics smsp__pcsamp_warps_issue_stalled_barrier,smsp__pcsamp_warps_issue_stalled_long_scoreboard,smsp__pcsamp_warps_issue_stalled_short_scoreboard,smsp__pcsamp_warps_issue_stalled_selected,smsp__pcsamp_warps_issue_stalled_math_pipe_throttle,smsp__pcsamp_warps_issue_stalled_lg_throttle,smsp__pcsamp_warps_issue_stalled_wait,smsp__pcsamp_warps_issue_stalled_drain,smsp__pcsamp_warps_issue_stalled_not_selected,smsp__pcsamp_warps_issue_stalled_dispatch_stall,smsp__pcsamp_warps_issue_stalled_membar > $OUT/logs/raw-$cs.csv 2>&1
done
tar -C $OUT -czf $OUT/g3-runs.tgz r ini logs; rm -rf $R $OUT/ini $OUT/logs $OUT/show.py $OUT/*.ncu-rep
