#!/bin/bash
# fourteenth sitting, call 3: the final code (997c62f): the plain run of the committed INI (graph, graph_pdl, fixed and dynamic; llama8b-4l at B = 1 and 8) with PyTorch's decode in the same call; test_gpu_decode; memcheck, synccheck, racecheck of the stream cases
C=$1; export KLAB_COMMIT=$C
t0=$SECONDS; KLAB_COMMIT=$C KLAB_TARGETS="klab klab_bench decode_replay test_gpu_decode" bash tools/gpu-run.sh build > $OUT/build.txt 2>&1 || { tail -30 $OUT/build.txt; exit 1; }; echo "build $((SECONDS-t0)) s"
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu; rm -f $OUT/log.txt $OUT/results.tgz
nvidia-smi --query-gpu=name,uuid --format=csv,noheader
K=build-gpu/klab; R=$OUT/r; mkdir -p $R $OUT/san
t0=$SECONDS; timeout 170 $K --plugin decode_replay --case llama8b-4l,llama8b-4l-dyn,llama8b-4l-b8,small-16l,small-16l-dyn,attn-only,attn-only-dyn --dtype fp16 --profile graph,graph_pdl --out $R --run-id decode --timeout 160 > $OUT/decode.txt 2>&1; echo "decode exit $? in $((SECONDS-t0)) s"
grep -E "^(llama|small|attn)" $OUT/decode.txt | cut -c1-150
tar -C $OUT -czf $OUT/g3-runs.tgz r
t0=$SECONDS; timeout 120 env PYTHONUNBUFFERED=1 python3 tools/torch_decode.py --build build-gpu --out $R/torch-decode --run-id torch-decode --cases llama8b-4l,llama8b-4l-b8,small-16l,attn-only --dtypes fp16 > $OUT/torch-decode.txt 2>&1; echo "torch_decode exit $? in $((SECONDS-t0)) s"; tail -8 $OUT/torch-decode.txt
tar -C $OUT -czf $OUT/g3-runs.tgz r
python3 tools/decode_probes.py $R/decode $R/torch-decode --pairs torch_cudagraph/graph_pdl 2>&1 | grep -A7 '## ratios' > $OUT/ratios.md; cat $OUT/ratios.md
t0=$SECONDS; (cd build-gpu && timeout 110 ctest -R 'test_gpu_decode' --output-on-failure > $OUT/ctest.txt 2>&1); echo "ctest exit $? in $((SECONDS-t0)) s"; grep -E "Passed|Failed|FAILED|\[  FAILED|not ok" $OUT/ctest.txt | head -8
san() { local tool=$1 f=$2 lim=$3 id=san-$1; shift 3
  t0=$SECONDS; timeout $lim compute-sanitizer --tool $tool --error-exitcode 99 --print-limit 20 $K --no-isolate --verify-only --config $f --out $R --run-id $id "$@" > $OUT/san/$id.txt 2>&1; rc=$?
  echo "$tool $*: exit $rc in $((SECONDS-t0)) s; $(grep -E '(ERROR|RACECHECK|SYNCCHECK) SUMMARY' $OUT/san/$id.txt | tail -1); rows passed: $(grep -c ' passed' $OUT/san/$id.txt)"; }
DS="--case odd-b1-stream,odd-b8-stream"
san memcheck tests/gpu_ini/decode_replay.ini 50 $DS
san synccheck tests/gpu_ini/decode_replay.ini 50 $DS
san racecheck tests/gpu_ini/decode_replay.ini 50 --case odd-b8-stream --dtype fp16
tar -C $OUT -czf $OUT/g3-san.tgz san; rm -rf $OUT/san
gzip -f $OUT/decode.txt $OUT/torch-decode.txt $OUT/ctest.txt $OUT/build.txt; rm -rf $R
