#!/bin/bash
# sixteenth sitting, call 8 (issue 26): fp8 64x64 at 14 stages beside 12, verified (test_gpu_gemm_family)
# and tuned at 64x7168x4096 beside cuBLASLt, plain and batched, twice each
C=$1; export KLAB_COMMIT=$C
t0=$SECONDS; KLAB_COMMIT=$C KLAB_TARGETS="klab fp8_gemm fused_gated_mlp klab_bench test_gpu_gemm_family" bash tools/gpu-run.sh build > $OUT/build.txt 2>&1 || { tail -30 $OUT/build.txt; exit 1; }; echo "build $((SECONDS-t0)) s"
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu
nvidia-smi --query-gpu=name,uuid,clocks.max.sm --format=csv,noheader
K=build-gpu/klab; R=$OUT/r; mkdir -p $R $OUT/ini
awk '/^[[:space:]]*budget_ms/ {next} {print} /^\[defaults\]/ {print "budget_ms = 1000"}' ini/fp8_gemm.ini > $OUT/ini/fp8_gemm.ini
t0=$SECONDS; timeout 100 ctest --test-dir build-gpu -R 'test_gpu_gemm_family' --output-on-failure --timeout 95 > $OUT/ctest.txt 2>&1; echo "ctest exit $? in $((SECONDS-t0)) s"
grep -E "Test +#|tests passed|^not ok|Failed|FAIL" $OUT/ctest.txt | head -20
for rep in 1 2; do for mode in plain batched; do
  fl=; [ $mode = batched ] && fl=--batched
  t0=$SECONDS; timeout 100 $K --tune $fl --ini-dir $OUT/ini --out $R --tune-cache $R/tc-$mode.ini --timeout 90 --run-id t-fp8-$mode-$rep --plugin fp8_gemm --case 64x7168x4096 --profile cublaslt,prequant > $OUT/tune-fp8-$mode-$rep.txt 2>&1; echo "tune fp8 $mode $rep exit $? in $((SECONDS-t0)) s"
  python3 .sit/s16/rank.py $R/t-fp8-$mode-$rep/fp8_gemm.csv | head -7 | cut -c1-200
done; done
t0=$SECONDS; timeout 60 compute-sanitizer --tool memcheck --error-exitcode 99 $K --no-isolate --tune --verify-only --config tests/gpu_ini/fp8_gemm.ini --case blocks --profile prequant --out $R --tune-cache $R/san.ini --run-id san-fp8-memcheck > $OUT/san-fp8-memcheck.txt 2>&1; echo "memcheck fp8 exit $? in $((SECONDS-t0)) s: $(grep 'ERROR SUMMARY' $OUT/san-fp8-memcheck.txt | tail -1)"
t0=$SECONDS; timeout 60 compute-sanitizer --tool racecheck --error-exitcode 99 $K --no-isolate --tune --verify-only --config tests/gpu_ini/fp8_gemm.ini --case blocks --profile prequant --out $R --tune-cache $R/san.ini --run-id san-fp8-racecheck > $OUT/san-fp8-racecheck.txt 2>&1; echo "racecheck fp8 exit $? in $((SECONDS-t0)) s: $(grep 'RACECHECK SUMMARY' $OUT/san-fp8-racecheck.txt | tail -1)"
tar -C $OUT -czf $OUT/g8-runs.tgz r ini; tar -C $OUT -czf $OUT/g8-logs.tgz build.txt ctest.txt tune-fp8-plain-1.txt tune-fp8-batched-1.txt tune-fp8-plain-2.txt tune-fp8-batched-2.txt san-fp8-memcheck.txt san-fp8-racecheck.txt
rm -rf $R $OUT/ini $OUT/*.txt
