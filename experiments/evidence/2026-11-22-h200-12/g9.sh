#!/bin/bash
# twelfth sitting, call 9: the Triton-shaped streaming plan with its loads all in flight (all_in_flight), streaming plan (1024 x 8, a 128 KiB step at once, L1 hints) verified at the forced stream cases and under memcheck, then timed beside the own choice at the long rows
C=$1; export KLAB_COMMIT=$C
t0=$SECONDS; KLAB_COMMIT=$C KLAB_TARGETS="klab rmsnorm softmax" bash tools/gpu-run.sh build > $OUT/build.txt 2>&1 || { tail -30 $OUT/build.txt; exit 1; }; echo "build $((SECONDS-t0)) s"
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu; rm -f $OUT/log.txt $OUT/results.tgz
nvidia-smi --query-gpu=name,uuid --format=csv,noheader
K=build-gpu/klab; R=$OUT/r; mkdir -p $R $OUT/ini
t0=$SECONDS; timeout 90 $K --verify-only --config tests/gpu_ini/rows_rmsnorm.ini --case stream,residual-stream,stream-cluster2,residual-stream-cluster2,stream-tpr32-ragged,stream-long,stream-1024x8,stream-1024x8-cluster2 --out $R --run-id vrms --timeout 60 > $OUT/vrms.txt 2>&1; echo "verify rmsnorm exit $? in $((SECONDS-t0)) s"
t0=$SECONDS; timeout 60 $K --verify-only --config tests/gpu_ini/softmax.ini --case stream,stream-cluster2,stream-tpr32-ragged,stream-long,stream-1024x8,stream-1024x8-cluster2 --out $R --run-id vsmx --timeout 60 > $OUT/vsmx.txt 2>&1; echo "verify softmax exit $? in $((SECONDS-t0)) s"
python3 .sit/s12/summ.py $R/vrms/rmsnorm.csv $R/vsmx/softmax.csv | cut -c1-150
python3 .sit/s12/mkini8.py $OUT/ini
t0=$SECONDS; timeout 60 compute-sanitizer --tool memcheck --error-exitcode 99 $K --no-isolate --verify-only --config tests/gpu_ini/rows_rmsnorm.ini --case stream,residual-stream,stream-cluster2,residual-stream-cluster2,stream-tpr32-ragged,stream-long,stream-1024x8,stream-1024x8-cluster2 --out $R --run-id mrms > $OUT/mrms.txt 2>&1; echo "memcheck rmsnorm stream cases exit $? in $((SECONDS-t0)) s: $(grep 'ERROR SUMMARY' $OUT/mrms.txt)"
t0=$SECONDS; timeout 60 compute-sanitizer --tool memcheck --error-exitcode 99 $K --no-isolate --verify-only --config tests/gpu_ini/softmax.ini --case stream,stream-cluster2,stream-tpr32-ragged,stream-long,stream-1024x8,stream-1024x8-cluster2 --out $R --run-id msmx > $OUT/msmx.txt 2>&1; echo "memcheck softmax stream cases exit $? in $((SECONDS-t0)) s: $(grep 'ERROR SUMMARY' $OUT/msmx.txt)"
t0=$SECONDS; timeout 200 $K --config $OUT/ini/s12_8_rmsnorm.ini --out $R --run-id s12-rms --timeout 60 > $OUT/rms.txt 2>&1; echo "rmsnorm exit $? in $((SECONDS-t0)) s"
python3 .sit/s12/summ.py $R/s12-rms/rmsnorm.csv | cut -c1-150
tar -C $OUT -czf $OUT/g9-runs.tgz r ini
t0=$SECONDS; timeout 200 $K --config $OUT/ini/s12_8_softmax.ini --out $R --run-id s12-smx --timeout 60 > $OUT/smx.txt 2>&1; echo "softmax exit $? in $((SECONDS-t0)) s"
python3 .sit/s12/summ.py $R/s12-smx/softmax.csv | cut -c1-150
tar -C $OUT -czf $OUT/g9-runs.tgz r ini; tar -C $OUT -czf $OUT/g9-logs.tgz build.txt vrms.txt vsmx.txt mrms.txt msmx.txt rms.txt smx.txt; rm -rf $R $OUT/ini $OUT/*.txt
