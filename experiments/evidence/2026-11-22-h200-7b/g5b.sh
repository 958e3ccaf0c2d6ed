#!/bin/bash
# seventh sitting, call 5b: the 256x128 cluster-2 variant and skinny v1 own choice: GPU tests, then the GEMM tune against cuBLAS in the same rounds
C=$1; export KLAB_COMMIT=$C
t0=$SECONDS; KLAB_COMMIT=$C bash tools/gpu-run.sh build > $OUT/build.txt 2>&1 || { tail -30 $OUT/build.txt; exit 1; }; echo "build $((SECONDS-t0)) s"
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu
nvidia-smi --query-gpu=name,uuid,clocks.max.sm,temperature.gpu --format=csv,noheader
K=build-gpu/klab; R=$OUT/r; mkdir -p $R $OUT/ini
t0=$SECONDS; timeout 200 ctest --test-dir build-gpu -R 'test_gpu_matmul|sass_matmul|test_matmul' --output-on-failure --timeout 190 > $OUT/ctest.txt 2>&1; echo "ctest exit $? in $((SECONDS-t0)) s"
grep -E "Test +#|tests passed|^not ok" $OUT/ctest.txt | head -20
awk '/^[[:space:]]*budget_ms/ {next} {print} /^\[defaults\]/ {print "budget_ms = 300"}' ini/matmul_h200.ini > $OUT/ini/matmul_h200.ini
t0=$SECONDS; timeout 260 $K --tune --ini-dir $OUT/ini --out $R --tune-cache $R/tune-cache.ini --timeout 255 --run-id t-gemm --plugin matmul_h200 --case square-4096,mlp-up-4096,mlp-down-4096 --dtype bf16 --profile cublas,wgmma_persistent > $OUT/tune-gemm.txt 2>&1; echo "tune gemm exit $? in $((SECONDS-t0)) s"
tar -C $OUT -czf $OUT/g5-runs.tgz r
grep -E "^(square|mlp)" $OUT/tune-gemm.txt | sort -k1,1 -k6,6n | awk 'c[$1]++ < 8' | cut -c1-200; grep -A8 "tuned on" $OUT/tune-gemm.txt | cut -c1-220
rm -rf $R $OUT/ini
