#!/bin/bash
# seventeenth sitting, call 10 (issue 22): 6f95ed6's row kernels under the GPU tests (test_gpu_rows,
# test_gpu_swired: rmsnorm, softmax, RoPE, the reduction) and compute-sanitizer (memcheck, racecheck) over
# the row INIs; then rmsnorm fp16 128x262144 and fp32 1024x32768 again, old (3b8a15a's row kernel, built in
# a copy of the tree) and new alternating, three processes each
C=$1; O=3b8a15a; export KLAB_COMMIT=$C
t0=$SECONDS; KLAB_COMMIT=$C KLAB_TARGETS="klab klab_bench rmsnorm softmax rmsnorm_rope reduction swiglu test_gpu_rows test_gpu_swired" bash tools/gpu-run.sh build > $OUT/build.txt 2>&1 || { tail -30 $OUT/build.txt; exit 1; }; echo "build new $((SECONDS-t0)) s"
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu
nvidia-smi --query-gpu=name,uuid,clocks.max.sm --format=csv,noheader
K=build-gpu/klab; R=$OUT/r; mkdir -p $R $OUT/ini $OUT/logs
t0=$SECONDS; timeout 300 ctest --test-dir build-gpu -R 'test_gpu_rows|test_gpu_swired' --output-on-failure --timeout 250 > $OUT/logs/ctest.txt 2>&1; echo "ctest exit $? in $((SECONDS-t0)) s"
grep -E "Test +#|tests passed|^not ok|Failed|FAIL" $OUT/logs/ctest.txt | head -20
tar -C $OUT -czf $OUT/g10-runs.tgz logs
for tool in memcheck racecheck; do for f in rows_rmsnorm softmax rmsnorm_rope reduction; do
  t0=$SECONDS; timeout 100 compute-sanitizer --tool $tool --error-exitcode 99 $K --no-isolate --verify-only --config tests/gpu_ini/$f.ini --out $R --run-id san-$tool-$f > $OUT/logs/san-$tool-$f.txt 2>&1; echo "$tool $f exit $? in $((SECONDS-t0)) s: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $OUT/logs/san-$tool-$f.txt | tail -1)"
done; done
tar -C $OUT -czf $OUT/g10-runs.tgz r logs
T=/tmp/oldtree; mkdir -p $T && tar --exclude=./build-gpu --exclude=./.sit --exclude=./.deps -cf - . | tar -C $T -xf - && ln -s $PWD/.deps $T/.deps
cp .sit/s17/old/row_kernel.cuh .sit/s17/old/row_ring.cuh $T/plugins/common/
t0=$SECONDS; (cd $T && KLAB_COMMIT=$O KLAB_TARGETS="klab rmsnorm" bash tools/gpu-run.sh build > $OUT/build-old.txt 2>&1) || { tail -30 $OUT/build-old.txt; exit 1; }; echo "build old $((SECONDS-t0)) s"
awk '/^[[:space:]]*budget_ms/ {next} {print} /^\[defaults\]/ {print "budget_ms = 400"}' experiments/rowsweep_rmsnorm.ini > $OUT/ini/rowsweep_rmsnorm.ini
for rep in 0 1 2; do for side in old new; do
  KK=$K; [ $side = old ] && KK=$T/build-gpu/klab
  timeout 40 $KK --config $OUT/ini/rowsweep_rmsnorm.ini --case n262144,n32768 --out $R --run-id ab-$side-$rep --timeout 30 > $OUT/logs/ab-$side-$rep.txt 2>&1 || echo "ab $side $rep failed"
done; done
python3 - $R <<'PY'
import csv, sys, os
R = sys.argv[1]
rows = {}
for rep in range(3):
    for side in ('old', 'new'):
        f = f"{R}/ab-{side}-{rep}/rmsnorm.csv"
        if not os.path.exists(f): continue
        for r in csv.DictReader(open(f)):
            if r['median_ms']:
                rows.setdefault((r['case'], r['dtype']), {}).setdefault(side, []).append(f"{float(r['median_ms'])*1e3:.2f} [{float(r['median_lo'])*1e3:.2f}-{float(r['median_hi'])*1e3:.2f}] {100*float(r['frac_limit']):.1f}%")
for k, v in sorted(rows.items()):
    print(k[0], k[1], "old:", "; ".join(v.get('old', [])), "| new:", "; ".join(v.get('new', [])))
PY
tar -C $OUT -czf $OUT/g10-runs.tgz r ini logs; rm -rf $R $OUT/ini $OUT/logs
