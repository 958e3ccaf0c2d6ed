#!/bin/bash
# sixteenth sitting, call 4 (issue 26): the fp8 INI's plain run with the new own choices (every case, every
# profile, cuBLASLt in the same rounds, no tune cache); compute-sanitizer memcheck and racecheck of every fp8
# per-tensor configuration (64x64 and the serial split-K among them) at the odd 200x328x256 case, and of
# matmul's wgmma_splitk space (the serial sum's new loads) at odd-200 and decode-16
C=$1; export KLAB_COMMIT=$C
t0=$SECONDS; KLAB_COMMIT=$C KLAB_TARGETS="klab matmul_h200 fp8_gemm klab_bench" bash tools/gpu-run.sh build > $OUT/build.txt 2>&1 || { tail -30 $OUT/build.txt; exit 1; }; echo "build $((SECONDS-t0)) s"
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu
nvidia-smi --query-gpu=name,uuid,clocks.max.sm --format=csv,noheader
K=build-gpu/klab; R=$OUT/r; mkdir -p $R $OUT/ini
awk '/^[[:space:]]*budget_ms/ {next} {print} /^\[defaults\]/ {print "budget_ms = 1000"}' ini/fp8_gemm.ini > $OUT/ini/fp8_gemm.ini
t0=$SECONDS; timeout 200 $K --ini-dir $OUT/ini --out $R --tune-cache $R/none.ini --timeout 150 --run-id p-fp8 --plugin fp8_gemm > $OUT/p-fp8.txt 2>&1; echo "plain fp8 (own choices) exit $? in $((SECONDS-t0)) s"
python3 .sit/s16/summ.py $R/p-fp8/fp8_gemm.csv | cut -c1-200
tar -C $OUT -czf $OUT/g4-runs.tgz r ini
for tool in memcheck racecheck; do
  t0=$SECONDS; timeout 120 compute-sanitizer --tool $tool --error-exitcode 99 $K --no-isolate --tune --verify-only --config tests/gpu_ini/fp8_gemm.ini --case blocks --profile prequant --out $R --tune-cache $R/san.ini --run-id san-fp8-$tool > $OUT/san-fp8-$tool.txt 2>&1; echo "$tool fp8 (every per-tensor configuration at blocks) exit $? in $((SECONDS-t0)) s: $(grep 'ERROR SUMMARY\|RACECHECK SUMMARY' $OUT/san-fp8-$tool.txt | tail -1)"
  t0=$SECONDS; timeout 120 compute-sanitizer --tool $tool --error-exitcode 99 $K --no-isolate --tune --verify-only --config tests/gpu_ini/matmul_h200.ini --case odd-200,decode-16 --profile wgmma_splitk --out $R --tune-cache $R/san.ini --run-id san-mm-$tool > $OUT/san-mm-$tool.txt 2>&1; echo "$tool matmul wgmma_splitk (odd-200, decode-16) exit $? in $((SECONDS-t0)) s: $(grep 'ERROR SUMMARY\|RACECHECK SUMMARY' $OUT/san-mm-$tool.txt | tail -1)"
done
python3 .sit/s16/summ.py $R/san-fp8-memcheck/fp8_gemm.csv $R/san-mm-memcheck/matmul_h200.csv | awk '{print $1, $3, $4}' | sort | uniq -c
tar -C $OUT -czf $OUT/g4-runs.tgz r ini; tar -C $OUT -czf $OUT/g4-logs.tgz build.txt p-fp8.txt san-fp8-memcheck.txt san-fp8-racecheck.txt san-mm-memcheck.txt san-mm-racecheck.txt
rm -rf $R $OUT/ini $OUT/*.txt
