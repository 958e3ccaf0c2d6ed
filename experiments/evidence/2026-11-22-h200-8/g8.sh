#!/bin/bash
# eighth sitting, call 8: the final code on the GPU: the GPU tests call 1's timeout cut (gemm family, fp8 quant, scale) and the matmul/decode ones the last code commit touched (cluster_barrier.cuh), with the SASS checks
C=$1; export KLAB_COMMIT=$C
t0=$SECONDS; KLAB_COMMIT=$C bash tools/gpu-run.sh build > $OUT/build.txt 2>&1 || { tail -30 $OUT/build.txt; exit 1; }; echo "build $((SECONDS-t0)) s"
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu; rm -f $OUT/log.txt $OUT/results.tgz
nvidia-smi --query-gpu=name,uuid --format=csv,noheader
t0=$SECONDS; timeout 300 ctest --test-dir build-gpu -R 'test_gpu_gemm_family|test_gpu_fp8_quant|test_gpu_scale|test_gpu_matmul|test_gpu_decode|sass_matmul|sass_decode' --output-on-failure -j 2 --timeout 290 > $OUT/ctest.txt 2>&1; echo "ctest exit $? in $((SECONDS-t0)) s"
grep -E "Test +#|tests passed|^not ok|Skipped|SKIP" $OUT/ctest.txt | head -20
gzip -f $OUT/ctest.txt
