#!/bin/bash
# twentieth sitting, call 2 (issue 22): the tile plan with RMSNorm's gain staged in shifted copies.
# (1) build; (2) tile against its register twin (and cta 128/512 at 65537x17), two processes;
# (3) torch_rows: rmsnorm 65537x17, ragged, 8192x128; softmax 65537x17; (4) test_gpu_rows;
# (5) memcheck and racecheck over the row family's tile cases (rows_rmsnorm.ini, softmax.ini).
C=$1; export KLAB_COMMIT=$C
S=.sit/s20
nvidia-smi --query-gpu=name,uuid --format=csv,noheader
t0=$SECONDS; KLAB_TARGETS="klab klab_bench rmsnorm softmax test_gpu_rows" bash tools/gpu-run.sh build > $OUT/build.txt 2>&1 || { tail -30 $OUT/build.txt; exit 1; }; echo "build $((SECONDS-t0)) s"
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu
K=build-gpu/klab; R=$OUT/r; mkdir -p $R $OUT/logs
t0=$SECONDS
for rep in 0 1; do for p in rmsnorm softmax; do
  timeout 100 $K --config $S/ini/ab_$p.ini --out $R --run-id ab-$p-$rep > $OUT/logs/ab-$p-$rep.txt 2>&1 || echo "ab $p $rep exit $?"
done; done; echo "A/B in $((SECONDS-t0)) s"
python3 $S/summ.py $R
t0=$SECONDS; timeout 120 python3 tools/torch_rows.py --build build-gpu --budget-ms 300 --plugins rmsnorm --cases 65537x17,ragged,8192x128 --out $R/torch-r > $OUT/logs/torch-r.txt 2>&1; echo "torch_rows rmsnorm exit $? in $((SECONDS-t0)) s"
t0=$SECONDS; timeout 60 python3 tools/torch_rows.py --build build-gpu --budget-ms 300 --plugins softmax --cases 65537x17 --out $R/torch-s > $OUT/logs/torch-s.txt 2>&1; echo "torch_rows softmax exit $? in $((SECONDS-t0)) s"
grep -hE "torch.compile|torch.eager|torch.softmax|F.rms" $OUT/logs/torch-r.txt $OUT/logs/torch-s.txt | grep ratio
tar -C $OUT -czf $OUT/g2-runs.tgz r logs
t0=$SECONDS; timeout 200 ctest --test-dir build-gpu -R 'test_gpu_rows' --output-on-failure --timeout 195 > $OUT/logs/ctest.txt 2>&1; echo "ctest exit $? in $((SECONDS-t0)) s"
grep -E "Test +#|tests passed|^not ok|Failed|FAIL|error" $OUT/logs/ctest.txt | head -20
for tool in memcheck racecheck; do
  t0=$SECONDS; timeout 60 compute-sanitizer --tool $tool --error-exitcode 99 $K --no-isolate --verify-only --config tests/gpu_ini/rows_rmsnorm.ini --case 65537x17,3x7,1x1,5x1001,tile-tpr64,tile-fp32 --out $R --run-id san-$tool-r > $OUT/logs/san-$tool-r.txt 2>&1; echo "$tool rmsnorm exit $? in $((SECONDS-t0)) s: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $OUT/logs/san-$tool-r.txt | tail -1)"
  t0=$SECONDS; timeout 60 compute-sanitizer --tool $tool --error-exitcode 99 $K --no-isolate --verify-only --config tests/gpu_ini/softmax.ini --case 65537x17,3x7,1x1,tile-tpr64 --out $R --run-id san-$tool-s > $OUT/logs/san-$tool-s.txt 2>&1; echo "$tool softmax exit $? in $((SECONDS-t0)) s: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $OUT/logs/san-$tool-s.txt | tail -1)"
done
tar -C $OUT -czf $OUT/g2-runs.tgz r logs; rm -rf $R $OUT/logs
