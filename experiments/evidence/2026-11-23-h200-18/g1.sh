#!/bin/bash
# eighteenth sitting, call 1 (issue 22): where klab's RMSNorm trails torch.compile (N = 8192-32768, the
# lower bound >= 1.0 target): torch_rows at n8192..n32768 (fp16, fp32) against the current own choices;
# ncu (speed of light, warp states, instruction stats, source counters) of klab's own kernel and of
# Triton's at fp32 1024x32768 (1024 x 8 streaming), fp32 2048x16384 (512 x 8 on chip), fp16 1024x32768
C=$1; export KLAB_COMMIT=$C
t0=$SECONDS; KLAB_TARGETS="klab klab_bench rmsnorm" bash tools/gpu-run.sh build > $OUT/build.txt 2>&1 || { tail -30 $OUT/build.txt; exit 1; }; echo "build $((SECONDS-t0)) s"
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu
nvidia-smi --query-gpu=name,uuid,clocks.max.sm --format=csv,noheader
K=build-gpu/klab; R=$OUT/r; mkdir -p $R $OUT/logs
t0=$SECONDS; timeout 200 python3 tools/torch_rows.py --build build-gpu --budget-ms 300 --ini experiments/rowsweep_rmsnorm.ini --cases n8192,n16384,n32768 --out $R/torch > $OUT/logs/torch.txt 2>&1; echo "torch_rows exit $? in $((SECONDS-t0)) s"
tail -45 $OUT/logs/torch.txt
tar -C $OUT -czf $OUT/g1-runs.tgz r logs
SEC="--section SpeedOfLight --section WarpStateStats --section InstructionStats --section MemoryWorkloadAnalysis --section LaunchStats --section Occupancy --section SourceCounters --import-source yes"
for c in 1024:32768:fp32:n32768 2048:16384:fp32:n16384 1024:32768:fp16:n32768; do
  IFS=: read m n d cs <<< "$c"
  t0=$SECONDS; timeout 90 ncu --clock-control none $SEC -k regex:row_kernel -c 1 -o $OUT/k-$n-$d $K --no-isolate --verify-only --config experiments/rowsweep_rmsnorm.ini --case $cs --dtype $d --out $R --run-id ncu-$n-$d > $OUT/logs/ncu-k-$n-$d.txt 2>&1; echo "ncu klab $n $d exit $? in $((SECONDS-t0)) s"
  t0=$SECONDS; timeout 120 ncu --clock-control none --profile-from-start off $SEC -k regex:triton -c 1 -o $OUT/t-$n-$d python3 .sit/s18/tc.py $m $n $d > $OUT/logs/ncu-t-$n-$d.txt 2>&1; echo "ncu triton $n $d exit $? in $((SECONDS-t0)) s"
  for w in k t; do
    ncu -i $OUT/$w-$n-$d.ncu-rep --page details --csv > $OUT/logs/det-$w-$n-$d.csv 2>&1
    ncu -i $OUT/$w-$n-$d.ncu-rep --page source --csv --print-source sass > $OUT/logs/src-$w-$n-$d.csv 2>&1
    grep -E '"(Duration|DRAM Throughput|Executed Instructions|Issue Slots Busy|Registers Per Thread|Achieved Occupancy|L1/TEX Hit Rate|Block Size|Grid Size)"' $OUT/logs/det-$w-$n-$d.csv | awk -F'","' '{print "'$w' '$n' '$d' " $(NF-3) " | " $(NF-1) " " $NF}' | head -12
  done
  tar -C $OUT -czf $OUT/g1-runs.tgz r logs
done
rm -rf $R $OUT/logs $OUT/*.ncu-rep
