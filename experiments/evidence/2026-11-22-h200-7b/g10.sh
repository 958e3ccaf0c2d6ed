#!/bin/bash
# seventh sitting, call 10: matmul_h200 fp16 against cuBLAS in the same rounds (square-4096/8192, mlp-up/down; the skinny decode cases), own choices, plain run
C=$1; export KLAB_COMMIT=$C
t0=$SECONDS; KLAB_COMMIT=$C KLAB_TARGETS="klab matmul_h200" bash tools/gpu-run.sh build > $OUT/build.txt 2>&1 || { tail -30 $OUT/build.txt; exit 1; }; echo "build $((SECONDS-t0)) s"
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu
nvidia-smi --query-gpu=name,uuid --format=csv,noheader
K=build-gpu/klab; R=$OUT/r; mkdir -p $R
t0=$SECONDS; timeout 200 $K --plugin matmul_h200 --case square-4096,square-8192,mlp-up-4096,mlp-down-4096 --dtype fp16 --profile cublas,wgmma_persistent --out $R --run-id mm-fp16 --timeout 190 > $OUT/mm-fp16.txt 2>&1; echo "fp16 exit $? in $((SECONDS-t0)) s"
grep -E "^(square|mlp)" $OUT/mm-fp16.txt | cut -c1-160
t0=$SECONDS; timeout 120 $K --plugin matmul_h200 --case decode-16,decode-1,decode-16-up,decode-16-down --profile cublas,skinny,wgmma_splitk --out $R --run-id mm-skinny --timeout 110 > $OUT/mm-skinny.txt 2>&1; echo "skinny exit $? in $((SECONDS-t0)) s"
grep -E "^decode" $OUT/mm-skinny.txt | cut -c1-160
tar -C $OUT -czf $OUT/g10-runs.tgz r; rm -rf $R
