#!/bin/bash
# thirteenth sitting, call 9: the final code (ef9af05's kernels): the plain run of the committed INI (graph, graph_pdl, fixed and dynamic) with PyTorch's decode in the same call
C=$1; export KLAB_COMMIT=$C
t0=$SECONDS; KLAB_COMMIT=$C KLAB_TARGETS="klab klab_bench decode_replay" bash tools/gpu-run.sh build > $OUT/build.txt 2>&1 || { tail -30 $OUT/build.txt; exit 1; }; echo "build $((SECONDS-t0)) s"
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu; rm -f $OUT/log.txt $OUT/results.tgz
nvidia-smi --query-gpu=name,uuid --format=csv,noheader
K=build-gpu/klab; R=$OUT/r; mkdir -p $R
t0=$SECONDS; timeout 140 $K --plugin decode_replay --case llama8b-4l,llama8b-4l-dyn,small-16l,small-16l-dyn,attn-only,attn-only-dyn --dtype fp16 --profile graph,graph_pdl --out $R --run-id decode --timeout 130 > $OUT/decode.txt 2>&1; echo "decode exit $? in $((SECONDS-t0)) s"
grep -E "^(llama|small|attn)" $OUT/decode.txt | cut -c1-150
tar -C $OUT -czf $OUT/g9-runs.tgz r
t0=$SECONDS; timeout 90 env PYTHONUNBUFFERED=1 python3 tools/torch_decode.py --build build-gpu --out $R/torch-decode --run-id torch-decode --cases llama8b-4l,small-16l,attn-only --dtypes fp16 > $OUT/torch-decode.txt 2>&1; echo "torch_decode exit $? in $((SECONDS-t0)) s"; tail -7 $OUT/torch-decode.txt
tar -C $OUT -czf $OUT/g9-runs.tgz r
python3 tools/decode_probes.py $R/decode $R/torch-decode --pairs torch_cudagraph/graph_pdl 2>&1 | grep -A5 '## ratios' > $OUT/ratios.md; cat $OUT/ratios.md
gzip -f $OUT/decode.txt $OUT/torch-decode.txt $OUT/build.txt; rm -rf $R
