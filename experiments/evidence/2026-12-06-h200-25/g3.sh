#!/bin/bash
# Written in the twenty-sixth sitting (#22): the row family's figures not yet measured at the current row
# code (d4fd1f3 and after): the row-length sweeps (klab's own, then PyTorch in the same rounds), the
# decode-size rows batched against PyTorch's CUDA graphs, the seed's softmax 4096x1024 plain and batched,
# and the cases whose newest figures are misses (RMSNorm ragged 1024x4093, swiglu 4096x14336, RMSNorm+RoPE
# 8x2048x4096, fp32 sum 2^28), plain. ~7.5 min on an H200 by tools/gpu-run.sh's times (budget 500 ms a case).
# From the repository: bash experiments/evidence/2026-12-06-h200-25/g3.sh <commit>   (name kind nvidia-h200,
# carry .deps). Each tools/gpu-run.sh call leaves its own results.tgz / log.txt, renamed here.
C=$1; export KLAB_COMMIT=$C
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader
export KLAB_TARGETS="klab klab_bench softmax swiglu reduction rmsnorm rmsnorm_rope"
step() { local name=$1 lim=$2; shift 2; local t0=$SECONDS
  timeout $lim "$@" > $OUT/$name.txt 2>&1; echo "$name exit $? in $((SECONDS-t0)) s"
  [ -f $OUT/results.tgz ] && mv $OUT/results.tgz $OUT/$name-results.tgz; [ -f $OUT/log.txt ] && mv $OUT/log.txt $OUT/$name-log.txt
  grep -A40 '^== summary' $OUT/$name.txt | head -30; }
step build 200 bash tools/gpu-run.sh build
step sweep 330 bash tools/gpu-run.sh rows-sweep
step decode 120 bash tools/gpu-run.sh rows-decode
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu; R=$OUT/r; mkdir -p $R
TR=(env PYTHONUNBUFFERED=1 python3 tools/torch_rows.py --build build-gpu --budget-ms 500)
t0=$SECONDS; timeout 90 "${TR[@]}" --plugins softmax --cases 4096x1024 --out $R/seed-plain > $OUT/seed-plain.txt 2>&1; echo "seed plain exit $? in $((SECONDS-t0)) s"
t0=$SECONDS; timeout 90 "${TR[@]}" --mode batched --plugins softmax --cases 4096x1024 --out $R/seed-batched > $OUT/seed-batched.txt 2>&1; echo "seed batched exit $? in $((SECONDS-t0)) s"
tar -C $OUT -czf $OUT/g3-runs.tgz r
t0=$SECONDS; timeout 120 "${TR[@]}" --plugins rmsnorm,swiglu,rmsnorm_rope,reduction --ini-cases-only --cases ragged,4096x14336,8x2048x4096,sum-2^28 --out $R/misses > $OUT/misses.txt 2>&1; echo "misses exit $? in $((SECONDS-t0)) s"
tar -C $OUT -czf $OUT/g3-runs.tgz r; rm -rf $R
grep -hE "ratio|torch.compile" $OUT/seed-*.txt $OUT/misses.txt | head -60
