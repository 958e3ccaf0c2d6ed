#!/bin/bash
# eighth sitting, call 6: compute-sanitizer over the new kernels (skinny v3 on hopper_stream.cuh: every configuration of its cases; decode's gemv=stream cases), then klab's tuned decode (call 5's cache) and PyTorch's decode in the same call
C=$1; export KLAB_COMMIT=$C
t0=$SECONDS; KLAB_COMMIT=$C KLAB_TARGETS="klab matmul_h200 decode_replay" bash tools/gpu-run.sh build > $OUT/build.txt 2>&1 || { tail -30 $OUT/build.txt; exit 1; }; echo "build $((SECONDS-t0)) s"
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu; rm -f $OUT/log.txt $OUT/results.tgz
nvidia-smi --query-gpu=name,uuid --format=csv,noheader
K=build-gpu/klab; R=$OUT/r; mkdir -p $R $OUT/san
san() { local tool=$1 f=$2 lim=$3 id=san-$1-$(basename $2 .ini); shift 3
  t0=$SECONDS; timeout $lim compute-sanitizer --tool $tool --error-exitcode 99 $K --no-isolate --verify-only --config $f --out $R --run-id $id "$@" > $OUT/san/$id.txt 2>&1; rc=$?
  own=$(grep -oE 'access at (void )?[A-Za-z_][A-Za-z0-9_:]*' $OUT/san/$id.txt | awk '{print $NF}' | sort -u | grep -vE '^(nvjet|cutlass|sm[0-9]+_xmma|cublas|xmma)' | tr '\n' ' ')
  echo "$tool $f $*: exit $rc in $((SECONDS-t0)) s; $(grep -E '(ERROR|RACECHECK|SYNCCHECK) SUMMARY' $OUT/san/$id.txt | tail -1); rows passed: $(grep -c ' passed' $OUT/san/$id.txt); klab's kernels named: ${own:-none}"; }
MM="--case skinny-13,skinny-n200,skinny-1,decode-16 --profile skinny --tune"
san memcheck tests/gpu_ini/matmul_h200.ini 100 $MM
san racecheck tests/gpu_ini/matmul_h200.ini 150 $MM --dtype bf16
san synccheck tests/gpu_ini/matmul_h200.ini 60 $MM --dtype fp16
DS="--case odd-b1-stream,odd-b8-stream"
san memcheck tests/gpu_ini/decode_replay.ini 60 $DS
san racecheck tests/gpu_ini/decode_replay.ini 90 $DS
san synccheck tests/gpu_ini/decode_replay.ini 60 $DS
tar -C $OUT -czf $OUT/g6-san.tgz san r; rm -rf $OUT/san $R; mkdir -p $R
t0=$SECONDS; timeout 60 $K --plugin decode_replay --tune-cache .sit/s8/tune-cache-decode.ini --case llama8b-4l --dtype fp16 --out $R --run-id decode-tuned --timeout 55 > $OUT/decode.txt 2>&1; echo "decode plain exit $? in $((SECONDS-t0)) s"
grep -E "^llama" $OUT/decode.txt | cut -c1-150
t0=$SECONDS; timeout 150 env PYTHONUNBUFFERED=1 python3 tools/torch_decode.py --build build-gpu --out $R/torch-decode --run-id torch-decode --cases llama8b-4l --dtypes fp16 > $OUT/torch-decode.txt 2>&1; echo "torch_decode exit $? in $((SECONDS-t0)) s"; tail -8 $OUT/torch-decode.txt
tar -C $OUT -czf $OUT/g6-runs.tgz r; gzip -f $OUT/decode.txt $OUT/torch-decode.txt; rm -rf $R
