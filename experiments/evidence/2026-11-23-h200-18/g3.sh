#!/bin/bash
# eighteenth sitting, call 3 (issue 22): on-chip plans of 4 (and 2) vectors a thread beside the own choices at
# rmsnorm N = 8192-32768 (where klab trails torch.compile), in build A (the commit) and build B (the commit
# with its 4-vector on-chip aligned kernels bounded to two blocks an SM, __launch_bounds__(1024, 2): 32
# registers, .sit/s18/lb/row_kernel.cuh, built in a copy of the tree); three processes each, alternating;
# torch_rows in the same call
C=$1; export KLAB_COMMIT=$C
t0=$SECONDS; KLAB_TARGETS="klab klab_bench rmsnorm" bash tools/gpu-run.sh build > $OUT/build.txt 2>&1 || { tail -30 $OUT/build.txt; exit 1; }; echo "build A $((SECONDS-t0)) s"
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu
nvidia-smi --query-gpu=name,uuid,clocks.max.sm --format=csv,noheader
K=build-gpu/klab; R=$OUT/r; mkdir -p $R $OUT/ini $OUT/logs
T=/tmp/btree; mkdir -p $T && tar --exclude=./build-gpu --exclude=./.sit --exclude=./.deps -cf - . | tar -C $T -xf - && ln -s $PWD/.deps $T/.deps
cp .sit/s18/lb/row_kernel.cuh $T/plugins/common/
t0=$SECONDS; (cd $T && KLAB_COMMIT=$C-lb KLAB_TARGETS="klab rmsnorm" bash tools/gpu-run.sh build > $OUT/build-b.txt 2>&1) || { tail -30 $OUT/build-b.txt; exit 1; }; echo "build B $((SECONDS-t0)) s"
python3 .sit/s18/mkini3.py $OUT/ini
t0=$SECONDS
for rep in 0 1 2; do for side in old new; do
  KK=$K; [ $side = new ] && KK=$T/build-gpu/klab
  timeout 60 $KK --config $OUT/ini/s18_3.ini --out $R --run-id rms-$side-$rep --timeout 30 > $OUT/logs/rms-$side-$rep.txt 2>&1 || echo "rms $side $rep failed"
done; done; echo "A/B in $((SECONDS-t0)) s (old = A, new = B)"
python3 .sit/s18/ab.py $R
tar -C $OUT -czf $OUT/g3-runs.tgz r ini logs
t0=$SECONDS; timeout 150 python3 tools/torch_rows.py --build build-gpu --budget-ms 300 --ini experiments/rowsweep_rmsnorm.ini --cases n8192,n16384,n32768 --out $R/torch > $OUT/logs/torch.txt 2>&1; echo "torch_rows exit $? in $((SECONDS-t0)) s"
grep -E "torch.compile" $OUT/logs/torch.txt | tail -6
tar -C $OUT -czf $OUT/g3-runs.tgz r ini logs; rm -rf $R $OUT/ini $OUT/logs
