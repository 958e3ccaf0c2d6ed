#!/bin/bash
# sixteenth sitting, call 1 (issue 26): the new fp8 split-K points verified (test_gpu_gemm_family) and tuned
# at 64x7168x4096 beside cuBLASLt; the plain fp8 run there; matmul skinny decode-16/decode-1 against cuBLAS,
# plain and batched; ncu source counters of the own 4096^3 GEMM and of cuBLAS's
C=$1; export KLAB_COMMIT=$C
t0=$SECONDS; KLAB_COMMIT=$C KLAB_TARGETS="klab matmul_h200 fp8_gemm fused_gated_mlp klab_bench test_gpu_gemm_family" bash tools/gpu-run.sh build > $OUT/build.txt 2>&1 || { tail -30 $OUT/build.txt; exit 1; }; echo "build $((SECONDS-t0)) s"
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu
nvidia-smi --query-gpu=name,uuid,clocks.max.sm --format=csv,noheader
K=build-gpu/klab; R=$OUT/r; mkdir -p $R $OUT/ini
for p in fp8_gemm matmul_h200; do awk '/^[[:space:]]*budget_ms/ {next} {print} /^\[defaults\]/ {print "budget_ms = 1000"}' ini/$p.ini > $OUT/ini/$p.ini; done
t0=$SECONDS; timeout 150 ctest --test-dir build-gpu -R 'test_gpu_gemm_family' --output-on-failure --timeout 145 > $OUT/ctest.txt 2>&1; echo "ctest exit $? in $((SECONDS-t0)) s"
grep -E "Test +#|tests passed|^not ok|Failed|FAIL" $OUT/ctest.txt | head -20
t0=$SECONDS; timeout 150 $K --tune --ini-dir $OUT/ini --out $R --tune-cache $R/tune-cache.ini --timeout 140 --run-id t-fp8 --plugin fp8_gemm --case 64x7168x4096 --profile cublaslt,prequant > $OUT/tune-fp8.txt 2>&1; echo "tune fp8 exit $? in $((SECONDS-t0)) s"
python3 .sit/s16/summ.py $R/t-fp8/fp8_gemm.csv | sort -k5 -n | cut -c1-230
t0=$SECONDS; timeout 100 $K --ini-dir $OUT/ini --out $R --tune-cache $R/none.ini --timeout 90 --run-id p-fp8 --plugin fp8_gemm --case 64x7168x4096 > $OUT/p-fp8.txt 2>&1; echo "plain fp8 (own choices) exit $? in $((SECONDS-t0)) s"
python3 .sit/s16/summ.py $R/p-fp8/fp8_gemm.csv | cut -c1-230
tar -C $OUT -czf $OUT/g1-runs.tgz r ini
for mode in plain batched; do
  fl=; [ $mode = batched ] && fl=--batched
  t0=$SECONDS; timeout 90 $K $fl --ini-dir $OUT/ini --out $R --tune-cache $R/none.ini --timeout 80 --run-id sk-$mode --plugin matmul_h200 --case decode-16,decode-1 --dtype bf16,fp16 --profile cublas,skinny > $OUT/sk-$mode.txt 2>&1; echo "skinny $mode exit $? in $((SECONDS-t0)) s"
  python3 .sit/s16/summ.py $R/sk-$mode/matmul_h200.csv | cut -c1-230
done
tar -C $OUT -czf $OUT/g1-runs.tgz r ini
for pr in wgmma_persistent cublas; do
  rx=gemm_kernel; [ $pr = cublas ] && rx=nvjet_sm90_tst   # the check's reference is cuBLAS with fp32 out (tss)
  t0=$SECONDS; timeout 100 ncu --clock-control none --section WarpStateStats --section SourceCounters --section SpeedOfLight --import-source no -k regex:$rx -c 1 -o $OUT/ncu-$pr $K --no-isolate --verify-only --ini-dir $OUT/ini --plugin matmul_h200 --case square-4096 --dtype bf16 --profile $pr --out $R --run-id ncu-$pr > $OUT/ncu-$pr.txt 2>&1; echo "ncu $pr exit $? in $((SECONDS-t0)) s"
  ncu -i $OUT/ncu-$pr.ncu-rep --page source --csv --print-source sass > $OUT/src-$pr.csv 2>&1; echo "source: $(wc -l < $OUT/src-$pr.csv) lines"
  ncu -i $OUT/ncu-$pr.ncu-rep --page details --csv > $OUT/det-$pr.csv 2>&1
  grep -E '"(Duration|SM Frequency|Compute \(SM\) Throughput|Warp Cycles Per Issued Instruction|Issued Warp Per Scheduler|No Eligible)"' $OUT/det-$pr.csv | cut -d, -f1,5,12- | head -12
done
tar -C $OUT -czf $OUT/g1-runs.tgz r ini; tar -C $OUT -czf $OUT/g1-ncu.tgz src-wgmma_persistent.csv src-cublas.csv det-wgmma_persistent.csv det-cublas.csv ncu-wgmma_persistent.txt ncu-cublas.txt
tar -C $OUT -czf $OUT/g1-logs.tgz build.txt ctest.txt tune-fp8.txt p-fp8.txt sk-plain.txt sk-batched.txt
rm -rf $R $OUT/ini $OUT/*.txt $OUT/*.csv $OUT/*.ncu-rep
