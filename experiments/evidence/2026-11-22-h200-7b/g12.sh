#!/bin/bash
# seventh sitting, call 14: skinny v1 at 16 warps beside the own choice (8 warps) and cuBLAS, in the same rounds; its GPU tests
C=$1; export KLAB_COMMIT=$C
t0=$SECONDS; KLAB_COMMIT=$C KLAB_TARGETS="klab matmul_h200 test_gpu_matmul" bash tools/gpu-run.sh build > $OUT/build.txt 2>&1 || { tail -30 $OUT/build.txt; exit 1; }; echo "build $((SECONDS-t0)) s"
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu
nvidia-smi --query-gpu=name,uuid --format=csv,noheader
K=build-gpu/klab; R=$OUT/r; mkdir -p $R $OUT/ini
t0=$SECONDS; timeout 120 ctest --test-dir build-gpu -R 'test_gpu_matmul' --output-on-failure --timeout 115 > $OUT/ctest.txt 2>&1; echo "ctest exit $? in $((SECONDS-t0)) s"
grep -E "Test +#|tests passed|^not ok" $OUT/ctest.txt | head
awk '/^[[:space:]]*budget_ms/ {next} {print} /^\[defaults\]/ {print "budget_ms = 400"}' ini/matmul_h200.ini > $OUT/ini/matmul_h200.ini
t0=$SECONDS; timeout 150 $K --tune --ini-dir $OUT/ini --out $R --tune-cache $R/tune-cache.ini --timeout 145 --run-id t-skinny16 --plugin matmul_h200 --case decode-16,decode-1,decode-16-up,decode-16-down --profile cublas,skinny > $OUT/tune-skinny16.txt 2>&1; echo "tune exit $? in $((SECONDS-t0)) s"
grep -E "^decode.*(cublas|unroll)" $OUT/tune-skinny16.txt | awk '{print $1, $2, $4, $6, $11, $12}'
tar -C $OUT -czf $OUT/g12-runs.tgz r; rm -rf $R $OUT/ini
