#!/bin/bash
# nineteenth sitting, call 3 (issue 22): three builds alternating, two processes each: a = 763c8c9's row kernel,
# b = the on-chip epilogue in whole rows (this tree), c = b with RMSNorm's on-chip w loads kept in L1
# (L1::evict_last); short rows (own plans and call 2's small blocks), one model shape per path (mk3.py);
# then test_gpu_rows on b.
C=$1; export KLAB_COMMIT=$C
S=.sit/s19
nvidia-smi --query-gpu=name,uuid,clocks.max.sm --format=csv,noheader
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu
t0=$SECONDS; KLAB_TARGETS="klab klab_bench rmsnorm softmax test_gpu_rows" bash tools/gpu-run.sh build > $OUT/build.txt 2>&1 || { tail -30 $OUT/build.txt; exit 1; }; echo "build b $((SECONDS-t0)) s"
for t in a c; do
  T=/tmp/tree-$t; mkdir -p $T && tar --exclude=./build-gpu --exclude=./.sit --exclude=./.deps -cf - . | tar -C $T -xf - && ln -s $PWD/.deps $T/.deps
done
cp $S/old/row_kernel.cuh /tmp/tree-a/plugins/common/; cp $S/c/rms_op.cuh /tmp/tree-c/plugins/common/
for t in a c; do t0=$SECONDS; (cd /tmp/tree-$t && KLAB_TARGETS="klab rmsnorm softmax" bash tools/gpu-run.sh build > $OUT/build-$t.txt 2>&1) || { tail -30 $OUT/build-$t.txt; exit 1; }; echo "build $t $((SECONDS-t0)) s"; done
R=$OUT/r; mkdir -p $R $OUT/logs; python3 $S/mk3.py $S
t0=$SECONDS
for rep in 0 1; do for side in a b c; do
  KK=build-gpu/klab; [ $side != b ] && KK=/tmp/tree-$side/build-gpu/klab
  timeout 60 $KK --config $S/s19_3r.ini --out $R --run-id r-$side-$rep > $OUT/logs/r-$side-$rep.txt 2>&1 || echo "r $side $rep failed"
  timeout 40 $KK --config $S/s19_3s.ini --out $R --run-id s-$side-$rep > $OUT/logs/s-$side-$rep.txt 2>&1 || echo "s $side $rep failed"
done; done; echo "A/B/C in $((SECONDS-t0)) s"
python3 $S/ab.py $R
tar -C $OUT -czf $OUT/g3-runs.tgz r logs
t0=$SECONDS; timeout 170 ctest --test-dir build-gpu -R 'test_gpu_rows' --output-on-failure --timeout 165 > $OUT/logs/ctest.txt 2>&1; echo "ctest exit $? in $((SECONDS-t0)) s"
grep -E "Test +#|tests passed|^not ok|Failed|FAIL" $OUT/logs/ctest.txt | head -20
tar -C $OUT -czf $OUT/g3-runs.tgz r logs; rm -rf $R $OUT/logs
