#!/bin/bash
# seventh sitting, call 15: skinny's own choice at 16 warps: its GPU test, then a plain run of the decode shapes beside cuBLAS and split-K, both dtypes
C=$1; export KLAB_COMMIT=$C
t0=$SECONDS; KLAB_COMMIT=$C KLAB_TARGETS="klab matmul_h200 test_gpu_matmul" bash tools/gpu-run.sh build > $OUT/build.txt 2>&1 || { tail -30 $OUT/build.txt; exit 1; }; echo "build $((SECONDS-t0)) s"
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu
nvidia-smi --query-gpu=name,uuid --format=csv,noheader
K=build-gpu/klab; R=$OUT/r; mkdir -p $R
t0=$SECONDS; timeout 100 ctest --test-dir build-gpu -R 'test_gpu_matmul' --output-on-failure --timeout 95 > $OUT/ctest.txt 2>&1; echo "ctest exit $? in $((SECONDS-t0)) s"
grep -E "Test +#|tests passed|^not ok" $OUT/ctest.txt | head
t0=$SECONDS; timeout 100 $K --plugin matmul_h200 --case decode-16,decode-1,decode-16-up,decode-16-down --profile cublas,skinny,wgmma_splitk --out $R --run-id mm-skinny --timeout 95 > $OUT/mm-skinny.txt 2>&1; echo "skinny exit $? in $((SECONDS-t0)) s"
grep -E "^decode" $OUT/mm-skinny.txt | cut -c1-160
tar -C $OUT -czf $OUT/g13-runs.tgz r; rm -rf $R
