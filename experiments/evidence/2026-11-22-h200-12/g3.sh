#!/bin/bash
# twelfth sitting, call 3: the row-length sweeps with the new one-block rule (cfa3748), klab alone then with PyTorch (eager, F.*, torch.compile) in the same rounds; then memcheck and racecheck of the row GPU-test INIs (ring and streaming plans forced)
C=$1
t0=$SECONDS; KLAB_COMMIT=$C KLAB_TARGETS="klab klab_bench rmsnorm softmax" timeout 400 bash tools/gpu-run.sh rows-sweep > $OUT/sweep.txt 2>&1; echo "rows-sweep exit $? in $((SECONDS-t0)) s"
grep -E "^== (exit|summary)|exit [0-9]" $OUT/sweep.txt | tail -8
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu; K=build-gpu/klab; R=$OUT/san; mkdir -p $R
for tool in memcheck racecheck; do for f in rows_rmsnorm softmax; do
  t0=$SECONDS; timeout 75 compute-sanitizer --tool $tool --error-exitcode 99 $K --no-isolate --verify-only --config tests/gpu_ini/$f.ini --out $R --run-id $tool-$f > $OUT/san-$tool-$f.txt 2>&1; rc=$?
  echo "$tool $f: exit $rc in $((SECONDS-t0)) s; $(grep -E '(ERROR|RACECHECK) SUMMARY' $OUT/san-$tool-$f.txt | tail -1); $(grep -cE ' passed' $OUT/san-$tool-$f.txt) passed lines"
  grep -E "^run |not passed|failed" $OUT/san-$tool-$f.txt | tail -2
done; done
tar -C $OUT -czf $OUT/san.tgz san; rm -rf $R; gzip -f $OUT/sweep.txt $OUT/san-*.txt; tar -C $OUT -czf $OUT/sanlogs.tgz $(cd $OUT; ls san-*.txt.gz); rm -f $OUT/san-*.txt.gz
