#!/bin/bash
# seventh sitting, call 2: the GPU tests call 1 left unrun (skinny included), the skinny tune, then the measurements the notes ask for first
C=$1; export KLAB_COMMIT=$C
t0=$SECONDS; KLAB_COMMIT=$C bash tools/gpu-run.sh build > $OUT/build.txt 2>&1 || { tail -30 $OUT/build.txt; exit 1; }; echo "build $((SECONDS-t0)) s"
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu
nvidia-smi --query-gpu=name,uuid,clocks.max.sm,temperature.gpu --format=csv,noheader
K=build-gpu/klab; R=$OUT/r; mkdir -p $R $OUT/ini $OUT/inip $OUT/inic
t0=$SECONDS; timeout 130 ctest --test-dir build-gpu -R 'test_gpu_(scale|matmul|gemm_family|decode|fp8_quant)|sass_matmul|test_matmul' --output-on-failure --timeout 125 > $OUT/ctest.txt 2>&1; echo "ctest exit $? in $((SECONDS-t0)) s"
grep -E "Test +#|tests passed|^not ok" $OUT/ctest.txt | head -20
awk '/^[[:space:]]*budget_ms/ {next} {print} /^\[defaults\]/ {print "budget_ms = 300"}' ini/matmul_h200.ini > $OUT/ini/matmul_h200.ini
t0=$SECONDS; timeout 90 $K --tune --ini-dir $OUT/ini --out $R --tune-cache $R/tune-cache.ini --timeout 85 --run-id t-skinny --plugin matmul_h200 --case decode-16,decode-1,decode-16-up --dtype bf16 --profile cublas,skinny > $OUT/tune-skinny.txt 2>&1; tar -C $OUT -czf $OUT/g2-runs.tgz r; echo "tune exit $? in $((SECONDS-t0)) s"
grep -E "cublas|skinny" $OUT/tune-skinny.txt | grep -vE "^\[" | head -60
# decode: the fused attention's probes (attn-only, llama8b-4l), and attn-only at chunk 64 and 256
awk '{print} /^\[case (llama8b-4l|attn-only)\]/ {print "param.probes = 1"}' ini/decode_replay.ini | awk '/^[[:space:]]*budget_ms/ {next} {print} /^\[defaults\]/ {print "budget_ms = 3000"}' > $OUT/inip/decode_replay.ini
t0=$SECONDS; KLAB_DECODE_PROBES=$R/probes timeout 80 $K --plugin decode_replay --ini-dir $OUT/inip --case llama8b-4l,attn-only --dtype fp16 --profile graph,graph_pdl --out $R --run-id decode-probes --timeout 75 > $OUT/probes.txt 2>&1; tar -C $OUT -czf $OUT/g2-runs.tgz r; echo "probes exit $? in $((SECONDS-t0)) s"
grep -vE "^\[" $OUT/probes.txt | tail -8
{ awk '/^[[:space:]]*budget_ms/ {next} {print} /^\[defaults\]/ {print "budget_ms = 3000"}' ini/decode_replay.ini; for c in 64 256; do printf '[case attn-only-c%s]\ndim.batch = 1\ndim.layers = 4\ndim.hidden = 4096\ndim.heads = 32\ndim.kv_heads = 8\ndim.inter = 14336\ndim.kv = 4096\nparam.part = attn\ndim.chunk = %s\n' $c $c; done; } > $OUT/inic/decode_replay.ini
t0=$SECONDS; timeout 60 $K --plugin decode_replay --ini-dir $OUT/inic --case attn-only,attn-only-c64,attn-only-c256 --dtype fp16 --profile graph,graph_pdl --out $R --run-id decode-chunk --timeout 55 > $OUT/chunk.txt 2>&1; tar -C $OUT -czf $OUT/g2-runs.tgz r; echo "chunk exit $? in $((SECONDS-t0)) s"
grep -E "attn-only" $OUT/chunk.txt | grep -vE "^\[" | head -12
S="--section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section Occupancy --section LaunchStats --section SchedulerStats"
t0=$SECONDS; timeout 50 ncu $S -k regex:attn_fused -c 2 $K --no-isolate --verify-only --plugin decode_replay --ini-dir $OUT/inic --case attn-only --dtype fp16 --profile eager --out $R --run-id ncu-attn > $OUT/ncu-attn.txt 2>&1; echo "ncu attn exit $? in $((SECONDS-t0)) s"
t0=$SECONDS; timeout 50 ncu $S -k regex:gemv_kernel --launch-skip 2 -c 2 $K --no-isolate --verify-only --plugin decode_replay --ini-dir $OUT/inic --case llama8b-4l --dtype fp16 --profile eager --out $R --run-id ncu-gemv > $OUT/ncu-gemv.txt 2>&1; echo "ncu gemv exit $? in $((SECONDS-t0)) s"
grep -E "gemv_kernel|attn_fused|DRAM Throughput|Duration|Achieved Occupancy|Registers Per" $OUT/ncu-attn.txt $OUT/ncu-gemv.txt | head -30
t0=$SECONDS; timeout 70 $K --plugin matmul_h200 --ini-dir $OUT/ini --case square-4096 --dtype bf16 --profile cublas,wgmma_persistent --with-profiling --out $R --run-id prof --timeout 65 > $OUT/prof.txt 2>&1; echo "prof exit $? in $((SECONDS-t0)) s"
cat $R/prof/*.counters.csv 2>/dev/null | cut -c1-400 | head -8
tar -C $OUT -czf $OUT/g2-runs.tgz r; rm -rf $R $OUT/ini $OUT/inip
