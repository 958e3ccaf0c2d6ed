#!/bin/bash
# sixteenth sitting, call 9 (issue 26): the per-warp staged store (epi=tma.warp) beside the warpgroup store in the same rounds:
# test_gpu_matmul and test_gpu_gemm_family; the tune at square-4096, mlp-up-4096, mlp-down-4096 beside
# cuBLAS (budget 600 ms a row); memcheck and racecheck of wgmma_persistent's space at odd-200
C=$1; export KLAB_COMMIT=$C
t0=$SECONDS; KLAB_COMMIT=$C KLAB_TARGETS="klab matmul_h200 fp8_gemm fused_gated_mlp klab_bench test_gpu_matmul test_gpu_gemm_family" bash tools/gpu-run.sh build > $OUT/build.txt 2>&1 || { tail -30 $OUT/build.txt; exit 1; }; echo "build $((SECONDS-t0)) s"
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu
nvidia-smi --query-gpu=name,uuid,clocks.max.sm --format=csv,noheader
K=build-gpu/klab; R=$OUT/r; mkdir -p $R $OUT/ini
awk '/^[[:space:]]*budget_ms/ {next} {print} /^\[defaults\]/ {print "budget_ms = 600"}' ini/matmul_h200.ini > $OUT/ini/matmul_h200.ini
t0=$SECONDS; timeout 120 ctest --test-dir build-gpu -R 'test_gpu_matmul|test_gpu_gemm_family' -j 2 --output-on-failure --timeout 110 > $OUT/ctest.txt 2>&1; echo "ctest exit $? in $((SECONDS-t0)) s"
grep -E "Test +#|tests passed|^not ok|Failed|FAIL" $OUT/ctest.txt | head -20
t0=$SECONDS; timeout 330 $K --tune --ini-dir $OUT/ini --out $R --tune-cache $R/tc.ini --timeout 300 --run-id t-gemm --plugin matmul_h200 --case square-4096,mlp-up-4096,mlp-down-4096 --dtype bf16 --profile cublas,wgmma_persistent > $OUT/tune-gemm.txt 2>&1; echo "tune gemm exit $? in $((SECONDS-t0)) s"
python3 .sit/s16/rank.py $R/t-gemm/matmul_h200.csv
tar -C $OUT -czf $OUT/g9-runs.tgz r ini
for tool in memcheck racecheck; do
  t0=$SECONDS; timeout 60 compute-sanitizer --tool $tool --error-exitcode 99 $K --no-isolate --tune --verify-only --config tests/gpu_ini/matmul_h200.ini --case odd-200 --dtype bf16 --profile wgmma_persistent --out $R --tune-cache $R/san.ini --run-id san-$tool > $OUT/san-$tool.txt 2>&1; echo "$tool wgmma_persistent (odd-200) exit $? in $((SECONDS-t0)) s: $(grep 'ERROR SUMMARY\|RACECHECK SUMMARY' $OUT/san-$tool.txt | tail -1)"
done
tar -C $OUT -czf $OUT/g9-runs.tgz r ini
tar -C $OUT -czf $OUT/g9-logs.tgz build.txt ctest.txt tune-gemm.txt san-memcheck.txt san-racecheck.txt
rm -rf $R $OUT/ini $OUT/*.txt
