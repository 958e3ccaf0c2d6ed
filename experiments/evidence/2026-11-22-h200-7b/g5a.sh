#!/bin/bash
# seventh sitting, call 5a: skinny v2: its GPU tests, then its tune against cuBLAS in the same rounds
C=$1; export KLAB_COMMIT=$C
t0=$SECONDS; KLAB_COMMIT=$C bash tools/gpu-run.sh build > $OUT/build.txt 2>&1 || { tail -30 $OUT/build.txt; exit 1; }; echo "build $((SECONDS-t0)) s"
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu
nvidia-smi --query-gpu=name,uuid,clocks.max.sm,temperature.gpu --format=csv,noheader
K=build-gpu/klab; R=$OUT/r; mkdir -p $R $OUT/ini
t0=$SECONDS; timeout 200 ctest --test-dir build-gpu -R 'test_gpu_matmul|sass_matmul|test_matmul' --output-on-failure --timeout 190 > $OUT/ctest.txt 2>&1; echo "ctest exit $? in $((SECONDS-t0)) s"
grep -E "Test +#|tests passed|^not ok" $OUT/ctest.txt | head -20
awk '/^[[:space:]]*budget_ms/ {next} {print} /^\[defaults\]/ {print "budget_ms = 300"}' ini/matmul_h200.ini > $OUT/ini/matmul_h200.ini
t0=$SECONDS; timeout 150 $K --tune --ini-dir $OUT/ini --out $R --tune-cache $R/tune-cache.ini --timeout 145 --run-id t-skinny --plugin matmul_h200 --case decode-16,decode-1,decode-16-up,decode-16-down --dtype bf16 --profile cublas,skinny > $OUT/tune-skinny.txt 2>&1; echo "tune skinny exit $? in $((SECONDS-t0)) s"
tar -C $OUT -czf $OUT/g5-runs.tgz r
grep -E "^decode" $OUT/tune-skinny.txt | cut -c1-150 | head -100; grep -A8 "tuned on" $OUT/tune-skinny.txt | cut -c1-180
rm -rf $R $OUT/ini
