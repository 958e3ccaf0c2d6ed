#!/bin/bash
# eighteenth sitting, calls 4-5 (issue 22): fp16/fp32 RMSNorm's 4-vector on-chip kernel bounded to two blocks an
# SM and the plans that count on it (row_limits_fit4), old (9a05a03's row kernel, plan and plugin, built in
# a copy of the tree) and new alternating, three processes each: the sweep N = 1024 .. 32768, the model
# shapes 4096x4096, 4096x8192, 16384x8192 (bf16 the control: unchanged), decode 1x4096, 8x4096 batched;
# torch_rows beside the new build; test_gpu_rows; memcheck of the new case
C=$1; O=9a05a03; export KLAB_COMMIT=$C
t0=$SECONDS; KLAB_TARGETS="klab klab_bench rmsnorm test_gpu_rows" bash tools/gpu-run.sh build > $OUT/build.txt 2>&1 || { tail -30 $OUT/build.txt; exit 1; }; echo "build new $((SECONDS-t0)) s"
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu
nvidia-smi --query-gpu=name,uuid,clocks.max.sm --format=csv,noheader
K=build-gpu/klab; R=$OUT/r; mkdir -p $R $OUT/ini $OUT/logs
T=/tmp/oldtree; mkdir -p $T && tar --exclude=./build-gpu --exclude=./.sit --exclude=./.deps -cf - . | tar -C $T -xf - && ln -s $PWD/.deps $T/.deps
cp .sit/s18/old2/common/* $T/plugins/common/; cp .sit/s18/old2/rmsnorm/rmsnorm_plugin.c $T/plugins/rmsnorm/; cp .sit/s18/old2/rmsnorm_rope_reference.c $T/plugins/rmsnorm_rope/
t0=$SECONDS; (cd $T && KLAB_COMMIT=$O KLAB_TARGETS="klab rmsnorm" bash tools/gpu-run.sh build > $OUT/build-old.txt 2>&1) || { tail -30 $OUT/build-old.txt; exit 1; }; echo "build old $((SECONDS-t0)) s"
for f in experiments/rowsweep_rmsnorm ini/rmsnorm; do awk '/^[[:space:]]*budget_ms/ {next} {print} /^\[defaults\]/ {print "budget_ms = 300"}' $f.ini > $OUT/ini/$(basename $f).ini; done
t0=$SECONDS
for rep in 0 1 2; do for side in old new; do
  KK=$K; [ $side = old ] && KK=$T/build-gpu/klab
  timeout 40 $KK --config $OUT/ini/rowsweep_rmsnorm.ini --case n1024,n4096,n8192,n16384,n32768 --out $R --run-id sw-$side-$rep --timeout 30 > $OUT/logs/sw-$side-$rep.txt 2>&1 || echo "sw $side $rep failed"
  timeout 40 $KK --config $OUT/ini/rmsnorm.ini --case 4096x4096,4096x8192,16384x8192 --profile fused --out $R --run-id md-$side-$rep --timeout 30 > $OUT/logs/md-$side-$rep.txt 2>&1 || echo "md $side $rep failed"
  timeout 40 $KK --config .sit/s18/dec.ini --batched --out $R --run-id dc-$side-$rep --timeout 30 > $OUT/logs/dc-$side-$rep.txt 2>&1 || echo "dc $side $rep failed"
done; done; echo "A/B in $((SECONDS-t0)) s"
python3 .sit/s18/ab.py $R
tar -C $OUT -czf $OUT/g4-runs.tgz r ini logs
t0=$SECONDS; timeout 100 python3 tools/torch_rows.py --build build-gpu --budget-ms 300 --ini experiments/rowsweep_rmsnorm.ini --cases n4096,n8192,n16384,n32768 --out $R/torch > $OUT/logs/torch.txt 2>&1; echo "torch_rows sweep exit $? in $((SECONDS-t0)) s"
grep -E "torch.compile" $OUT/logs/torch.txt | tail -8
t0=$SECONDS; timeout 100 python3 tools/torch_rows.py --build build-gpu --budget-ms 300 --plugins rmsnorm --cases 4096x4096,4096x8192,16384x8192 --out $R/torch-md > $OUT/logs/torch-md.txt 2>&1; echo "torch_rows model shapes exit $? in $((SECONDS-t0)) s"
grep -E "torch.compile" $OUT/logs/torch-md.txt | tail -9
t0=$SECONDS; timeout 60 python3 tools/torch_rows.py --build build-gpu --budget-ms 300 --mode batched --plugins rmsnorm --cases 1x4096,8x4096 --out $R/torch-dc > $OUT/logs/torch-dc.txt 2>&1; echo "torch_rows decode exit $? in $((SECONDS-t0)) s"
grep -E "torch.compile" $OUT/logs/torch-dc.txt | tail -6
tar -C $OUT -czf $OUT/g4-runs.tgz r ini logs
t0=$SECONDS; timeout 60 compute-sanitizer --tool memcheck --error-exitcode 99 $K --no-isolate --verify-only --config tests/gpu_ini/rows_rmsnorm.ini --case fit4 --out $R --run-id san-fit4 > $OUT/logs/san-fit4.txt 2>&1; echo "memcheck fit4 exit $? in $((SECONDS-t0)) s: $(grep -E 'ERROR SUMMARY' $OUT/logs/san-fit4.txt | tail -1)"
t0=$SECONDS; timeout 170 ctest --test-dir build-gpu -R 'test_gpu_rows' --output-on-failure --timeout 165 > $OUT/logs/ctest.txt 2>&1; echo "ctest exit $? in $((SECONDS-t0)) s"
grep -E "Test +#|tests passed|^not ok|Failed|FAIL" $OUT/logs/ctest.txt | head -20
tar -C $OUT -czf $OUT/g4-runs.tgz r ini logs; rm -rf $R $OUT/ini $OUT/logs
