#!/bin/bash
# Written in the twenty-first sitting, NOT RUN (#22): the short prologue (row_span without signed math,
# no division by the cluster) for fp16 RMSNorm's small-grid MINB=1 instance (short-few.patch: 99 -> 69
# SASS instructions to the first load, 50 registers, no spill), p, against the repository's code, b;
# three processes each, alternating. From the repository: bash experiments/evidence/2026-11-23-h200-21/g7.sh <commit>
C=$1; export KLAB_COMMIT=$C
nvidia-smi --query-gpu=name,uuid --format=csv,noheader
S=experiments/evidence/2026-11-23-h200-21
T=/tmp/tree-p; mkdir -p $T && tar --exclude=./build-gpu --exclude=./.sit --exclude=./.deps -cf - . | tar -C $T -xf - && ln -s $PWD/.deps $T/.deps
patch -s -p1 -d $T < $S/short-few.patch || exit 1
t0=$SECONDS; KLAB_TARGETS="klab klab_bench rmsnorm" bash tools/gpu-run.sh build > $OUT/build.txt 2>&1 || { tail -30 $OUT/build.txt; exit 1; }; echo "build b $((SECONDS-t0)) s"
t0=$SECONDS; (cd $T && KLAB_TARGETS="klab klab_bench rmsnorm" bash tools/gpu-run.sh build > $OUT/build-p.txt 2>&1) || { tail -30 $OUT/build-p.txt; exit 1; }; echo "build p $((SECONDS-t0)) s"
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu
R=$OUT/r; mkdir -p $R $OUT/logs
for ini in rows_rmsnorm rmsnorm; do
  timeout 60 $T/build-gpu/klab --config tests/gpu_ini/$ini.ini --verify-only --out $R --run-id p-verify-$ini > $OUT/logs/p-verify-$ini.txt 2>&1; echo "p verify $ini exit $?"; tail -1 $OUT/logs/p-verify-$ini.txt
done
for rep in 0 1 2; do for v in b p; do
  K=build-gpu/klab; [ $v = p ] && K=$T/build-gpu/klab
  t0=$SECONDS; timeout 100 $K --config $S/ini/ab_we.ini --out $R --run-id ab-$v-$rep > $OUT/logs/ab-$v-$rep.txt 2>&1; echo "ab $v $rep exit $? in $((SECONDS-t0)) s"
done; done
python3 $S/ab.py $R
t0=$SECONDS; (cd $T && timeout 100 python3 tools/torch_rows.py --build build-gpu --budget-ms 300 --plugins rmsnorm --cases 8192x128,1x4096,8x4096,32x8192 --out $R/t-p > $OUT/logs/t-p.txt 2>&1); echo "torch p exit $? in $((SECONDS-t0)) s"
grep -E "torch.compile " $OUT/logs/t-p.txt | grep ratio
timeout 120 compute-sanitizer --tool memcheck --error-exitcode 99 $T/build-gpu/klab --no-isolate --verify-only --config tests/gpu_ini/rmsnorm.ini --out $R --run-id p-memcheck > $OUT/logs/p-memcheck.txt 2>&1; echo "memcheck exit $?"; tail -1 $OUT/logs/p-memcheck.txt
tar -C $OUT -czf $OUT/g7-runs.tgz r logs; rm -rf $R $OUT/logs
