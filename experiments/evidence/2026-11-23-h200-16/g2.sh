#!/bin/bash
# sixteenth sitting, call 2 (issue 26): the serial split-K sum with its loads batched (1af45e4): the GEMM
# family's GPU tests (every configuration verified at odd shapes); the fp8 64x7168x4096 tune beside
# cuBLASLt; matmul's skinny shapes tuned over wgmma_splitk and skinny beside cuBLAS, plain and batched;
# ncu source counters of the own 4096^3 GEMM (128x256 cluster 2, TMA-store epilogue)
C=$1; export KLAB_COMMIT=$C
t0=$SECONDS; KLAB_COMMIT=$C KLAB_TARGETS="klab matmul_h200 fp8_gemm fused_gated_mlp klab_bench test_gpu_gemm_family test_gpu_matmul" bash tools/gpu-run.sh build > $OUT/build.txt 2>&1 || { tail -30 $OUT/build.txt; exit 1; }; echo "build $((SECONDS-t0)) s"
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu
nvidia-smi --query-gpu=name,uuid,clocks.max.sm --format=csv,noheader
K=build-gpu/klab; R=$OUT/r; mkdir -p $R $OUT/ini
for p in fp8_gemm matmul_h200; do awk '/^[[:space:]]*budget_ms/ {next} {print} /^\[defaults\]/ {print "budget_ms = 1000"}' ini/$p.ini > $OUT/ini/$p.ini; done
t0=$SECONDS; timeout 150 ctest --test-dir build-gpu -R 'test_gpu_gemm_family|test_gpu_matmul' --output-on-failure -j 2 --timeout 145 > $OUT/ctest.txt 2>&1; echo "ctest exit $? in $((SECONDS-t0)) s"
grep -E "Test +#|tests passed|^not ok|Failed|FAIL" $OUT/ctest.txt | head -20
t0=$SECONDS; timeout 100 $K --tune --ini-dir $OUT/ini --out $R --tune-cache $R/tune-cache.ini --timeout 90 --run-id t-fp8 --plugin fp8_gemm --case 64x7168x4096 --profile cublaslt,prequant > $OUT/tune-fp8.txt 2>&1; echo "tune fp8 exit $? in $((SECONDS-t0)) s"
python3 .sit/s16/summ.py $R/t-fp8/fp8_gemm.csv | sort -k5 -n | head -12 | cut -c1-230
for mode in plain batched; do
  fl=; [ $mode = batched ] && fl=--batched
  t0=$SECONDS; timeout 150 $K --tune $fl --ini-dir $OUT/ini --out $R --tune-cache $R/tc-$mode.ini --timeout 140 --run-id tsk-$mode --plugin matmul_h200 --case decode-16,decode-1 --dtype bf16 --profile cublas,wgmma_splitk,skinny > $OUT/tsk-$mode.txt 2>&1; echo "tune skinny $mode exit $? in $((SECONDS-t0)) s"
  python3 .sit/s16/summ.py $R/tsk-$mode/matmul_h200.csv | sort -k1,1 -k5,5n | awk '{c[$1]++} c[$1] <= 9' | cut -c1-230
done
tar -C $OUT -czf $OUT/g2-runs.tgz r ini
pr=wgmma_persistent
t0=$SECONDS; timeout 100 ncu --clock-control none --section WarpStateStats --section SourceCounters --section SpeedOfLight --import-source no --kernel-name-base demangled -k regex:'.int.2, .bool.0>, hg::TmaStoreEpilogue' -c 1 -o $OUT/ncu-$pr $K --no-isolate --verify-only --ini-dir $OUT/ini --plugin matmul_h200 --case square-4096 --dtype bf16 --profile $pr --out $R --run-id ncu-$pr > $OUT/ncu-$pr.txt 2>&1; echo "ncu $pr exit $? in $((SECONDS-t0)) s"
ncu -i $OUT/ncu-$pr.ncu-rep --page source --csv --print-source sass > $OUT/src-$pr.csv 2>&1; echo "source: $(wc -l < $OUT/src-$pr.csv) lines"
ncu -i $OUT/ncu-$pr.ncu-rep --page details --csv > $OUT/det-$pr.csv 2>&1
grep -E '"(Duration|SM Frequency|Compute \(SM\) Throughput|Warp Cycles Per Issued Instruction|Grid Size)"' $OUT/det-$pr.csv | cut -d, -f2,5,12- | cut -c1-300 | head -12
tar -C $OUT -czf $OUT/g2-runs.tgz r ini; tar -C $OUT -czf $OUT/g2-ncu.tgz src-$pr.csv det-$pr.csv ncu-$pr.txt
tar -C $OUT -czf $OUT/g2-logs.tgz build.txt ctest.txt tune-fp8.txt tsk-plain.txt tsk-batched.txt
rm -rf $R $OUT/ini $OUT/*.txt $OUT/*.csv $OUT/*.ncu-rep
