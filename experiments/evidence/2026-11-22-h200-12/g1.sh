#!/bin/bash
# twelfth sitting, call 1: the streaming plans with pass 2 backwards (the last step from registers) verified at the forced stream cases, then timed beside the own choice at the long rows (no cross-block wait: one block a row, the second read from L2), and candidate plans at N = 16384 / 32768 fp16
C=$1; export KLAB_COMMIT=$C
t0=$SECONDS; KLAB_COMMIT=$C KLAB_TARGETS="klab rmsnorm softmax" bash tools/gpu-run.sh build > $OUT/build.txt 2>&1 || { tail -30 $OUT/build.txt; exit 1; }; echo "build $((SECONDS-t0)) s"
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu; rm -f $OUT/log.txt $OUT/results.tgz
nvidia-smi --query-gpu=name,uuid --format=csv,noheader
K=build-gpu/klab; R=$OUT/r; mkdir -p $R $OUT/ini
t0=$SECONDS; timeout 90 $K --verify-only --config tests/gpu_ini/rows_rmsnorm.ini --case stream,residual-stream,stream-cluster2,residual-stream-cluster2,stream-tpr32-ragged,stream-long --out $R --run-id vrms --timeout 60 > $OUT/vrms.txt 2>&1; echo "verify rmsnorm exit $? in $((SECONDS-t0)) s"
t0=$SECONDS; timeout 60 $K --verify-only --config tests/gpu_ini/softmax.ini --case stream,stream-cluster2,stream-tpr32-ragged,stream-long --out $R --run-id vsmx --timeout 60 > $OUT/vsmx.txt 2>&1; echo "verify softmax exit $? in $((SECONDS-t0)) s"
python3 .sit/s12/summ.py $R/vrms/rmsnorm.csv $R/vsmx/softmax.csv | cut -c1-150
python3 .sit/s12/mkini.py $OUT/ini
t0=$SECONDS; timeout 200 $K --config $OUT/ini/s12_rmsnorm.ini --out $R --run-id s12-rms --timeout 60 > $OUT/rms.txt 2>&1; echo "rmsnorm exit $? in $((SECONDS-t0)) s"
python3 .sit/s12/summ.py $R/s12-rms/rmsnorm.csv | cut -c1-150
tar -C $OUT -czf $OUT/g1-runs.tgz r ini
t0=$SECONDS; timeout 200 $K --config $OUT/ini/s12_softmax.ini --out $R --run-id s12-smx --timeout 60 > $OUT/smx.txt 2>&1; echo "softmax exit $? in $((SECONDS-t0)) s"
python3 .sit/s12/summ.py $R/s12-smx/softmax.csv | cut -c1-150
tar -C $OUT -czf $OUT/g1-runs.tgz r ini; gzip -f $OUT/build.txt $OUT/vrms.txt $OUT/vsmx.txt $OUT/rms.txt $OUT/smx.txt; rm -rf $R $OUT/ini
