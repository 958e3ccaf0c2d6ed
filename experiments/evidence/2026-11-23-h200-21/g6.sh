#!/bin/bash
# 21st sitting call 6 (#22): the landed code (9c3e398): test_gpu_rows, then rmsnorm's INI with PyTorch in
# the same rounds (plain).
C=$1; export KLAB_COMMIT=$C
nvidia-smi --query-gpu=name,uuid --format=csv,noheader
t0=$SECONDS; KLAB_TARGETS="klab klab_bench rmsnorm softmax rmsnorm_rope test_gpu_rows" bash tools/gpu-run.sh build > $OUT/build.txt 2>&1 || { tail -30 $OUT/build.txt; exit 1; }; echo "build $((SECONDS-t0)) s"
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu
R=$OUT/r; mkdir -p $R $OUT/logs
t0=$SECONDS; timeout 200 ctest --test-dir build-gpu -R 'test_gpu_rows' --output-on-failure --timeout 195 > $OUT/logs/ctest.txt 2>&1; echo "ctest exit $? in $((SECONDS-t0)) s"; grep -E "Passed|Failed|tests passed" $OUT/logs/ctest.txt | tail -2
t0=$SECONDS; timeout 170 python3 tools/torch_rows.py --build build-gpu --budget-ms 300 --plugins rmsnorm --out $R/torch-r > $OUT/logs/torch-r.txt 2>&1; echo "torch_rows rmsnorm exit $? in $((SECONDS-t0)) s"
grep -E "torch.compile |flagged" $OUT/logs/torch-r.txt
tar -C $OUT -czf $OUT/g6-runs.tgz r logs; rm -rf $R $OUT/logs
