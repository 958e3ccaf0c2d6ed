#!/bin/bash
# eleventh sitting, call 2: the split plan with tagged 64-bit slots instead of a release/acquire counter: verify the forced split cases; time the split plans beside the own choice (rmsnorm N = 65536..262144, softmax 65536 and 262144; fp16, fp32); ncu warp states of one split kernel and the own choice at n65536 fp16
C=$1; export KLAB_COMMIT=$C
t0=$SECONDS; KLAB_COMMIT=$C KLAB_TARGETS="klab rmsnorm softmax" bash tools/gpu-run.sh build > $OUT/build.txt 2>&1 || { tail -30 $OUT/build.txt; exit 1; }; echo "build $((SECONDS-t0)) s"
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu; rm -f $OUT/log.txt $OUT/results.tgz
nvidia-smi --query-gpu=name,uuid --format=csv,noheader
K=build-gpu/klab; R=$OUT/r; mkdir -p $R $OUT/ini
S="split-ragged,split-ragged-fp32,residual-split,split-1-row,split-64,split-many"
t0=$SECONDS; timeout 90 $K --verify-only --config tests/gpu_ini/rows_rmsnorm.ini --case $S --out $R --run-id vrms --timeout 60 > $OUT/vrms.txt 2>&1; echo "verify rmsnorm exit $? in $((SECONDS-t0)) s"
t0=$SECONDS; timeout 60 $K --verify-only --config tests/gpu_ini/softmax.ini --case split-ragged,split-64,split-many --out $R --run-id vsmx --timeout 60 > $OUT/vsmx.txt 2>&1; echo "verify softmax exit $? in $((SECONDS-t0)) s"
python3 .sit/s11/summ.py $R/vrms/rmsnorm.csv $R/vsmx/softmax.csv | grep fused | cut -c1-110
python3 .sit/s11/mkini.py $OUT/ini
t0=$SECONDS; timeout 200 $K --config $OUT/ini/split_rmsnorm.ini --out $R --run-id split-rms --timeout 60 > $OUT/rms.txt 2>&1; echo "rmsnorm exit $? in $((SECONDS-t0)) s"
python3 .sit/s11/summ.py $R/split-rms/rmsnorm.csv | cut -c1-150
tar -C $OUT -czf $OUT/g2-runs.tgz r ini
t0=$SECONDS; timeout 110 $K --config $OUT/ini/split_softmax.ini --out $R --run-id split-smx --timeout 60 > $OUT/smx.txt 2>&1; echo "softmax exit $? in $((SECONDS-t0)) s"
python3 .sit/s11/summ.py $R/split-smx/softmax.csv | cut -c1-150
tar -C $OUT -czf $OUT/g2-runs.tgz r ini
for c in n65536-fp16-own n65536-fp16-s256x4; do
  t0=$SECONDS; timeout 80 ncu --clock-control none --section SpeedOfLight --section WarpStateStats --section LaunchStats --section Occupancy --section MemoryWorkloadAnalysis -k regex:"row_kernel|split_kernel" -c 1 $K --no-isolate --verify-only --config $OUT/ini/split_rmsnorm.ini --case $c --out $R --run-id ncu-$c > $OUT/ncu-$c.txt 2>&1; echo "ncu $c exit $? in $((SECONDS-t0)) s"
  grep -E "Duration|DRAM Throughput|Memory Throughput|Warp Cycles Per Issued|Registers Per|Achieved Occupancy|Theoretical Occupancy|Grid Size|Block Limit Reg|Stall" $OUT/ncu-$c.txt | head -16
done
gzip -f $OUT/build.txt $OUT/vrms.txt $OUT/vsmx.txt $OUT/rms.txt $OUT/smx.txt; tar -C $OUT -czf $OUT/g2-ncu.tgz $(cd $OUT && ls ncu-*.txt); rm -rf $R $OUT/ini $OUT/ncu-*.txt
