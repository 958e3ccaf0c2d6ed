#!/bin/bash
# fifteenth sitting, call 3: torch_rows' rotated PyTorch graphs keeping their clones (graphed keeps fn):
# the batched units that died making their copies (softmax 4096x1024, rmsnorm_rope 1x4096), the seed's
# softmax 4096x1024 plain and batched, the decode-size rows batched; racecheck of the whole-step pass 2
C=$1; export KLAB_COMMIT=$C
t0=$SECONDS; KLAB_COMMIT=$C KLAB_TARGETS="klab klab_bench rmsnorm softmax swiglu rmsnorm_rope" bash tools/gpu-run.sh build > $OUT/build.txt 2>&1 || { tail -30 $OUT/build.txt; exit 1; }; echo "build $((SECONDS-t0)) s"
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu
nvidia-smi --query-gpu=name,uuid --format=csv,noheader
K=build-gpu/klab; R=$OUT/r; mkdir -p $R
T=(env PYTHONUNBUFFERED=1 python3 tools/torch_rows.py --build build-gpu --budget-ms 300)
for m in batched plain; do
  t0=$SECONDS; timeout 150 "${T[@]}" --out $R/seed-$m --mode $m --plugins softmax --ini-cases-only --cases 4096x1024 > $OUT/seed-$m.txt 2>&1; echo "seed softmax 4096x1024 $m exit $? in $((SECONDS-t0)) s"
  grep -E "copies|error|Error|rror:" $OUT/seed-$m.txt | head -5; grep -A60 "PyTorch / klab" $OUT/seed-$m.txt | grep ratio | cut -c1-140
done
tar -C $OUT -czf $OUT/g3-runs.tgz r
for pc in "rmsnorm_rope 1x4096" "rmsnorm 1x4096,8x4096" "softmax 1x4096,8x4096" "swiglu 1x14336,32x11008,packed-1x14336,packed-32x11008"; do
  set -- $pc
  t0=$SECONDS; timeout 120 "${T[@]}" --out $R/dec-$1 --mode batched --plugins $1 --cases $2 > $OUT/dec-$1.txt 2>&1; echo "decode-size $1 batched exit $? in $((SECONDS-t0)) s"
  grep -E "copies|rror" $OUT/dec-$1.txt | head -4; grep -A80 "PyTorch / klab" $OUT/dec-$1.txt | grep ratio | grep -v "eager\|F\." | cut -c1-140
done
tar -C $OUT -czf $OUT/g3-runs.tgz r
SR=stream,stream-long,stream-1024x8,stream-1024x8-steps,stream-1024x8-cluster2
t0=$SECONDS; timeout 90 compute-sanitizer --tool racecheck --error-exitcode 99 $K --no-isolate --verify-only --config tests/gpu_ini/rows_rmsnorm.ini --case $SR --out $R --run-id rrms > $OUT/rrms.txt 2>&1; echo "racecheck rmsnorm stream cases exit $? in $((SECONDS-t0)) s: $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' $OUT/rrms.txt)"
t0=$SECONDS; timeout 90 compute-sanitizer --tool racecheck --error-exitcode 99 $K --no-isolate --verify-only --config tests/gpu_ini/softmax.ini --case $SR --out $R --run-id rsmx > $OUT/rsmx.txt 2>&1; echo "racecheck softmax stream cases exit $? in $((SECONDS-t0)) s: $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' $OUT/rsmx.txt)"
tar -C $OUT -czf $OUT/g3-runs.tgz r; tar -C $OUT -czf $OUT/g3-logs.tgz *.txt; rm -rf $R $OUT/*.txt
