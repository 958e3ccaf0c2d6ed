#!/bin/bash
# twelfth sitting, call 11: memcheck and racecheck of tests/gpu_ini/rows_rmsnorm.ini and softmax.ini at the final row code (the 1024 x 8 streaming cases included); call 10's sanitizer half lost its klab path
C=$1
KLAB_COMMIT=$C KLAB_TARGETS="klab rmsnorm softmax" bash tools/gpu-run.sh build > $OUT/build.txt 2>&1 || { tail -30 $OUT/build.txt; exit 1; }
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu; rm -f $OUT/log.txt $OUT/results.tgz; K=build-gpu/klab; R=$OUT/san; mkdir -p $R
nvidia-smi --query-gpu=name,uuid --format=csv,noheader
for tool in memcheck racecheck; do for f in rows_rmsnorm softmax; do
  t0=$SECONDS; timeout 80 compute-sanitizer --tool $tool --error-exitcode 99 $K --no-isolate --verify-only --config tests/gpu_ini/$f.ini --out $R --run-id $tool-$f > $OUT/san-$tool-$f.txt 2>&1; rc=$?
  echo "$tool $f: exit $rc in $((SECONDS-t0)) s; $(grep -E '(ERROR|RACECHECK) SUMMARY' $OUT/san-$tool-$f.txt | tail -1); $(grep -E '^run ' $OUT/san-$tool-$f.txt | tail -1)"
done; done
tar -C $OUT -czf $OUT/san.tgz san; rm -rf $R; tar -C $OUT -czf $OUT/sanlogs.tgz $(cd $OUT; ls san-*.txt) build.txt; rm -f $OUT/*.txt
