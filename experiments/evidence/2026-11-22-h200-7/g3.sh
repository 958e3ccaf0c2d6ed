#!/bin/bash
# seventh sitting, call 3: the pipelined GEMV (decode_replay 1.2.0) verified and tuned against the plain one; test_gpu_matmul's split tune; the escape check's drift under rows-decode
C=$1; export KLAB_COMMIT=$C
t0=$SECONDS; KLAB_COMMIT=$C bash tools/gpu-run.sh build > $OUT/build.txt 2>&1 || { tail -30 $OUT/build.txt; exit 1; }; echo "build $((SECONDS-t0)) s"
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu
nvidia-smi --query-gpu=name,uuid,clocks.max.sm,temperature.gpu --format=csv,noheader
K=build-gpu/klab; R=$OUT/r; mkdir -p $R
t0=$SECONDS; timeout 200 ctest --test-dir build-gpu -R 'test_gpu_(decode|matmul)|sass_decode|test_decode' --output-on-failure --timeout 190 > $OUT/ctest.txt 2>&1; echo "ctest exit $? in $((SECONDS-t0)) s"
grep -E "Test +#|tests passed|^not ok" $OUT/ctest.txt | head -20
t0=$SECONDS; timeout 170 $K --tune --out $R --tune-cache $R/tune-cache.ini --timeout 160 --run-id t-gemv --plugin decode_replay --case llama8b-4l,small-16l --dtype fp16 --profile graph > $OUT/tune-gemv.txt 2>&1; echo "tune exit $? in $((SECONDS-t0)) s"
tar -C $OUT -czf $OUT/g3-runs.tgz r
grep -E "^(llama8b|small)" $OUT/tune-gemv.txt | cut -c1-170; grep -A12 "tuned on" $OUT/tune-gemv.txt | cut -c1-200
rm -f $OUT/log.txt $OUT/results.tgz
t0=$SECONDS; KLAB_DEBUG_ESCAPE=1 timeout 150 bash tools/gpu-run.sh rows-decode > $OUT/rows-decode.txt 2>&1; echo "rows-decode exit $? in $((SECONDS-t0)) s"
grep -ciE "escape" $OUT/rows-decode.txt; grep -iE "flag|escape" $OUT/rows-decode.txt | head -8
mv $OUT/results.tgz $OUT/rows-decode.tgz 2>/dev/null; gzip -f $OUT/log.txt 2>/dev/null; rm -rf $R
