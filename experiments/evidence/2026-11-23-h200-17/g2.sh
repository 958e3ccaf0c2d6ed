#!/bin/bash
# seventeenth sitting, call 2 (issue 22): stream=2 (the wide streaming plan prefetching the next wave's
# row into L2, 8f6f619) verified (rows_rmsnorm.ini whole, memcheck of its stream cases) and timed beside
# stream=1 and the own choice at the long rows (ABAB cases); swiglu's new own choice (one vector a
# thread) beside torch.compile
C=$1; export KLAB_COMMIT=$C
t0=$SECONDS; KLAB_COMMIT=$C KLAB_TARGETS="klab klab_bench rmsnorm softmax swiglu" bash tools/gpu-run.sh build > $OUT/build.txt 2>&1 || { tail -30 $OUT/build.txt; exit 1; }; echo "build $((SECONDS-t0)) s"
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu
nvidia-smi --query-gpu=name,uuid,clocks.max.sm --format=csv,noheader
K=build-gpu/klab; R=$OUT/r; mkdir -p $R $OUT/ini $OUT/logs
t0=$SECONDS; timeout 60 $K --verify-only --config tests/gpu_ini/rows_rmsnorm.ini --out $R --run-id vrows --timeout 50 > $OUT/logs/vrows.txt 2>&1; echo "verify rows_rmsnorm.ini exit $? in $((SECONDS-t0)) s"
python3 .sit/s17/summ.py $R/vrows/rmsnorm.csv | grep -v " passed " | cut -c1-160 | head
echo "rows: $(grep -c passed $R/vrows/rmsnorm.csv) passed; prefetch cases: $(grep -c 'prefetch.*passed' $R/vrows/rmsnorm.csv)"
t0=$SECONDS; timeout 90 compute-sanitizer --tool memcheck --error-exitcode 99 $K --no-isolate --verify-only --config tests/gpu_ini/rows_rmsnorm.ini --case stream-1024x8-prefetch,stream-1024x8-prefetch-steps,stream-1024x8,stream-1024x8-steps --out $R --run-id mpf > $OUT/logs/mpf.txt 2>&1; echo "memcheck stream cases exit $? in $((SECONDS-t0)) s: $(grep 'ERROR SUMMARY' $OUT/logs/mpf.txt)"
python3 .sit/s17/mkini2.py $OUT/ini
t0=$SECONDS; timeout 150 $K --config $OUT/ini/s17_2_rmsnorm.ini --out $R --run-id ab-rms --timeout 60 > $OUT/logs/ab-rms.txt 2>&1; echo "rmsnorm A/B exit $? in $((SECONDS-t0)) s"
python3 - $R/ab-rms/rmsnorm.csv <<'PY'
import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    if r['median_ms']: print(f"{r['case']:26s} {r['dtype']:5s} {float(r['median_ms'])*1e3:8.2f} [{float(r['median_lo'])*1e3:.2f}-{float(r['median_hi'])*1e3:.2f}] {100*float(r['frac_limit'] or 0):5.1f}% {r['config']}")
PY
tar -C $OUT -czf $OUT/g2-runs.tgz r ini logs
t0=$SECONDS; timeout 80 $K --config $OUT/ini/s17_2_softmax.ini --out $R --run-id ab-smx --timeout 60 > $OUT/logs/ab-smx.txt 2>&1; echo "softmax A/B exit $? in $((SECONDS-t0)) s"
python3 - $R/ab-smx/softmax.csv <<'PY'
import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    if r['median_ms']: print(f"{r['case']:26s} {r['dtype']:5s} {float(r['median_ms'])*1e3:8.2f} [{float(r['median_lo'])*1e3:.2f}-{float(r['median_hi'])*1e3:.2f}] {100*float(r['frac_limit'] or 0):5.1f}% {r['config']}")
PY
tar -C $OUT -czf $OUT/g2-runs.tgz r ini logs
t0=$SECONDS; timeout 150 env PYTHONUNBUFFERED=1 python3 tools/torch_rows.py --build build-gpu --budget-ms 400 --out $R/torch --plugins swiglu --ini-cases-only --cases 4096x14336,packed-4096x14336,8192x8192 > $OUT/logs/torch.txt 2>&1; echo "torch_rows exit $? in $((SECONDS-t0)) s"
grep -E "ratio" $OUT/logs/torch.txt | grep compile | cut -c1-170
tar -C $OUT -czf $OUT/g2-runs.tgz r ini logs; rm -rf $R $OUT/ini $OUT/logs
