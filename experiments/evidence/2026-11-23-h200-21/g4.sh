#!/bin/bash
# 21st sitting call 3 (#22): RMSNorm fp16/fp32 whole-row epilogue (we.patch) against HEAD (b), alternating; torch_rows plain; verify + memcheck.

C=$1; export KLAB_COMMIT=$C
nvidia-smi --query-gpu=name,uuid --format=csv,noheader
S=.sit/s21
T=/tmp/tree-b; mkdir -p $T && tar --exclude=./build-gpu --exclude=./.sit --exclude=./.deps -cf - . | tar -C $T -xf - && ln -s $PWD/.deps $T/.deps
patch -s -R -p1 -d $T < $S/we.patch || exit 1
t0=$SECONDS; KLAB_TARGETS="klab klab_bench rmsnorm" bash tools/gpu-run.sh build > $OUT/build.txt 2>&1 || { tail -30 $OUT/build.txt; exit 1; }; echo "build p $((SECONDS-t0)) s"
t0=$SECONDS; (cd $T && KLAB_TARGETS="klab klab_bench rmsnorm" bash tools/gpu-run.sh build > $OUT/build-b.txt 2>&1) || { tail -30 $OUT/build-b.txt; exit 1; }; echo "build b $((SECONDS-t0)) s"
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu
R=$OUT/r; mkdir -p $R $OUT/logs
t0=$SECONDS; timeout 60 build-gpu/klab --config tests/gpu_ini/rows_rmsnorm.ini --verify-only --out $R --run-id p-verify > $OUT/logs/p-verify.txt 2>&1; echo "p verify exit $? in $((SECONDS-t0)) s"; tail -1 $OUT/logs/p-verify.txt
for rep in 0 1; do for v in b p; do
  D=$PWD; [ $v = b ] && D=$T
  t0=$SECONDS; timeout 100 $D/build-gpu/klab --config $S/ini/ab_we.ini --out $R --run-id ab-$v-$rep > $OUT/logs/ab-$v-$rep.txt 2>&1; echo "ab $v $rep exit $? in $((SECONDS-t0)) s"
done; done
python3 - $R <<'P'
import csv, glob, sys, os, statistics as st
rows = {}
for d in glob.glob(sys.argv[1] + "/ab-*"):
    v = os.path.basename(d).split('-')[1]
    for f in glob.glob(d + "/*.csv"):
        for r in csv.DictReader(open(f)):
            if r.get('median_ms') and r.get('profile') == 'fused':
                rows.setdefault((r['case'], r['dtype']), {}).setdefault(v, []).append(float(r['median_ms']) * 1e3)
print("medians us, b (HEAD) then p (whole-row epilogue at fp16, fp32); b/p > 1: p faster")
for k, v in sorted(rows.items()):
    b, p = v.get('b', [float('nan')]), v.get('p', [float('nan')])
    print(f"{k[0]:22s} {k[1]:5s} b {' '.join(f'{t:7.2f}' for t in b)}  p {' '.join(f'{t:7.2f}' for t in p)}  {st.mean(b) / st.mean(p):.3f}")
P
for v in b p; do
  D=$PWD; [ $v = b ] && D=$T
  t0=$SECONDS; (cd $D && timeout 100 python3 tools/torch_rows.py --build build-gpu --budget-ms 300 --plugins rmsnorm --cases 8192x128,4096x1024,1x4096 --out $R/t-$v > $OUT/logs/t-$v.txt 2>&1); echo "torch $v exit $? in $((SECONDS-t0)) s"
  grep -E "torch.compile " $OUT/logs/t-$v.txt | grep ratio
done
t0=$SECONDS; timeout 120 compute-sanitizer --tool memcheck --error-exitcode 99 build-gpu/klab --no-isolate --verify-only --config tests/gpu_ini/rows_rmsnorm.ini --out $R --run-id p-memcheck > $OUT/logs/p-memcheck.txt 2>&1; echo "memcheck exit $? in $((SECONDS-t0)) s"; tail -2 $OUT/logs/p-memcheck.txt
tar -C $OUT -czf $OUT/g2-runs.tgz r logs; rm -rf $R $OUT/logs
