#!/bin/bash
# seventeenth sitting, call 7 (issues 22, 26): the GPU tests the sitting's changes touch (test_gpu_rows:
# the long-row own choices; test_gpu_swired: swiglu's space and own choice; test_gpu_gemm_family: the
# gated MLP's activation through swiglu's launch); matmul's plain run (own choices, no tune cache) at
# square-8192 and square-4096, bf16 and fp16, beside cuBLAS (#26's 8192^3 and fp16 rows, not rerun since
# the eighth sitting)
C=$1; export KLAB_COMMIT=$C
t0=$SECONDS; KLAB_COMMIT=$C KLAB_TARGETS="klab klab_bench rmsnorm softmax swiglu reduction rmsnorm_rope matmul_h200 fp8_gemm fused_gated_mlp test_gpu_rows test_gpu_swired test_gpu_gemm_family" bash tools/gpu-run.sh build > $OUT/build.txt 2>&1 || { tail -30 $OUT/build.txt; exit 1; }; echo "build $((SECONDS-t0)) s"
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu
nvidia-smi --query-gpu=name,uuid,clocks.max.sm --format=csv,noheader
K=build-gpu/klab; R=$OUT/r; mkdir -p $R $OUT/ini $OUT/logs
t0=$SECONDS; timeout 330 ctest --test-dir build-gpu -R 'test_gpu_rows|test_gpu_swired|test_gpu_gemm_family' --output-on-failure --timeout 200 > $OUT/logs/ctest.txt 2>&1; echo "ctest exit $? in $((SECONDS-t0)) s"
grep -E "Test +#|tests passed|^not ok|Failed|FAIL" $OUT/logs/ctest.txt | head -20
tar -C $OUT -czf $OUT/g7-runs.tgz logs
awk '/^[[:space:]]*budget_ms/ {next} {print} /^\[defaults\]/ {print "budget_ms = 1000"}' ini/matmul_h200.ini > $OUT/ini/matmul_h200.ini
t0=$SECONDS; timeout 150 $K --ini-dir $OUT/ini --out $R --tune-cache $R/none.ini --timeout 140 --run-id p-gemm --plugin matmul_h200 --case square-8192,square-4096 --profile cublas,wgmma_persistent > $OUT/logs/p-gemm.txt 2>&1; echo "plain gemm exit $? in $((SECONDS-t0)) s"
python3 .sit/s17/summ.py $R/p-gemm/matmul_h200.csv | cut -c1-200
tar -C $OUT -czf $OUT/g7-runs.tgz r ini logs; rm -rf $R $OUT/ini $OUT/logs
