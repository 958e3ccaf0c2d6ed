#!/bin/bash
# sixteenth sitting, call 5 (issue 26): fp8 64x64 with swapped operands in 2-CTA clusters (the tokens multicast)
# verified (test_gpu_gemm_family; memcheck and racecheck of every per-tensor configuration at blocks) and
# tuned at 64x7168x4096 beside cuBLASLt, plain and batched
C=$1; export KLAB_COMMIT=$C
t0=$SECONDS; KLAB_COMMIT=$C KLAB_TARGETS="klab fp8_gemm fused_gated_mlp klab_bench test_gpu_gemm_family" bash tools/gpu-run.sh build > $OUT/build.txt 2>&1 || { tail -30 $OUT/build.txt; exit 1; }; echo "build $((SECONDS-t0)) s"
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu
nvidia-smi --query-gpu=name,uuid,clocks.max.sm --format=csv,noheader
K=build-gpu/klab; R=$OUT/r; mkdir -p $R $OUT/ini
awk '/^[[:space:]]*budget_ms/ {next} {print} /^\[defaults\]/ {print "budget_ms = 1000"}' ini/fp8_gemm.ini > $OUT/ini/fp8_gemm.ini
t0=$SECONDS; timeout 100 ctest --test-dir build-gpu -R 'test_gpu_gemm_family' --output-on-failure --timeout 95 > $OUT/ctest.txt 2>&1; echo "ctest exit $? in $((SECONDS-t0)) s"
grep -E "Test +#|tests passed|^not ok|Failed|FAIL" $OUT/ctest.txt | head -20
for tool in memcheck racecheck; do
  t0=$SECONDS; timeout 120 compute-sanitizer --tool $tool --error-exitcode 99 $K --no-isolate --tune --verify-only --config tests/gpu_ini/fp8_gemm.ini --case blocks --profile prequant --out $R --tune-cache $R/san.ini --run-id san-fp8-$tool > $OUT/san-fp8-$tool.txt 2>&1; echo "$tool fp8 (every per-tensor configuration at blocks) exit $? in $((SECONDS-t0)) s: $(grep 'ERROR SUMMARY\|RACECHECK SUMMARY' $OUT/san-fp8-$tool.txt | tail -1)"
done
python3 .sit/s16/summ.py $R/san-fp8-memcheck/fp8_gemm.csv | awk '{print $1, $3, $4}' | sort | uniq -c
for mode in plain batched; do
  fl=; [ $mode = batched ] && fl=--batched
  t0=$SECONDS; timeout 100 $K --tune $fl --ini-dir $OUT/ini --out $R --tune-cache $R/tc-$mode.ini --timeout 90 --run-id t-fp8-$mode --plugin fp8_gemm --case 64x7168x4096 --profile cublaslt,prequant > $OUT/tune-fp8-$mode.txt 2>&1; echo "tune fp8 $mode exit $? in $((SECONDS-t0)) s"
  python3 .sit/s16/summ.py $R/t-fp8-$mode/fp8_gemm.csv | sort -k5 -n | head -7 | cut -c1-230
done
t0=$SECONDS; timeout 100 ncu --clock-control none --section SpeedOfLight --section LaunchStats --section Occupancy -k regex:'gemm_kernel|nvjet' $K --no-isolate --tune --verify-only --ini-dir $OUT/ini --plugin fp8_gemm --case 64x7168x4096 --profile cublaslt,prequant --out $R --tune-cache $R/ncu.ini --run-id ncu > $OUT/ncu-fp8.txt 2>&1; echo "ncu fp8 exit $? in $((SECONDS-t0)) s"
grep -E "gemm_kernel|nvjet|Duration|Registers Per|Memory Throughput|DRAM Throughput" $OUT/ncu-fp8.txt | grep -vE "^==" | sed -E 's/\(CUtensorMap_st.*//' | cut -c1-170 | head -120
tar -C $OUT -czf $OUT/g5-runs.tgz r ini; tar -C $OUT -czf $OUT/g5-logs.tgz build.txt ctest.txt san-fp8-memcheck.txt san-fp8-racecheck.txt tune-fp8-plain.txt tune-fp8-batched.txt ncu-fp8.txt
rm -rf $R $OUT/ini $OUT/*.txt
