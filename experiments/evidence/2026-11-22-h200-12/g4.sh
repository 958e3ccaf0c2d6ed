#!/bin/bash
# twelfth sitting, call 4: torch.compile's RMSNorm kernels (Triton source and ncu: launch, occupancy, DRAM) at fp32 1024x32768 (it reaches 98.6 % of klab's copy there) and the long rows; klab's own choice at the same shape under ncu beside it
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu
nvidia-smi --query-gpu=name,uuid --format=csv,noheader
t0=$SECONDS; TORCH_LOGS=output_code timeout 200 python3 .sit/s12/tc.py > $OUT/tc-code.txt 2>&1; echo "code exit $? in $((SECONDS-t0)) s"
grep -nE "^def triton|@triton_heuristics|reduction_hint|RBLOCK|R0_BLOCK|XBLOCK|num_warps|triton_meta|filename" $OUT/tc-code.txt | head -60 | cut -c1-240
t0=$SECONDS; timeout 240 ncu --clock-control none --profile-from-start off --section LaunchStats --section Occupancy --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats python3 .sit/s12/tc.py > $OUT/tc-ncu.txt 2>&1; echo "ncu exit $? in $((SECONDS-t0)) s"
grep -E "triton|shape|Block Size|Grid Size|Registers Per|Achieved Occupancy|Theoretical Occupancy|DRAM Throughput|Duration|Memory Throughput|Shared Memory Configuration Size|Dynamic Shared|Static Shared|Waves Per SM|Block Limit" $OUT/tc-ncu.txt | head -80
gzip -f $OUT/tc-code.txt $OUT/tc-ncu.txt
