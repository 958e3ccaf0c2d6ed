#!/bin/bash
# seventeenth sitting, call 4 (issue 22): eb19130's long-row own choices (512 x 8 streaming at 16-bit
# 128 KiB rows and for softmax, 1024 x 8 in two steps at 16-bit 256 KiB rows) beside the plans they
# replaced (ABAB) and softmax's 256 KiB rows streamed; then the row-length sweep's long half with
# torch.compile in the same rounds (N = 16384 .. 262144, fp16 and fp32, rmsnorm and softmax)
C=$1; export KLAB_COMMIT=$C
t0=$SECONDS; KLAB_COMMIT=$C KLAB_TARGETS="klab klab_bench rmsnorm softmax" bash tools/gpu-run.sh build > $OUT/build.txt 2>&1 || { tail -30 $OUT/build.txt; exit 1; }; echo "build $((SECONDS-t0)) s"
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu
nvidia-smi --query-gpu=name,uuid,clocks.max.sm --format=csv,noheader
K=build-gpu/klab; R=$OUT/r; mkdir -p $R $OUT/ini $OUT/logs
python3 .sit/s17/mkini4.py $OUT/ini
cat > $OUT/show.py <<'PY'
import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    if r['median_ms']: print(f"{r['case']:26s} {r['dtype']:5s} {float(r['median_ms'])*1e3:8.2f} [{float(r['median_lo'])*1e3:.2f}-{float(r['median_hi'])*1e3:.2f}] {100*float(r['frac_limit'] or 0):5.1f}% {r['config']}")
    else: print(r['case'], r['dtype'], r['status'], r['reason'][:120])
PY
t0=$SECONDS; timeout 40 compute-sanitizer --tool memcheck --error-exitcode 99 $K --no-isolate --verify-only --config $OUT/ini/s17_4_rmsnorm.ini --case n65536-bf16-own-0,n131072-bf16-own-0 --out $R --run-id mck > $OUT/logs/mck.txt 2>&1; echo "memcheck rmsnorm own exit $? in $((SECONDS-t0)) s: $(grep 'ERROR SUMMARY' $OUT/logs/mck.txt)"
t0=$SECONDS; timeout 40 compute-sanitizer --tool memcheck --error-exitcode 99 $K --no-isolate --verify-only --config $OUT/ini/s17_4_softmax.ini --case n65536-bf16-own-0,n65536-fp32-own-0 --out $R --run-id mcks > $OUT/logs/mcks.txt 2>&1; echo "memcheck softmax own exit $? in $((SECONDS-t0)) s: $(grep 'ERROR SUMMARY' $OUT/logs/mcks.txt)"
t0=$SECONDS; timeout 60 $K --config $OUT/ini/s17_4_rmsnorm.ini --out $R --run-id ab-rms --timeout 50 > $OUT/logs/ab-rms.txt 2>&1; echo "rmsnorm A/B exit $? in $((SECONDS-t0)) s"
python3 $OUT/show.py $R/ab-rms/rmsnorm.csv
t0=$SECONDS; timeout 80 $K --config $OUT/ini/s17_4_softmax.ini --out $R --run-id ab-smx --timeout 60 > $OUT/logs/ab-smx.txt 2>&1; echo "softmax A/B exit $? in $((SECONDS-t0)) s"
python3 $OUT/show.py $R/ab-smx/softmax.csv
tar -C $OUT -czf $OUT/g4-runs.tgz r ini logs
t0=$SECONDS; timeout 380 env PYTHONUNBUFFERED=1 python3 tools/torch_rows.py --build build-gpu --budget-ms 300 --wall-s 330 --out $R/torch --ini experiments/rowsweep_rmsnorm.ini --ini experiments/rowsweep_softmax.ini --cases n16384,n32768,n65536,n131072,n262144 > $OUT/logs/torch.txt 2>&1; echo "torch_rows exit $? in $((SECONDS-t0)) s"
grep -E "ratio|not run" $OUT/logs/torch.txt | grep -v "F\.\|eager" | cut -c1-170
tar -C $OUT -czf $OUT/g4-runs.tgz r ini logs; rm -rf $R $OUT/ini $OUT/logs $OUT/show.py
