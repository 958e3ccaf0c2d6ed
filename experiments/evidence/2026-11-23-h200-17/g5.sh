#!/bin/bash
# seventeenth sitting, call 5 (issue 22): streaming plans split over clusters at rows past 128 KiB (mkini5.py), ABAB
C=$1; export KLAB_COMMIT=$C
t0=$SECONDS; KLAB_COMMIT=$C KLAB_TARGETS="klab klab_bench rmsnorm softmax" bash tools/gpu-run.sh build > $OUT/build.txt 2>&1 || { tail -30 $OUT/build.txt; exit 1; }; echo "build $((SECONDS-t0)) s"
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu
nvidia-smi --query-gpu=name,uuid,clocks.max.sm --format=csv,noheader
K=build-gpu/klab; R=$OUT/r; mkdir -p $R $OUT/ini $OUT/logs
python3 .sit/s17/mkini5.py $OUT/ini
cat > $OUT/show.py <<'PY'
import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    if r['median_ms']: print(f"{r['case']:26s} {r['dtype']:5s} {float(r['median_ms'])*1e3:8.2f} [{float(r['median_lo'])*1e3:.2f}-{float(r['median_hi'])*1e3:.2f}] {100*float(r['frac_limit'] or 0):5.1f}% {r['config']}")
    else: print(r['case'], r['dtype'], r['status'], r['reason'][:120])
PY
t0=$SECONDS; timeout 120 $K --config $OUT/ini/s17_5_rmsnorm.ini --out $R --run-id ab-rms --timeout 60 > $OUT/logs/ab-rms.txt 2>&1; echo "rmsnorm A/B exit $? in $((SECONDS-t0)) s"
python3 $OUT/show.py $R/ab-rms/rmsnorm.csv
t0=$SECONDS; timeout 80 $K --config $OUT/ini/s17_5_softmax.ini --out $R --run-id ab-smx --timeout 60 > $OUT/logs/ab-smx.txt 2>&1; echo "softmax A/B exit $? in $((SECONDS-t0)) s"
python3 $OUT/show.py $R/ab-smx/softmax.csv
tar -C $OUT -czf $OUT/g5-runs.tgz r ini logs
tar -C $OUT -czf $OUT/g5-runs.tgz r ini logs; rm -rf $R $OUT/ini $OUT/logs $OUT/show.py
