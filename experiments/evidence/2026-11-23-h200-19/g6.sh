#!/bin/bash
# nineteenth sitting, call 6 (issue 22): (1) a = 2e4ac93's row kernel, b = this tree (the short prologue for
# aligned on-chip kernels of 1-2 vectors), alternating, two processes each: rmsnorm sweep N = 128 .. 1024
# (fp16, fp32, bf16; softmax n128/n1024 the control: unchanged kernels); (2) copy_probe --offsets: does the
# destination's placement relative to the source move a copy's rate?; (3) torch_rows at the INIs' short-row
# and model cases (the new copy as the ceiling); (4) test_gpu_rows on b.
C=$1; export KLAB_COMMIT=$C
S=.sit/s19
nvidia-smi --query-gpu=name,uuid,clocks.max.sm --format=csv,noheader
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu
nvcc -O3 -std=c++17 -arch=sm_90a -o $OUT/copy_probe $S/copy_probe.cu || exit 1
t0=$SECONDS; KLAB_TARGETS="klab klab_bench rmsnorm softmax test_gpu_rows" bash tools/gpu-run.sh build > $OUT/build.txt 2>&1 || { tail -30 $OUT/build.txt; exit 1; }; echo "build b $((SECONDS-t0)) s"
T=/tmp/tree-a; mkdir -p $T && tar --exclude=./build-gpu --exclude=./.sit --exclude=./.deps -cf - . | tar -C $T -xf - && ln -s $PWD/.deps $T/.deps
cp $S/a6/row_kernel.cuh $T/plugins/common/
t0=$SECONDS; (cd $T && KLAB_TARGETS="klab rmsnorm softmax" bash tools/gpu-run.sh build > $OUT/build-a.txt 2>&1) || { tail -30 $OUT/build-a.txt; exit 1; }; echo "build a $((SECONDS-t0)) s"
R=$OUT/r; I=$OUT/ini; mkdir -p $R $OUT/logs $I
for f in experiments/rowsweep_rmsnorm experiments/rowsweep_softmax; do awk '/^[[:space:]]*budget_ms/ {next} /^[[:space:]]*dtypes/ {print "dtypes = fp16, fp32, bf16"; next} {print} /^\[defaults\]/ {print "budget_ms = 300"}' $f.ini > $I/$(basename $f).ini; done
t0=$SECONDS
for rep in 0 1; do for side in a b; do
  KK=build-gpu/klab; [ $side = a ] && KK=$T/build-gpu/klab
  timeout 50 $KK --config $I/rowsweep_rmsnorm.ini --case n128,n256,n512,n1024 --out $R --run-id sr-$side-$rep > $OUT/logs/sr-$side-$rep.txt 2>&1 || echo "sr $side $rep failed"
  timeout 30 $KK --config $I/rowsweep_softmax.ini --case n128,n1024 --out $R --run-id ss-$side-$rep > $OUT/logs/ss-$side-$rep.txt 2>&1 || echo "ss $side $rep failed"
done; done; echo "A/B in $((SECONDS-t0)) s"
python3 $S/ab.py $R | sed 's/ | c  c\/a nan//'
tar -C $OUT -czf $OUT/g6-runs.tgz r logs ini
t0=$SECONDS; timeout 60 $OUT/copy_probe --offsets 64 > $OUT/offsets.csv 2>&1; echo "offsets exit $? in $((SECONDS-t0)) s"; cat $OUT/offsets.csv
t0=$SECONDS; timeout 100 python3 tools/torch_rows.py --build build-gpu --budget-ms 300 --plugins rmsnorm --cases 8192x128,4096x4096,4096x8192,16384x8192 --out $R/torch-r > $OUT/logs/torch-r.txt 2>&1; echo "torch_rows rmsnorm exit $? in $((SECONDS-t0)) s"
t0=$SECONDS; timeout 60 python3 tools/torch_rows.py --build build-gpu --budget-ms 300 --plugins softmax --cases 4096x1024,65536x128 --out $R/torch-s > $OUT/logs/torch-s.txt 2>&1; echo "torch_rows softmax exit $? in $((SECONDS-t0)) s"
grep -hE "torch.compile|torch.eager|torch.softmax" $OUT/logs/torch-r.txt $OUT/logs/torch-s.txt | grep ratio
tar -C $OUT -czf $OUT/g6-runs.tgz r logs ini offsets.csv
t0=$SECONDS; timeout 170 ctest --test-dir build-gpu -R 'test_gpu_rows' --output-on-failure --timeout 165 > $OUT/logs/ctest.txt 2>&1; echo "ctest exit $? in $((SECONDS-t0)) s"
grep -E "Test +#|tests passed|^not ok|Failed|FAIL" $OUT/logs/ctest.txt | head -20
tar -C $OUT -czf $OUT/g6-runs.tgz r logs ini offsets.csv; rm -rf $R $OUT/logs $I $OUT/copy_probe
