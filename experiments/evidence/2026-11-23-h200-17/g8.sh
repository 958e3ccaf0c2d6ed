#!/bin/bash
# seventeenth sitting, call 8 (issue 26): fp8_gemm beside PyTorch (quantise-each-call eager and compiled,
# torch._scaled_mm prequantised) at the five fp8 cases, klab's own choices; not rerun since the sixth sitting
C=$1; export KLAB_COMMIT=$C
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu
nvidia-smi --query-gpu=name,uuid,clocks.max.sm --format=csv,noheader
R=$OUT/r; mkdir -p $R $OUT/logs
t0=$SECONDS; timeout 290 env PYTHONUNBUFFERED=1 python3 tools/torch_rows.py --build build-gpu --out $R/torch-fp8 --plugins fp8_gemm --ini-cases-only --cases 64x7168x4096,4096x4096x4096,4096x14336x4096,16384x4096x4096,8192x8192x8192 --dtypes fp8e4m3 --budget-ms 800 --wall-s 230 > $OUT/logs/torch-fp8.txt 2>&1; echo "torch_rows fp8 exit $? in $((SECONDS-t0)) s"
grep -E "ratio|not run" $OUT/logs/torch-fp8.txt | cut -c1-170
tar -C $OUT -czf $OUT/g8-runs.tgz r logs; rm -rf $R $OUT/logs
