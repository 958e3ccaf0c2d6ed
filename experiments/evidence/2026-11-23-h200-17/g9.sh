#!/bin/bash
# seventeenth sitting, call 9 (issue 22): the row kernel's butterfly merge of the warps' partials and
# fp32's whole-step pass 2 (6f95ed6) against the previous build (3b8a15a's row_kernel.cuh and
# row_ring.cuh, built in a copy of the tree), processes alternating old, new, old, new over the
# row-length sweeps (N = 1024 .. 262144, fp16 and fp32, 300 ms a case); then torch.compile beside the
# new build at rmsnorm N = 8192 .. 65536
C=$1; O=3b8a15a; export KLAB_COMMIT=$C
t0=$SECONDS; KLAB_COMMIT=$C KLAB_TARGETS="klab klab_bench rmsnorm softmax" bash tools/gpu-run.sh build > $OUT/build.txt 2>&1 || { tail -30 $OUT/build.txt; exit 1; }; echo "build new $((SECONDS-t0)) s"
T=/tmp/oldtree; mkdir -p $T && tar --exclude=./build-gpu --exclude=./.sit --exclude=./.deps -cf - . | tar -C $T -xf - && ln -s $PWD/.deps $T/.deps
cp .sit/s17/old/row_kernel.cuh .sit/s17/old/row_ring.cuh $T/plugins/common/
t0=$SECONDS; (cd $T && KLAB_COMMIT=$O KLAB_TARGETS="klab rmsnorm softmax" bash tools/gpu-run.sh build > $OUT/build-old.txt 2>&1) || { tail -30 $OUT/build-old.txt; exit 1; }; echo "build old $((SECONDS-t0)) s"
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu
nvidia-smi --query-gpu=name,uuid,clocks.max.sm --format=csv,noheader
R=$OUT/r; mkdir -p $R $OUT/ini $OUT/logs
for p in rmsnorm softmax; do awk '/^[[:space:]]*budget_ms/ {next} {print} /^\[defaults\]/ {print "budget_ms = 300"}' experiments/rowsweep_$p.ini > $OUT/ini/rowsweep_$p.ini; done
CASES=n1024,n2048,n4096,n8192,n16384,n32768,n65536,n131072,n262144
for rep in 0 1; do
  for side in old new; do
    K=build-gpu/klab; [ $side = old ] && K=$T/build-gpu/klab
    for p in rmsnorm softmax; do
      t0=$SECONDS; timeout 60 $K --config $OUT/ini/rowsweep_$p.ini --case $CASES --out $R --run-id $p-$side-$rep --timeout 50 > $OUT/logs/$p-$side-$rep.txt 2>&1; echo "$p $side $rep exit $? in $((SECONDS-t0)) s"
    done
  done
done
tar -C $OUT -czf $OUT/g9-runs.tgz r ini logs
python3 - $R <<'PY'
import csv, sys, os, statistics
R = sys.argv[1]
for p in ('rmsnorm', 'softmax'):
    d = {}
    for side in ('old', 'new'):
        for rep in (0, 1):
            f = f"{R}/{p}-{side}-{rep}/{p}.csv"
            if not os.path.exists(f): continue
            for r in csv.DictReader(open(f)):
                if r['median_ms']:
                    d.setdefault((r['case'], r['dtype']), {}).setdefault(side, []).append((float(r['median_ms']) * 1e3, float(r['frac_limit'] or 0) * 100, r['config']))
    print(f"{p}: case dtype | old us (% copy) x2 | new us (% copy) x2 | new/old speed")
    for k, v in d.items():
        o, n = v.get('old', []), v.get('new', [])
        if not o or not n: continue
        sp = statistics.mean(x[0] for x in o) / statistics.mean(x[0] for x in n)
        print(f"  {k[0]:8s} {k[1]:5s} | " + " ".join(f"{x[0]:7.2f} ({x[1]:5.1f})" for x in o) + " | " + " ".join(f"{x[0]:7.2f} ({x[1]:5.1f})" for x in n) + f" | {sp:.3f}  {n[0][2]}")
PY
t0=$SECONDS; timeout 150 env PYTHONUNBUFFERED=1 python3 tools/torch_rows.py --build build-gpu --budget-ms 300 --out $R/torch --ini experiments/rowsweep_rmsnorm.ini --cases n8192,n16384,n32768,n65536 > $OUT/logs/torch.txt 2>&1; echo "torch_rows exit $? in $((SECONDS-t0)) s"
grep -E "ratio" $OUT/logs/torch.txt | grep compile | cut -c1-170
tar -C $OUT -czf $OUT/g9-runs.tgz r ini logs; rm -rf $R $OUT/ini $OUT/logs
