#!/bin/bash
# eighth sitting, call 2: skinny v3 (hopper_stream.cuh, TMA ring + wgmma) verified by test_gpu_matmul, then tuned beside cuBLAS and v1 on the decode shapes, both dtypes
C=$1; export KLAB_COMMIT=$C
t0=$SECONDS; KLAB_COMMIT=$C KLAB_TARGETS="klab matmul_h200 test_gpu_matmul" bash tools/gpu-run.sh build > $OUT/build.txt 2>&1 || { tail -30 $OUT/build.txt; exit 1; }; echo "build $((SECONDS-t0)) s"
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu
nvidia-smi --query-gpu=name,uuid --format=csv,noheader
K=build-gpu/klab; R=$OUT/r; mkdir -p $R $OUT/ini
# a quick look first: v3 on the test INI's skinny cases, every configuration, verify only
t0=$SECONDS; timeout 60 $K --tune --verify-only --plugin matmul_h200 --config tests/gpu_ini/matmul_h200.ini --case skinny-16,skinny-1,skinny-13,skinny-n200,decode-16 --profile skinny --out $R --run-id v3-verify --timeout 55 > $OUT/v3-verify.txt 2>&1; echo "v3 verify exit $? in $((SECONDS-t0)) s"
grep -E "stages=" $OUT/v3-verify.txt | awk '{print $1, $2, $3, $4, $5}' | sort | uniq -c | sort -rn | head -8
grep -E "FAIL|ERROR|error" $OUT/v3-verify.txt | head -8
awk '/^[[:space:]]*budget_ms/ {next} {print} /^\[defaults\]/ {print "budget_ms = 300"}' ini/matmul_h200.ini > $OUT/ini/matmul_h200.ini
t0=$SECONDS; timeout 200 $K --tune --ini-dir $OUT/ini --out $R --tune-cache $R/tune-cache.ini --timeout 195 --run-id t-v3 --plugin matmul_h200 --case decode-16,decode-1,decode-16-down,decode-16-up --profile cublas,skinny > $OUT/tune-v3.txt 2>&1; echo "tune exit $? in $((SECONDS-t0)) s"
grep -E "^decode.*(cublas|unroll=2|stages)" $OUT/tune-v3.txt | grep -v "ring=" | awk '{print $1, $2, $3, $4, $5, $6}' | head -90
tar -C $OUT -czf $OUT/g2-runs.tgz r; 
t0=$SECONDS; timeout 230 ctest --test-dir build-gpu -R 'test_gpu_matmul|sass_matmul' --output-on-failure --timeout 225 > $OUT/ctest.txt 2>&1; echo "ctest exit $? in $((SECONDS-t0)) s"
grep -E "Test +#|tests passed|^not ok|fail" $OUT/ctest.txt | head -20
gzip -f $OUT/ctest.txt $OUT/tune-v3.txt $OUT/v3-verify.txt; rm -rf $R $OUT/ini
