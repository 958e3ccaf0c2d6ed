#!/bin/bash
# fourteenth sitting, call 8: the final code (cc4da28): small-16l streamed gate/up against the register GEMV (ABAB); the plain run of the committed INI with PyTorch's decode; test_gpu_decode
C=$1; export KLAB_COMMIT=$C
t0=$SECONDS; KLAB_COMMIT=$C KLAB_TARGETS="klab klab_bench decode_replay test_gpu_decode" bash tools/gpu-run.sh build > $OUT/build.txt 2>&1 || { tail -30 $OUT/build.txt; exit 1; }; echo "build $((SECONDS-t0)) s"
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu; rm -f $OUT/log.txt $OUT/results.tgz
nvidia-smi --query-gpu=name,uuid --format=csv,noheader
K=build-gpu/klab; R=$OUT/r; mkdir -p $R $OUT/ini
python3 .sit/s14/mkini8.py $OUT/ini/decode_replay.ini
t0=$SECONDS; timeout 110 $K --plugin decode_replay --ini-dir $OUT/ini --out $R --run-id var --timeout 60 > $OUT/var.txt 2>&1; echo "var exit $? in $((SECONDS-t0)) s"
grep -E "^(L|S)" $OUT/var.txt | cut -c1-120
tar -C $OUT -czf $OUT/g8-runs.tgz r ini
t0=$SECONDS; timeout 150 $K --plugin decode_replay --case llama8b-4l,llama8b-4l-dyn,llama8b-4l-b8,llama8b-4l-b8-dyn,small-16l,small-16l-dyn,attn-only,attn-only-dyn --dtype fp16 --profile graph,graph_pdl --out $R --run-id decode --timeout 140 > $OUT/decode.txt 2>&1; echo "decode exit $? in $((SECONDS-t0)) s"
grep -E "^(llama|small|attn)" $OUT/decode.txt | cut -c1-150
t0=$SECONDS; timeout 80 env PYTHONUNBUFFERED=1 python3 tools/torch_decode.py --build build-gpu --out $R/torch-decode --run-id torch-decode --cases llama8b-4l,llama8b-4l-b8,small-16l,attn-only --dtypes fp16 > $OUT/torch-decode.txt 2>&1; echo "torch_decode exit $? in $((SECONDS-t0)) s"; tail -8 $OUT/torch-decode.txt
tar -C $OUT -czf $OUT/g8-runs.tgz r ini
python3 tools/decode_probes.py $R/decode $R/torch-decode --pairs torch_cudagraph/graph_pdl 2>&1 | grep -A7 '## ratios' > $OUT/ratios.md; cat $OUT/ratios.md
t0=$SECONDS; (cd build-gpu && timeout 60 ctest -R 'test_gpu_decode' --output-on-failure > $OUT/ctest.txt 2>&1); echo "ctest exit $? in $((SECONDS-t0)) s"; grep -E "Passed|Failed|FAILED|\[  FAILED|not ok" $OUT/ctest.txt | head -8
gzip -f $OUT/var.txt $OUT/decode.txt $OUT/torch-decode.txt $OUT/ctest.txt $OUT/build.txt; rm -rf $R $OUT/ini
