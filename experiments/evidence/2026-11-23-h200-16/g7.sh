#!/bin/bash
# sixteenth sitting, call 7 (issue 26): the staged epilogue stored a warp at a time (no warpgroup barrier):
# test_gpu_matmul and test_gpu_gemm_family (every staged configuration verified at odd shapes); the tune
# at square-4096, mlp-up-4096, mlp-down-4096 beside cuBLAS; memcheck and racecheck of wgmma_persistent's
# space at odd-200; ncu source counters of the own 4096^3 kernel
C=$1; export KLAB_COMMIT=$C
t0=$SECONDS; KLAB_COMMIT=$C KLAB_TARGETS="klab matmul_h200 fp8_gemm fused_gated_mlp klab_bench test_gpu_matmul test_gpu_gemm_family" bash tools/gpu-run.sh build > $OUT/build.txt 2>&1 || { tail -30 $OUT/build.txt; exit 1; }; echo "build $((SECONDS-t0)) s"
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu
nvidia-smi --query-gpu=name,uuid,clocks.max.sm --format=csv,noheader
K=build-gpu/klab; R=$OUT/r; mkdir -p $R $OUT/ini
awk '/^[[:space:]]*budget_ms/ {next} {print} /^\[defaults\]/ {print "budget_ms = 300"}' ini/matmul_h200.ini > $OUT/ini/matmul_h200.ini
t0=$SECONDS; timeout 120 ctest --test-dir build-gpu -R 'test_gpu_matmul|test_gpu_gemm_family' -j 2 --output-on-failure --timeout 110 > $OUT/ctest.txt 2>&1; echo "ctest exit $? in $((SECONDS-t0)) s"
grep -E "Test +#|tests passed|^not ok|Failed|FAIL" $OUT/ctest.txt | head -20
t0=$SECONDS; timeout 250 $K --tune --ini-dir $OUT/ini --out $R --tune-cache $R/tc.ini --timeout 200 --run-id t-gemm --plugin matmul_h200 --case square-4096,mlp-up-4096,mlp-down-4096 --dtype bf16 --profile cublas,wgmma_persistent > $OUT/tune-gemm.txt 2>&1; echo "tune gemm exit $? in $((SECONDS-t0)) s"
python3 .sit/s16/rank.py $R/t-gemm/matmul_h200.csv
tar -C $OUT -czf $OUT/g7-runs.tgz r ini
for tool in memcheck racecheck; do
  t0=$SECONDS; timeout 60 compute-sanitizer --tool $tool --error-exitcode 99 $K --no-isolate --tune --verify-only --config tests/gpu_ini/matmul_h200.ini --case odd-200 --dtype bf16 --profile wgmma_persistent --out $R --tune-cache $R/san.ini --run-id san-$tool > $OUT/san-$tool.txt 2>&1; echo "$tool wgmma_persistent (odd-200) exit $? in $((SECONDS-t0)) s: $(grep 'ERROR SUMMARY\|RACECHECK SUMMARY' $OUT/san-$tool.txt | tail -1)"
done
pr=wgmma_persistent
t0=$SECONDS; timeout 60 ncu --clock-control none --section WarpStateStats --section SourceCounters --section SpeedOfLight --import-source no --kernel-name-base demangled -k regex:'.int.2, .bool.0>, hg::TmaStoreEpilogue' -c 1 -o $OUT/ncu-$pr $K --no-isolate --verify-only --ini-dir $OUT/ini --plugin matmul_h200 --case square-4096 --dtype bf16 --profile $pr --out $R --run-id ncu-$pr > $OUT/ncu-$pr.txt 2>&1; echo "ncu $pr exit $? in $((SECONDS-t0)) s"
ncu -i $OUT/ncu-$pr.ncu-rep --page source --csv --print-source sass > $OUT/src-$pr.csv 2>&1; echo "source: $(wc -l < $OUT/src-$pr.csv) lines"
ncu -i $OUT/ncu-$pr.ncu-rep --page details --csv > $OUT/det-$pr.csv 2>&1
tar -C $OUT -czf $OUT/g7-runs.tgz r ini; tar -C $OUT -czf $OUT/g7-ncu.tgz src-$pr.csv det-$pr.csv ncu-$pr.txt
tar -C $OUT -czf $OUT/g7-logs.tgz build.txt ctest.txt tune-gemm.txt san-memcheck.txt san-racecheck.txt
rm -rf $R $OUT/ini $OUT/*.txt $OUT/*.csv $OUT/*.ncu-rep
