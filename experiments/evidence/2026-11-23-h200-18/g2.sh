#!/bin/bash
# eighteenth sitting, call 2 (issue 22): the wide kernels' short prologue (no division by the cluster before the first
# load, unsigned row math) and whole first-pass steps of the aligned row kernels, old (86d4d5c's
# row_kernel.cuh, built in a copy of the tree) and new alternating, three processes each over both
# sweeps N = 8192 .. 262144; torch_rows rmsnorm N = 8192 .. 32768 beside the new build; ncu of the new
# kernels (the call-1 shapes); test_gpu_rows and test_gpu_swired
C=$1; O=86d4d5c; export KLAB_COMMIT=$C
t0=$SECONDS; KLAB_TARGETS="klab klab_bench rmsnorm softmax rmsnorm_rope reduction swiglu test_gpu_rows test_gpu_swired" bash tools/gpu-run.sh build > $OUT/build.txt 2>&1 || { tail -30 $OUT/build.txt; exit 1; }; echo "build new $((SECONDS-t0)) s"
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu
nvidia-smi --query-gpu=name,uuid,clocks.max.sm --format=csv,noheader
K=build-gpu/klab; R=$OUT/r; mkdir -p $R $OUT/ini $OUT/logs
T=/tmp/oldtree; mkdir -p $T && tar --exclude=./build-gpu --exclude=./.sit --exclude=./.deps -cf - . | tar -C $T -xf - && ln -s $PWD/.deps $T/.deps
cp .sit/s18/old/row_kernel.cuh $T/plugins/common/
t0=$SECONDS; (cd $T && KLAB_COMMIT=$O KLAB_TARGETS="klab rmsnorm softmax" bash tools/gpu-run.sh build > $OUT/build-old.txt 2>&1) || { tail -30 $OUT/build-old.txt; exit 1; }; echo "build old $((SECONDS-t0)) s"
for p in rmsnorm softmax; do awk '/^[[:space:]]*budget_ms/ {next} {print} /^\[defaults\]/ {print "budget_ms = 300"}' experiments/rowsweep_$p.ini > $OUT/ini/rowsweep_$p.ini; done
t0=$SECONDS
for rep in 0 1 2; do for side in old new; do
  KK=$K; [ $side = old ] && KK=$T/build-gpu/klab
  timeout 40 $KK --config $OUT/ini/rowsweep_rmsnorm.ini --case n8192,n16384,n32768,n65536,n131072,n262144 --out $R --run-id rms-$side-$rep --timeout 30 > $OUT/logs/rms-$side-$rep.txt 2>&1 || echo "rms $side $rep failed"
  timeout 40 $KK --config $OUT/ini/rowsweep_softmax.ini --case n8192,n16384,n32768,n65536,n131072 --out $R --run-id smx-$side-$rep --timeout 30 > $OUT/logs/smx-$side-$rep.txt 2>&1 || echo "smx $side $rep failed"
done; done; echo "A/B in $((SECONDS-t0)) s"
python3 .sit/s18/ab.py $R
tar -C $OUT -czf $OUT/g2-runs.tgz r ini logs
t0=$SECONDS; timeout 150 python3 tools/torch_rows.py --build build-gpu --budget-ms 300 --ini experiments/rowsweep_rmsnorm.ini --cases n8192,n16384,n32768 --out $R/torch > $OUT/logs/torch.txt 2>&1; echo "torch_rows exit $? in $((SECONDS-t0)) s"
grep -E "torch.compile" $OUT/logs/torch.txt | tail -8
tar -C $OUT -czf $OUT/g2-runs.tgz r ini logs
SEC="--section SpeedOfLight --section WarpStateStats --section InstructionStats --section LaunchStats --section Occupancy --section SourceCounters --import-source yes"
for c in 32768:fp32:n32768 16384:fp32:n16384 32768:fp16:n32768; do
  IFS=: read n d cs <<< "$c"
  timeout 60 ncu --clock-control none $SEC -k regex:row_kernel -c 1 -o $OUT/k-$n-$d $K --no-isolate --verify-only --config experiments/rowsweep_rmsnorm.ini --case $cs --dtype $d --out $R --run-id ncu-$n-$d > $OUT/logs/ncu-k-$n-$d.txt 2>&1
  ncu -i $OUT/k-$n-$d.ncu-rep --page details --csv > $OUT/logs/det-k-$n-$d.csv 2>&1
  ncu -i $OUT/k-$n-$d.ncu-rep --page source --csv --print-source sass > $OUT/logs/src-k-$n-$d.csv 2>&1
  grep -E '"(Duration|Executed Instructions|Registers Per Thread)"' $OUT/logs/det-k-$n-$d.csv | awk -F'","' '{print "'$n' '$d' " $(NF-3) " " $(NF-1) " " $NF}'
done
tar -C $OUT -czf $OUT/g2-runs.tgz r ini logs; rm -f $OUT/*.ncu-rep
t0=$SECONDS; timeout 200 ctest --test-dir build-gpu -R 'test_gpu_rows|test_gpu_swired' --output-on-failure --timeout 190 > $OUT/logs/ctest.txt 2>&1; echo "ctest exit $? in $((SECONDS-t0)) s"
grep -E "Test +#|tests passed|^not ok|Failed|FAIL" $OUT/logs/ctest.txt | head -20
tar -C $OUT -czf $OUT/g2-runs.tgz r ini logs; rm -rf $R $OUT/ini $OUT/logs
