#!/bin/bash
# ninth sitting, call 2: graph_pdl's own choice (attn=mma_cluster, gemv=stream at hidden >= 4096) with the unrolled tile issue: test_gpu_decode, compute-sanitizer over the -cluster cases, the plain run (>= 1000 steps, graph and graph_pdl) with PyTorch's decode in the same call, ncu of the cluster attention
C=$1; export KLAB_COMMIT=$C
t0=$SECONDS; KLAB_COMMIT=$C KLAB_TARGETS="klab klab_bench decode_replay test_gpu_decode" bash tools/gpu-run.sh build > $OUT/build.txt 2>&1 || { tail -30 $OUT/build.txt; exit 1; }; echo "build $((SECONDS-t0)) s"
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu; rm -f $OUT/log.txt $OUT/results.tgz
nvidia-smi --query-gpu=name,uuid --format=csv,noheader
K=build-gpu/klab; R=$OUT/r; mkdir -p $R $OUT/san
t0=$SECONDS; (cd build-gpu && timeout 100 ctest -R 'test_gpu_decode' --output-on-failure > $OUT/ctest.txt 2>&1); echo "ctest exit $? in $((SECONDS-t0)) s"; grep -E "Passed|Failed|FAILED|\[  FAILED" $OUT/ctest.txt | head -8
san() { local tool=$1 f=$2 lim=$3 id=san-$1-$(basename $2 .ini); shift 3
  t0=$SECONDS; timeout $lim compute-sanitizer --tool $tool --error-exitcode 99 $K --no-isolate --verify-only --config $f --out $R --run-id $id "$@" > $OUT/san/$id.txt 2>&1; rc=$?
  echo "$tool $*: exit $rc in $((SECONDS-t0)) s; $(grep -E '(ERROR|RACECHECK|SYNCCHECK) SUMMARY' $OUT/san/$id.txt | tail -1); rows passed: $(grep -c ' passed' $OUT/san/$id.txt)"; }
DS="--case tiny-d128-g4-cluster,tiny-g8-cluster16,tiny-attn-b8-cluster"
san memcheck tests/gpu_ini/decode_replay.ini 45 $DS
san racecheck tests/gpu_ini/decode_replay.ini 60 $DS
san synccheck tests/gpu_ini/decode_replay.ini 45 $DS
tar -C $OUT -czf $OUT/g2-san.tgz san; rm -rf $OUT/san
t0=$SECONDS; timeout 170 $K --plugin decode_replay --case llama8b-4l,llama8b-4l-dyn,small-16l,attn-only --dtype fp16 --profile graph,graph_pdl --out $R --run-id decode --timeout 165 > $OUT/decode.txt 2>&1; echo "decode exit $? in $((SECONDS-t0)) s"
grep -E "^(llama|small|attn)" $OUT/decode.txt | cut -c1-150
tar -C $OUT -czf $OUT/g2-runs.tgz r
t0=$SECONDS; timeout 120 env PYTHONUNBUFFERED=1 python3 tools/torch_decode.py --build build-gpu --out $R/torch-decode --run-id torch-decode --cases llama8b-4l,small-16l,attn-only --dtypes fp16 > $OUT/torch-decode.txt 2>&1; echo "torch_decode exit $? in $((SECONDS-t0)) s"; tail -8 $OUT/torch-decode.txt
tar -C $OUT -czf $OUT/g2-runs.tgz r
t0=$SECONDS; timeout 60 ncu --clock-control none --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section Occupancy --section LaunchStats --section SchedulerStats -k regex:attn_mma -c 2 $K --no-isolate --verify-only --plugin decode_replay --case attn-only --dtype fp16 --profile graph_pdl --out $R --run-id ncu > $OUT/ncu-cluster.txt 2>&1; echo "ncu exit $? in $((SECONDS-t0)) s"
grep -E "attn_mma_kernel|Duration|DRAM Throughput|Dynamic Shared|Registers Per|Cluster Size|No Eligible|Warp Cycles Per Issued|Max Active Clusters" $OUT/ncu-cluster.txt | head -24
tar -C $OUT -czf $OUT/g2-runs.tgz r; gzip -f $OUT/decode.txt $OUT/torch-decode.txt $OUT/ctest.txt; rm -rf $R
