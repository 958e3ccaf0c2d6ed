#!/bin/bash
# twenty-third sitting, call 1 (issue 26): the column-split consumers (hopper_gemm.cuh COLSPLIT, 26e268d)
# verified (test_gpu_matmul: every configuration at odd-200, decode-16, short-k-2048, the column-split
# ones among them) and tuned beside the row-split own choice and cuBLAS in the same rounds at square-4096,
# mlp-up-4096, mlp-down-4096 (bf16, budget 300 ms); memcheck of wgmma_persistent's space at odd-200.
# usage (device, repo root, .deps carried): bash experiments/evidence/2026-12-05-h200-23/g1.sh <commit>
C=$1; export KLAB_COMMIT=$C
E=experiments/evidence/2026-12-05-h200-23; S=experiments/evidence/2026-11-23-h200-16/summ.py
t0=$SECONDS; KLAB_TARGETS="klab matmul_h200 klab_bench test_gpu_matmul" bash tools/gpu-run.sh build > $OUT/build.txt 2>&1 || { tail -30 $OUT/build.txt; exit 1; }; echo "build $((SECONDS-t0)) s"
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu
nvidia-smi --query-gpu=name,uuid,clocks.max.sm --format=csv,noheader
K=build-gpu/klab; R=$OUT/r; mkdir -p $R $OUT/ini
awk '/^[[:space:]]*budget_ms/ {next} {print} /^\[defaults\]/ {print "budget_ms = 300"}' ini/matmul_h200.ini > $OUT/ini/matmul_h200.ini
t0=$SECONDS; timeout 100 ctest --test-dir build-gpu -R 'test_gpu_matmul' --output-on-failure --timeout 95 > $OUT/ctest.txt 2>&1; echo "ctest exit $? in $((SECONDS-t0)) s"
grep -E "Test +#|tests passed|^not ok|Failed|FAIL" $OUT/ctest.txt | head -20
t0=$SECONDS; timeout 330 $K --tune --ini-dir $OUT/ini --out $R --tune-cache $R/tc.ini --timeout 200 --run-id t-gemm --plugin matmul_h200 --case square-4096,mlp-up-4096,mlp-down-4096 --dtype bf16 --profile cublas,wgmma_persistent > $OUT/tune-gemm.txt 2>&1; echo "tune gemm exit $? in $((SECONDS-t0)) s"
python3 $S $R/t-gemm/matmul_h200.csv | grep -E "cublas|epi=tma|own-choice" | grep -E "cublas|bn=256,stages=4,consumers=2,pingpong=0,colsplit=.,cluster=.,raster=m,group=8" | cut -c1-60,100-135,150-330
tar -C $OUT -czf $OUT/g1-runs.tgz r ini
t0=$SECONDS; timeout 80 compute-sanitizer --tool memcheck --error-exitcode 99 $K --no-isolate --tune --verify-only --config tests/gpu_ini/matmul_h200.ini --case odd-200 --dtype bf16 --profile wgmma_persistent --out $R --tune-cache $R/san.ini --run-id san-memcheck > $OUT/san-memcheck.txt 2>&1; echo "memcheck wgmma_persistent (odd-200) exit $? in $((SECONDS-t0)) s: $(grep 'ERROR SUMMARY' $OUT/san-memcheck.txt | tail -1)"
tar -C $OUT -czf $OUT/g1-runs.tgz r ini; tar -C $OUT -czf $OUT/g1-logs.tgz build.txt ctest.txt tune-gemm.txt san-memcheck.txt
rm -rf $R $OUT/ini $OUT/*.txt
