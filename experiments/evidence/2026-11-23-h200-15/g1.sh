#!/bin/bash
# fifteenth sitting, call 1: the whole-step pass 2 of the 1024 x 8 streaming plan (16-bit rows) verified
# at the forced stream cases and under memcheck, timed beside the own choice and the old cluster plans,
# then torch.compile beside klab's own choice at the long rmsnorm rows (same rounds)
C=$1; export KLAB_COMMIT=$C
t0=$SECONDS; KLAB_COMMIT=$C KLAB_TARGETS="klab rmsnorm softmax klab_bench" bash tools/gpu-run.sh build > $OUT/build.txt 2>&1 || { tail -30 $OUT/build.txt; exit 1; }; echo "build $((SECONDS-t0)) s"
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu
nvidia-smi --query-gpu=name,uuid --format=csv,noheader
K=build-gpu/klab; R=$OUT/r; mkdir -p $R $OUT/ini
SR=stream,residual-stream,stream-cluster2,residual-stream-cluster2,stream-tpr32-ragged,stream-long,stream-1024x8,stream-1024x8-steps,stream-1024x8-cluster2
SS=stream,stream-cluster2,stream-tpr32-ragged,stream-long,stream-1024x8,stream-1024x8-steps,stream-1024x8-cluster2
t0=$SECONDS; timeout 90 $K --verify-only --config tests/gpu_ini/rows_rmsnorm.ini --out $R --run-id vrms --timeout 60 > $OUT/vrms.txt 2>&1; echo "verify rmsnorm (whole INI) exit $? in $((SECONDS-t0)) s"
t0=$SECONDS; timeout 60 $K --verify-only --config tests/gpu_ini/softmax.ini --out $R --run-id vsmx --timeout 60 > $OUT/vsmx.txt 2>&1; echo "verify softmax (whole INI) exit $? in $((SECONDS-t0)) s"
python3 .sit/s15/summ.py $R/vrms/rmsnorm.csv $R/vsmx/softmax.csv | grep -v " ok \| pass " | cut -c1-150 | head -20
grep -c "" $R/vrms/rmsnorm.csv $R/vsmx/softmax.csv
python3 .sit/s15/mkini1.py $OUT/ini
t0=$SECONDS; timeout 60 compute-sanitizer --tool memcheck --error-exitcode 99 $K --no-isolate --verify-only --config tests/gpu_ini/rows_rmsnorm.ini --case $SR --out $R --run-id mrms > $OUT/mrms.txt 2>&1; echo "memcheck rmsnorm stream cases exit $? in $((SECONDS-t0)) s: $(grep 'ERROR SUMMARY' $OUT/mrms.txt)"
t0=$SECONDS; timeout 60 compute-sanitizer --tool memcheck --error-exitcode 99 $K --no-isolate --verify-only --config tests/gpu_ini/softmax.ini --case $SS --out $R --run-id msmx > $OUT/msmx.txt 2>&1; echo "memcheck softmax stream cases exit $? in $((SECONDS-t0)) s: $(grep 'ERROR SUMMARY' $OUT/msmx.txt)"
t0=$SECONDS; timeout 150 $K --config $OUT/ini/s15_1_rmsnorm.ini --out $R --run-id s15-rms --timeout 60 > $OUT/rms.txt 2>&1; echo "rmsnorm exit $? in $((SECONDS-t0)) s"
python3 .sit/s15/summ.py $R/s15-rms/rmsnorm.csv | cut -c1-150
t0=$SECONDS; timeout 100 $K --config $OUT/ini/s15_1_softmax.ini --out $R --run-id s15-smx --timeout 60 > $OUT/smx.txt 2>&1; echo "softmax exit $? in $((SECONDS-t0)) s"
python3 .sit/s15/summ.py $R/s15-smx/softmax.csv | cut -c1-150
tar -C $OUT -czf $OUT/g1-runs.tgz r ini
t0=$SECONDS; timeout 150 env PYTHONUNBUFFERED=1 python3 tools/torch_rows.py --build build-gpu --budget-ms 400 --out $R/torch --ini experiments/rowsweep_rmsnorm.ini --cases n32768,n65536 > $OUT/torch.txt 2>&1; echo "torch_rows exit $? in $((SECONDS-t0)) s"
grep -vE "^\[" $OUT/torch.txt | tail -30
tar -C $OUT -czf $OUT/g1-runs.tgz r ini; tar -C $OUT -czf $OUT/g1-logs.tgz build.txt vrms.txt vsmx.txt mrms.txt msmx.txt rms.txt smx.txt torch.txt; rm -rf $R $OUT/ini $OUT/*.txt
