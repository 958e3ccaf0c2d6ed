#!/bin/bash
# nineteenth sitting, call 4 (issue 22): a = de9b579 (row plan, row kernel, RMSNorm op, klab's copy as before),
# b = this tree: short aligned rows (16-256 vectors) in small blocks (RMSNorm 2 vectors a thread, softmax 4),
# bf16 RMSNorm's epilogue in whole rows only, klab's copy in 4 KiB blocks from 32 MiB a side. Alternating
# processes, two each: both sweeps N = 128 .. 4096 (fp16, fp32, bf16), the INIs' short-row and model cases;
# klab's copy rate per size in both; then test_gpu_rows on b.
C=$1; export KLAB_COMMIT=$C
S=.sit/s19
nvidia-smi --query-gpu=name,uuid,clocks.max.sm --format=csv,noheader
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu
t0=$SECONDS; KLAB_TARGETS="klab klab_bench rmsnorm softmax test_gpu_rows" bash tools/gpu-run.sh build > $OUT/build.txt 2>&1 || { tail -30 $OUT/build.txt; exit 1; }; echo "build b $((SECONDS-t0)) s"
T=/tmp/tree-a; mkdir -p $T && tar --exclude=./build-gpu --exclude=./.sit --exclude=./.deps -cf - . | tar -C $T -xf - && ln -s $PWD/.deps $T/.deps
cp $S/a/row_plan.c $S/a/row_kernel.cuh $S/a/rms_op.cuh $T/plugins/common/; cp $S/a/gpu_kernels.cu $S/a/gpu_kernels.h $T/core/
t0=$SECONDS; (cd $T && KLAB_TARGETS="klab rmsnorm softmax" bash tools/gpu-run.sh build > $OUT/build-a.txt 2>&1) || { tail -30 $OUT/build-a.txt; exit 1; }; echo "build a $((SECONDS-t0)) s"
R=$OUT/r; I=$OUT/ini; mkdir -p $R $OUT/logs $I
for f in experiments/rowsweep_rmsnorm experiments/rowsweep_softmax ini/rmsnorm ini/softmax; do awk '/^[[:space:]]*budget_ms/ {next} /^[[:space:]]*dtypes/ {print "dtypes = fp16, fp32, bf16"; next} {print} /^\[defaults\]/ {print "budget_ms = 300"}' $f.ini > $I/$(basename $f).ini; done
t0=$SECONDS
for rep in 0 1; do for side in a b; do
  KK=build-gpu/klab; [ $side = a ] && KK=$T/build-gpu/klab
  timeout 60 $KK --config $I/rowsweep_rmsnorm.ini --case n128,n256,n512,n1024,n2048,n4096 --out $R --run-id sr-$side-$rep > $OUT/logs/sr-$side-$rep.txt 2>&1 || echo "sr $side $rep failed"
  timeout 60 $KK --config $I/rowsweep_softmax.ini --case n128,n256,n512,n1024,n2048,n4096 --out $R --run-id ss-$side-$rep > $OUT/logs/ss-$side-$rep.txt 2>&1 || echo "ss $side $rep failed"
  timeout 40 $KK --config $I/rmsnorm.ini --case 8192x128,4096x4096,4096x8192 --profile fused --out $R --run-id mr-$side-$rep > $OUT/logs/mr-$side-$rep.txt 2>&1 || echo "mr $side $rep failed"
  timeout 40 $KK --config $I/softmax.ini --case 4096x1024,65536x128,32768x1000 --profile fused --out $R --run-id ms-$side-$rep > $OUT/logs/ms-$side-$rep.txt 2>&1 || echo "ms $side $rep failed"
done; done; echo "A/B in $((SECONDS-t0)) s"
python3 $S/ab.py $R | sed 's/ | c  c\/a nan//'
python3 $S/lim.py $R
grep -h 'cta=' $R/*-b-0/*.csv | awk -F, '{print $3, $5, $7}' | sort -u | head -60 > $OUT/logs/plans-b.txt
tar -C $OUT -czf $OUT/g4-runs.tgz r logs ini
t0=$SECONDS; timeout 170 ctest --test-dir build-gpu -R 'test_gpu_rows' --output-on-failure --timeout 165 > $OUT/logs/ctest.txt 2>&1; echo "ctest exit $? in $((SECONDS-t0)) s"
grep -E "Test +#|tests passed|^not ok|Failed|FAIL" $OUT/logs/ctest.txt | head -20
tar -C $OUT -czf $OUT/g4-runs.tgz r logs ini; rm -rf $R $OUT/logs $I
