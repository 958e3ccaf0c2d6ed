#!/bin/bash
# 21st sitting call 1 (#22): does a shared-memory-using kernel pay a reconfiguration after klab's
# shared-memory-free flush? (1) microbench; (2) b = HEAD against f = a flush holding 128 B of shared,
# torch_rows plain, alternating.
C=$1; export KLAB_COMMIT=$C
nvidia-smi --query-gpu=name,uuid --format=csv,noheader
S=.sit/s21
$S/carve 300 | tee $OUT/carve.txt
t0=$SECONDS; KLAB_TARGETS="klab klab_bench rmsnorm softmax" bash tools/gpu-run.sh build > $OUT/build.txt 2>&1 || { tail -30 $OUT/build.txt; exit 1; }; echo "build $((SECONDS-t0)) s"
T=/tmp/tree-f; mkdir -p $T && tar --exclude=./build-gpu --exclude=./.sit --exclude=./.deps -cf - . | tar -C $T -xf - && ln -s $PWD/.deps $T/.deps
patch -s -p1 -d $T < $S/flushS.patch || exit 1
t0=$SECONDS; (cd $T && KLAB_TARGETS="klab klab_bench rmsnorm softmax" bash tools/gpu-run.sh build > $OUT/build-f.txt 2>&1) || { tail -30 $OUT/build-f.txt; exit 1; }; echo "build f $((SECONDS-t0)) s"
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu
R=$OUT/r; mkdir -p $R $OUT/logs
for rep in 0 1; do for v in b f; do
  D=$PWD; [ $v = f ] && D=$T
  t0=$SECONDS; (cd $D && timeout 100 python3 tools/torch_rows.py --build build-gpu --budget-ms 300 --plugins rmsnorm --cases 65537x17,8192x128,1x4096 --out $R/r-$v-$rep > $OUT/logs/r-$v-$rep.txt 2>&1); echo "rmsnorm $v $rep exit $? in $((SECONDS-t0)) s"
  t0=$SECONDS; (cd $D && timeout 60 python3 tools/torch_rows.py --build build-gpu --budget-ms 300 --plugins softmax --cases 65537x17,4096x1024 --out $R/s-$v-$rep > $OUT/logs/s-$v-$rep.txt 2>&1); echo "softmax $v $rep exit $? in $((SECONDS-t0)) s"
done; done
for f in $OUT/logs/[rs]-*.txt; do echo "== $(basename $f)"; grep -E "torch.compile |torch.compile  " $f | grep ratio; done
tar -C $OUT -czf $OUT/g1-runs.tgz r logs; rm -rf $R $OUT/logs
