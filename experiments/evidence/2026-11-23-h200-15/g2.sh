#!/bin/bash
# fifteenth sitting, call 2: decode_replay's final code (1.7.0, 4c6dcd4's kernels) once: the committed INI's
# eight cases under graph and graph_pdl, PyTorch's decode in the same call, test_gpu_decode
C=$1; export KLAB_COMMIT=$C
t0=$SECONDS; KLAB_COMMIT=$C KLAB_TARGETS="klab klab_bench decode_replay test_gpu_decode" bash tools/gpu-run.sh build > $OUT/build.txt 2>&1 || { tail -30 $OUT/build.txt; exit 1; }; echo "build $((SECONDS-t0)) s"
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu; rm -f $OUT/log.txt $OUT/results.tgz
nvidia-smi --query-gpu=name,uuid --format=csv,noheader
K=build-gpu/klab; R=$OUT/r; mkdir -p $R
t0=$SECONDS; timeout 200 $K --plugin decode_replay --case llama8b-4l,llama8b-4l-dyn,llama8b-4l-b8,llama8b-4l-b8-dyn,small-16l,small-16l-dyn,attn-only,attn-only-dyn --dtype fp16 --profile graph,graph_pdl --out $R --run-id decode --timeout 190 > $OUT/decode.txt 2>&1; echo "decode exit $? in $((SECONDS-t0)) s"
grep -E "^(llama|small|attn)" $OUT/decode.txt | cut -c1-150
tar -C $OUT -czf $OUT/g2-runs.tgz r
t0=$SECONDS; timeout 100 env PYTHONUNBUFFERED=1 python3 tools/torch_decode.py --build build-gpu --out $R/torch-decode --run-id torch-decode --cases llama8b-4l,llama8b-4l-b8,small-16l,attn-only --dtypes fp16 > $OUT/torch-decode.txt 2>&1; echo "torch_decode exit $? in $((SECONDS-t0)) s"; tail -8 $OUT/torch-decode.txt
tar -C $OUT -czf $OUT/g2-runs.tgz r
python3 tools/decode_probes.py $R/decode $R/torch-decode --pairs torch_cudagraph/graph_pdl 2>&1 | grep -A7 '## ratios' > $OUT/ratios.md; cat $OUT/ratios.md
t0=$SECONDS; (cd build-gpu && timeout 80 ctest -R 'test_gpu_decode' --output-on-failure > $OUT/ctest.txt 2>&1); echo "ctest exit $? in $((SECONDS-t0)) s"; grep -E "Passed|Failed|FAILED|\[  FAILED|not ok" $OUT/ctest.txt | head -8
gzip -f $OUT/decode.txt $OUT/torch-decode.txt $OUT/ctest.txt $OUT/build.txt; rm -rf $R
