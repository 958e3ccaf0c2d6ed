#!/bin/bash
# sixteenth sitting, call 3 (issue 26): fp8 64x64 tiles verified (test_gpu_gemm_family) and tuned at 64x7168x4096
# beside cuBLASLt, plain and batched; ncu kernel durations of the skinny candidates and cuBLASLt's; the gated
# MLP (SiLU, GELU) beside torch.compile in the same rounds
C=$1; export KLAB_COMMIT=$C
t0=$SECONDS; KLAB_COMMIT=$C KLAB_TARGETS="klab matmul_h200 fp8_gemm fused_gated_mlp klab_bench test_gpu_gemm_family" bash tools/gpu-run.sh build > $OUT/build.txt 2>&1 || { tail -30 $OUT/build.txt; exit 1; }; echo "build $((SECONDS-t0)) s"
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu
nvidia-smi --query-gpu=name,uuid,clocks.max.sm --format=csv,noheader
K=build-gpu/klab; R=$OUT/r; mkdir -p $R $OUT/ini
for p in fp8_gemm; do awk '/^[[:space:]]*budget_ms/ {next} {print} /^\[defaults\]/ {print "budget_ms = 1000"}' ini/$p.ini > $OUT/ini/$p.ini; done
t0=$SECONDS; timeout 100 ctest --test-dir build-gpu -R 'test_gpu_gemm_family' --output-on-failure --timeout 95 > $OUT/ctest.txt 2>&1; echo "ctest exit $? in $((SECONDS-t0)) s"
grep -E "Test +#|tests passed|^not ok|Failed|FAIL" $OUT/ctest.txt | head -20
for mode in plain batched; do
  fl=; [ $mode = batched ] && fl=--batched
  t0=$SECONDS; timeout 100 $K --tune $fl --ini-dir $OUT/ini --out $R --tune-cache $R/tc-$mode.ini --timeout 90 --run-id t-fp8-$mode --plugin fp8_gemm --case 64x7168x4096 --profile cublaslt,prequant > $OUT/tune-fp8-$mode.txt 2>&1; echo "tune fp8 $mode exit $? in $((SECONDS-t0)) s"
  python3 .sit/s16/summ.py $R/t-fp8-$mode/fp8_gemm.csv | sort -k5 -n | head -9 | cut -c1-230
done
tar -C $OUT -czf $OUT/g3-runs.tgz r ini
t0=$SECONDS; timeout 120 ncu --clock-control none --section SpeedOfLight --section LaunchStats --kernel-name-base demangled -k regex:'gemm_kernel|nvjet|sm90' $K --no-isolate --verify-only --ini-dir $OUT/ini --plugin fp8_gemm --case 64x7168x4096 --profile cublaslt,prequant --out $R --run-id ncu > $OUT/ncu-fp8.txt 2>&1; echo "ncu fp8 exit $? in $((SECONDS-t0)) s"
grep -E "^  [a-z_]|gemm_kernel|nvjet|Duration|Grid Size|Registers Per|Dynamic Shared" $OUT/ncu-fp8.txt | grep -vE "^==" | cut -c1-200 | head -80
t0=$SECONDS; timeout 200 env PYTHONUNBUFFERED=1 python3 tools/torch_rows.py --build build-gpu --budget-ms 800 --out $R/torch-mlp --plugins fused_gated_mlp --ini-cases-only --cases 4096x4096to14336,4096x4096to14336-gelu --dtypes bf16 > $OUT/torch-mlp.txt 2>&1; echo "torch_rows mlp exit $? in $((SECONDS-t0)) s"
grep -vE "^\[" $OUT/torch-mlp.txt | tail -30 | cut -c1-220
tar -C $OUT -czf $OUT/g3-runs.tgz r ini; tar -C $OUT -czf $OUT/g3-logs.tgz build.txt ctest.txt tune-fp8-plain.txt tune-fp8-batched.txt ncu-fp8.txt torch-mlp.txt
rm -rf $R $OUT/ini $OUT/*.txt
