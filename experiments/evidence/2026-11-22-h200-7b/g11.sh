#!/bin/bash
# seventh sitting, call 11: ncu of what limits the skinny GEMM (decode-16, own choice, beside cuBLAS) and the long-row RMSNorm (n65536 and n262144 fp16, own plans)
C=$1; export KLAB_COMMIT=$C
t0=$SECONDS; KLAB_COMMIT=$C KLAB_TARGETS="klab matmul_h200 rmsnorm" bash tools/gpu-run.sh build > $OUT/build.txt 2>&1 || { tail -30 $OUT/build.txt; exit 1; }; echo "build $((SECONDS-t0)) s"
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu
nvidia-smi --query-gpu=name,uuid --format=csv,noheader
K=build-gpu/klab
S="--section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section Occupancy --section LaunchStats --section SchedulerStats"
t0=$SECONDS; timeout 90 ncu $S -k regex:"skinny|nvjet|gemv" -c 4 $K --no-isolate --verify-only --plugin matmul_h200 --case decode-16 --dtype bf16 --profile cublas,skinny --out /tmp/r --run-id ncu-skinny > $OUT/ncu-skinny.txt 2>&1; echo "ncu skinny exit $? in $((SECONDS-t0)) s"
t0=$SECONDS; timeout 90 ncu $S -k regex:row_kernel -c 2 $K --no-isolate --verify-only --config experiments/rowsweep_rmsnorm.ini --case n65536,n262144 --dtype fp16 --profile fused --out /tmp/r --run-id ncu-rows > $OUT/ncu-rows.txt 2>&1; echo "ncu rows exit $? in $((SECONDS-t0)) s"
grep -E "^  [a-z_<].*\(|DRAM Throughput|Duration|Achieved Occupancy|Registers Per|Issued Warp|Eligible Warps|Compute \(SM\)|Cluster Size|Grid Size|Block Size" $OUT/ncu-skinny.txt $OUT/ncu-rows.txt | cut -c1-170 | head -60
