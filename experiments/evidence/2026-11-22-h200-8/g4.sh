#!/bin/bash
# eighth sitting, call 4: skinny's own choice v3 and decode_replay 1.4.0 (gemv=stream on hopper_stream.cuh): test_gpu_matmul, test_gpu_decode, plain and batched matmul runs of the decode shapes beside cuBLAS and split-K (both dtypes), the decode tune at llama8b-4l (graph_pdl)
C=$1; export KLAB_COMMIT=$C
t0=$SECONDS; KLAB_COMMIT=$C KLAB_TARGETS="klab matmul_h200 decode_replay rmsnorm test_gpu_matmul test_gpu_decode" bash tools/gpu-run.sh build > $OUT/build.txt 2>&1 || { tail -30 $OUT/build.txt; exit 1; }; echo "build $((SECONDS-t0)) s"
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu; rm -f $OUT/log.txt $OUT/results.tgz
nvidia-smi --query-gpu=name,uuid --format=csv,noheader
K=build-gpu/klab; R=$OUT/r; mkdir -p $R
t0=$SECONDS; timeout 150 ctest --test-dir build-gpu -R 'test_gpu_matmul|test_gpu_decode' --output-on-failure --timeout 140 > $OUT/ctest.txt 2>&1; echo "ctest exit $? in $((SECONDS-t0)) s"
grep -E "Test +#|tests passed|^not ok|Failure|error" $OUT/ctest.txt | head -20
t0=$SECONDS; timeout 80 $K --plugin matmul_h200 --case decode-16,decode-1,decode-16-down,decode-16-up --profile cublas,skinny,wgmma_splitk --out $R --run-id mm-plain --timeout 75 > $OUT/mm-plain.txt 2>&1; echo "plain exit $? in $((SECONDS-t0)) s"
t0=$SECONDS; timeout 80 $K --batched --plugin matmul_h200 --case decode-16,decode-1,decode-16-down,decode-16-up --profile cublas,skinny,wgmma_splitk --out $R --run-id mm-batched --timeout 75 > $OUT/mm-batched.txt 2>&1; echo "batched exit $? in $((SECONDS-t0)) s"
tar -C $OUT -czf $OUT/g4-runs.tgz r
for tool in synccheck memcheck; do t0=$SECONDS; timeout 60 compute-sanitizer --tool $tool --error-exitcode 99 $K --no-isolate --verify-only --config tests/gpu_ini/rows_rmsnorm.ini --out $R --run-id $tool-rows > $OUT/$tool-rows.txt 2>&1; rc=$?
  echo "$tool rows_rmsnorm: exit $rc in $((SECONDS-t0)) s: $(grep -E '(ERROR|SYNCCHECK) SUMMARY' $OUT/$tool-rows.txt | tail -1); flagged in: $(awk '/^\[rmsnorm/{c=$0} /Missing wait|Barrier error|Invalid/{n[c]++} END{for(k in n) print n[k], k}' $OUT/$tool-rows.txt | tr '\n' ';')"; done
tar -C $OUT -czf $OUT/g4-runs.tgz r $(cd $OUT; ls synccheck-rows.txt memcheck-rows.txt); rm -f $OUT/synccheck-rows.txt $OUT/memcheck-rows.txt
t0=$SECONDS; timeout 170 $K --tune --out $R --tune-cache $R/tune-cache.ini --timeout 165 --run-id t-stream --plugin decode_replay --case llama8b-4l --dtype fp16 --profile graph_pdl > $OUT/tune-stream.txt 2>&1; echo "decode tune exit $? in $((SECONDS-t0)) s"
grep -E "^llama8b" $OUT/tune-stream.txt | awk '{print $1,$2,$3,$4,$5,$6,$7}' | head -20
tar -C $OUT -czf $OUT/g4s.tgz r
gzip -f $OUT/ctest.txt $OUT/tune-stream.txt; rm -rf $R $OUT/mm-plain.txt $OUT/mm-batched.txt
