#!/bin/bash
# final sitting, call 2: --tune of the new knobs in the same rounds as what they replace: matmul epi=tma and the
# cluster-2 fence fix beside cuBLAS; fp8 and the gated MLP; decode's fused attention against the split one
C=$1; export KLAB_COMMIT=$C
[ -x build-gpu/klab ] && [ -d /opt/deps ] || { KLAB_COMMIT=$C bash tools/gpu-run.sh build > $OUT/build.txt 2>&1 || exit 1; }
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu
mkdir -p $OUT/r $OUT/ini
for p in matmul_h200 fp8_gemm fused_gated_mlp; do
  awk '/^[[:space:]]*budget_ms/ {next} {print} /^\[defaults\]/ {print "budget_ms = 200"}' ini/$p.ini > $OUT/ini/$p.ini
done
cp ini/decode_replay.ini $OUT/ini/
T=$OUT/tune-cache.ini
tune() { local t0=$SECONDS; timeout $1 build-gpu/klab --tune --ini-dir $OUT/ini --out $OUT/r --tune-cache $T --timeout $1 "${@:2}" > $OUT/tune-$3.txt 2>&1; echo "tune ${*:2}: exit $? in $((SECONDS-t0)) s"; grep -A12 "tuned on" $OUT/tune-$3.txt | grep -vE "^\[|^$"; }
tune 170 --run-id t-mm --plugin matmul_h200 --case square-4096,mlp-up-4096 --dtype bf16 --profile cublas,wgmma_persistent
tune 110 --run-id t-fp8 --plugin fp8_gemm --case 4096x4096x4096,8192x8192x8192 --profile cublaslt,prequant,autoquant
tune 80 --run-id t-mlp --plugin fused_gated_mlp --case 4096x4096to14336 --profile unfused,fused
tune 200 --run-id t-dec --plugin decode_replay --case attn-only,llama8b-4l,small-16l --dtype fp16 --profile graph,graph_pdl
cp $T $OUT/r/
tar -C $OUT -czf $OUT/f2-runs.tgz r; rm -rf $OUT/r $OUT/ini
