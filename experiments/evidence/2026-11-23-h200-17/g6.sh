#!/bin/bash
# seventeenth sitting, call 6 (issue 22): softmax 16-bit 1024x32768 (64 KiB rows), streaming plans of
# several blocks an SM beside the on-chip own choice (mkini6.py), ABAB
C=$1; export KLAB_COMMIT=$C
t0=$SECONDS; KLAB_COMMIT=$C KLAB_TARGETS="klab klab_bench rmsnorm softmax" bash tools/gpu-run.sh build > $OUT/build.txt 2>&1 || { tail -30 $OUT/build.txt; exit 1; }; echo "build $((SECONDS-t0)) s"
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu
K=build-gpu/klab; R=$OUT/r; mkdir -p $R $OUT/ini $OUT/logs
python3 .sit/s17/mkini6.py $OUT/ini
t0=$SECONDS; timeout 100 $K --config $OUT/ini/s17_6_softmax.ini --out $R --run-id ab-smx --timeout 60 > $OUT/logs/ab-smx.txt 2>&1; echo "softmax A/B exit $? in $((SECONDS-t0)) s"
python3 - $R/ab-smx/softmax.csv <<'PY'
import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    if r['median_ms']: print(f"{r['case']:26s} {r['dtype']:5s} {float(r['median_ms'])*1e3:8.2f} [{float(r['median_lo'])*1e3:.2f}-{float(r['median_hi'])*1e3:.2f}] {100*float(r['frac_limit'] or 0):5.1f}% {r['config']}")
    else: print(r['case'], r['dtype'], r['status'], r['reason'][:120])
PY
tar -C $OUT -czf $OUT/g6-runs.tgz r ini logs; rm -rf $R $OUT/ini $OUT/logs
