#!/bin/bash
# twentieth sitting, call 4 (issue 22; NOT RUN: no device was lent after call 3): (1) torch_rows --mode
# batched at the tile plan's shapes (ncu had the tile kernel at 5.3-5.4 us against torch.compile's 7.5 us,
# plain timing 0.95-0.99x compile: is the difference in the launch?); (2) b = this tree against c = the
# slimmer tile kernel (c2/row_tile.cuh: whole-vector loads and stores in the loops, the edge vectors once;
# ~14 % fewer SASS instructions) with the preferred carveout settable (KLAB_TILE_CARVEOUT unset, 0 = max
# L1, 100 = max shared), alternating processes, plain timing.
C=$1; export KLAB_COMMIT=$C
S=experiments/evidence/2026-11-23-h200-20 # run from the repository: bash $S/g4.sh <commit>
nvidia-smi --query-gpu=name,uuid --format=csv,noheader
t0=$SECONDS; KLAB_TARGETS="klab klab_bench rmsnorm softmax" bash tools/gpu-run.sh build > $OUT/build.txt 2>&1 || { tail -30 $OUT/build.txt; exit 1; }; echo "build $((SECONDS-t0)) s"
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu
K=build-gpu/klab; R=$OUT/r; mkdir -p $R $OUT/logs
T=/tmp/tree-c; mkdir -p $T && tar --exclude=./build-gpu --exclude=./.sit --exclude=./.deps -cf - . | tar -C $T -xf - && ln -s $PWD/.deps $T/.deps
patch -s -p1 -d $T < $S/c/call4-c.patch || exit 1
t0=$SECONDS; (cd $T && KLAB_TARGETS="klab rmsnorm softmax" bash tools/gpu-run.sh build > $OUT/build-c.txt 2>&1) || { tail -30 $OUT/build-c.txt; exit 1; }; echo "build c $((SECONDS-t0)) s"
t0=$SECONDS; timeout 120 python3 tools/torch_rows.py --build build-gpu --mode batched --budget-ms 300 --plugins rmsnorm --cases 65537x17,8192x128,ragged --out $R/torch-rb > $OUT/logs/torch-rb.txt 2>&1; echo "torch_rows rmsnorm batched exit $? in $((SECONDS-t0)) s"
t0=$SECONDS; timeout 60 python3 tools/torch_rows.py --build build-gpu --mode batched --budget-ms 300 --plugins softmax --cases 65537x17 --out $R/torch-sb > $OUT/logs/torch-sb.txt 2>&1; echo "torch_rows softmax batched exit $? in $((SECONDS-t0)) s"
grep -hE "torch.compile|torch.eager|torch.softmax" $OUT/logs/torch-rb.txt $OUT/logs/torch-sb.txt | grep ratio
tar -C $OUT -czf $OUT/g4-runs.tgz r logs
t0=$SECONDS
for rep in 0 1; do for v in b x 0 100; do
  KK=$T/build-gpu/klab; E="env -u KLAB_TILE_CARVEOUT"
  [ $v = b ] && KK=$K
  [ $v = 0 -o $v = 100 ] && E="env KLAB_TILE_CARVEOUT=$v"
  timeout 40 $E $KK --config $S/ini/carve.ini --profile fused --out $R --run-id cv$v-r-$rep > $OUT/logs/cv$v-r-$rep.txt 2>&1 || echo "cv $v r $rep exit $?"
  timeout 30 $E $KK --config $S/ini/carve_s.ini --profile fused --out $R --run-id cv$v-s-$rep > $OUT/logs/cv$v-s-$rep.txt 2>&1 || echo "cv $v s $rep exit $?"
done; done; echo "b/c A/B in $((SECONDS-t0)) s"
python3 - $R <<'P'
import csv, glob, sys, os, re, statistics as st
rows = {}
for d in glob.glob(sys.argv[1] + "/cv*"):
    v = re.match(r"cv(\w+?)-", os.path.basename(d)).group(1)
    for f in glob.glob(d + "/*.csv"):
        for r in csv.DictReader(open(f)):
            if r.get('median_ms') and r.get('profile') == 'fused':
                rows.setdefault((os.path.basename(d).split('-')[1], r['case'], r['dtype']), {}).setdefault(v, []).append(float(r['median_ms']) * 1e3)
print("medians us; (b / this): > 1 faster than b")
for k, v in sorted(rows.items()):
    b = st.mean(v.get('b', [float('nan')]))
    print(k, " ".join(f"{c}: {' '.join(f'{t:.2f}' for t in v.get(c, []))} ({b / st.mean(v[c]):.3f})" for c in ('b', 'x', '0', '100') if c in v))
P
t0=$SECONDS; timeout 60 $T/build-gpu/klab --config tests/gpu_ini/rows_rmsnorm.ini --verify-only --out $R --run-id c-verify-r > $OUT/logs/c-verify-r.txt 2>&1; echo "c verify rmsnorm exit $? in $((SECONDS-t0)) s"; tail -1 $OUT/logs/c-verify-r.txt
t0=$SECONDS; timeout 60 $T/build-gpu/klab --config tests/gpu_ini/softmax.ini --verify-only --out $R --run-id c-verify-s > $OUT/logs/c-verify-s.txt 2>&1; echo "c verify softmax exit $? in $((SECONDS-t0)) s"; tail -1 $OUT/logs/c-verify-s.txt
tar -C $OUT -czf $OUT/g4-runs.tgz r logs; rm -rf $R $OUT/logs
