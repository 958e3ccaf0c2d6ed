#!/bin/bash
# seventeenth sitting, call 1 (issue 22): RMSNorm ragged 1024x4093 with the gain's shifted 16-byte loads
# (fd07ac3) verified (whole row INIs, memcheck of the ragged cases) and tuned; swiglu's new fused space
# verified (test_gpu_swired) and tuned at 4096x14336 split and packed; torch.compile beside klab's own
# choices at ragged, 4096x14336 and packed-4096x14336 (same rounds)
C=$1; export KLAB_COMMIT=$C
t0=$SECONDS; KLAB_COMMIT=$C KLAB_TARGETS="klab klab_bench rmsnorm swiglu reduction test_gpu_swired" bash tools/gpu-run.sh build > $OUT/build.txt 2>&1 || { tail -30 $OUT/build.txt; exit 1; }; echo "build $((SECONDS-t0)) s"
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu
nvidia-smi --query-gpu=name,uuid,clocks.max.sm --format=csv,noheader
K=build-gpu/klab; R=$OUT/r; mkdir -p $R $OUT/ini $OUT/logs
awk '/^[[:space:]]*budget_ms/ {next} {print} /^\[defaults\]/ {print "budget_ms = 3000"}' ini/swiglu.ini > $OUT/ini/swiglu.ini
awk '/^[[:space:]]*budget_ms/ {next} {print} /^\[defaults\]/ {print "budget_ms = 1500"}' ini/rmsnorm.ini > $OUT/ini/rmsnorm.ini
t0=$SECONDS; timeout 60 $K --verify-only --config tests/gpu_ini/rows_rmsnorm.ini --out $R --run-id vrows --timeout 50 > $OUT/logs/vrows.txt 2>&1; echo "verify rows_rmsnorm.ini exit $? in $((SECONDS-t0)) s"
t0=$SECONDS; timeout 60 $K --verify-only --config tests/gpu_ini/rmsnorm.ini --out $R --run-id vrms --timeout 50 > $OUT/logs/vrms.txt 2>&1; echo "verify rmsnorm.ini exit $? in $((SECONDS-t0)) s"
python3 .sit/s17/summ.py $R/vrows/rmsnorm.csv $R/vrms/rmsnorm.csv | grep -v " passed " | cut -c1-160 | head
echo "rows: $(cat $R/vrows/rmsnorm.csv $R/vrms/rmsnorm.csv | grep -c passed) passed"
t0=$SECONDS; timeout 90 compute-sanitizer --tool memcheck --error-exitcode 99 $K --no-isolate --verify-only --config tests/gpu_ini/rows_rmsnorm.ini --case ragged,residual-ragged,ring-ragged,ring-ragged-fp32-c8 --out $R --run-id mrag > $OUT/logs/mrag.txt 2>&1; echo "memcheck ragged exit $? in $((SECONDS-t0)) s: $(grep 'ERROR SUMMARY' $OUT/logs/mrag.txt)"
t0=$SECONDS; timeout 90 compute-sanitizer --tool memcheck --error-exitcode 99 $K --no-isolate --tune --verify-only --config tests/gpu_ini/rmsnorm.ini --case ragged --profile fused --out $R --run-id mragt > $OUT/logs/mragt.txt 2>&1; echo "memcheck ragged space exit $? in $((SECONDS-t0)) s: $(grep 'ERROR SUMMARY' $OUT/logs/mragt.txt)"
t0=$SECONDS; timeout 150 ctest --test-dir build-gpu -R 'test_gpu_swired' --output-on-failure --timeout 145 > $OUT/logs/ctest.txt 2>&1; echo "ctest swired exit $? in $((SECONDS-t0)) s"
grep -E "^ok|^not ok|tests passed|Failed|FAIL" $OUT/logs/ctest.txt | head -20
tar -C $OUT -czf $OUT/g1-runs.tgz r ini logs
t0=$SECONDS; timeout 100 $K --tune --ini-dir $OUT/ini --plugin rmsnorm --case ragged --profile fused --out $R --run-id t-rag --tune-cache $R/tc.ini > $OUT/logs/t-rag.txt 2>&1; echo "tune ragged exit $? in $((SECONDS-t0)) s"
cat > $OUT/top.py <<'PY'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r['median_ms']]
for c in sorted(set(r['case'] for r in rows)):
  for d in ('fp32', 'fp16', 'bf16'):
    rs = sorted((r for r in rows if r['dtype'] == d and r['case'] == c), key=lambda r: float(r['median_ms']))
    if not rs: continue
    for r in rs[:5] + [r for r in rs if 'own' in r['flags']]:
        print(c, d, f"{float(r['median_ms'])*1e3:8.2f} [{float(r['median_lo'])*1e3:.2f}-{float(r['median_hi'])*1e3:.2f}]", f"{100*float(r['frac_limit'] or 0):5.1f}%", r['config'], r['flags'][:60], r['status'])
PY
python3 $OUT/top.py $R/t-rag/rmsnorm.csv
t0=$SECONDS; timeout 200 $K --tune --ini-dir $OUT/ini --plugin swiglu --case 4096x14336,packed-4096x14336 --profile fused --out $R --run-id t-sw --tune-cache $R/tc.ini > $OUT/logs/t-sw.txt 2>&1; echo "tune swiglu exit $? in $((SECONDS-t0)) s"
python3 $OUT/top.py $R/t-sw/swiglu.csv
tar -C $OUT -czf $OUT/g1-runs.tgz r ini logs
t0=$SECONDS; timeout 150 env PYTHONUNBUFFERED=1 python3 tools/torch_rows.py --build build-gpu --budget-ms 400 --out $R/torch --plugins rmsnorm,swiglu --ini-cases-only --cases ragged,4096x14336,packed-4096x14336 > $OUT/logs/torch.txt 2>&1; echo "torch_rows exit $? in $((SECONDS-t0)) s"
grep -vE "^\[" $OUT/logs/torch.txt | tail -40 | cut -c1-170
tar -C $OUT -czf $OUT/g1-runs.tgz r ini logs; rm -rf $R $OUT/ini $OUT/logs $OUT/top.py
