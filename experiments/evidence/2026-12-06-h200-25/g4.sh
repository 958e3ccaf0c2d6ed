#!/bin/bash
# Written in the twenty-sixth sitting (#22, #26): the sanitizers the records lack at the current code.
# 1. tools/gpu-run.sh sanitize with the row family built: memcheck and racecheck over its 13 INIs (gpu_ini
#    and gpu_ini_large) at the current row code (last run whole at 89feb0f; 3.4 min then).
# 2. synccheck of matmul_h200's wgmma kernels, one case a process (tests/gpu_ini/matmul_h200.ini whole timed
#    out at 50 s in the eighth sitting, at case 9 of 24: no result), until the call's own deadline.
# ~8 min on an H200. From the repository: bash experiments/evidence/2026-12-06-h200-25/g4.sh <commit>
C=$1; export KLAB_COMMIT=$C; T0=$SECONDS
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader
t0=$SECONDS; KLAB_TARGETS="klab klab_bench softmax swiglu reduction rmsnorm rmsnorm_rope" timeout 330 bash tools/gpu-run.sh sanitize > $OUT/sanitize.txt 2>&1
echo "sanitize exit $? in $((SECONDS-t0)) s"; grep -A40 '^== summary' $OUT/sanitize.txt | head -32
mv $OUT/results.tgz $OUT/sanitize-results.tgz 2>/dev/null; mv $OUT/log.txt $OUT/sanitize-log.txt 2>/dev/null
t0=$SECONDS; cmake --build build-gpu -j 16 --target matmul_h200 > $OUT/build-mm.txt 2>&1 || { tail -20 $OUT/build-mm.txt; exit 1; }; echo "build matmul_h200 $((SECONDS-t0)) s"
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu; R=$OUT/r; mkdir -p $R $OUT/sync
for c in cube-128 odd-200 decode-16 skinny-13 skinny-n200 short-k-2048 odd-1000 square-2048; do for d in bf16 fp16; do
  [ $((SECONDS-T0)) -gt 520 ] && { echo "deadline: $c $d and after not run"; break 2; }
  id=sync-$c-$d; t0=$SECONDS
  timeout 75 compute-sanitizer --tool synccheck --error-exitcode 99 --print-limit 20 build-gpu/klab --no-isolate --verify-only \
    --config tests/gpu_ini/matmul_h200.ini --case $c --dtype $d --out $R --run-id $id > $OUT/sync/$id.txt 2>&1; rc=$?
  echo "synccheck $c $d: exit $rc in $((SECONDS-t0)) s; $(grep -E 'ERROR SUMMARY' $OUT/sync/$id.txt | tail -1); rows passed: $(grep -c ' passed' $OUT/sync/$id.txt)"
done; done
tar -C $OUT -czf $OUT/g4-sync.tgz r sync; rm -rf $R $OUT/sync
