#!/bin/bash
# twelfth sitting, call 10: the row-length sweeps at the final row code (fp32 rows of 64-128 KiB on the 1024 x 8 streaming plan), klab alone then with PyTorch in the same rounds
C=$1
t0=$SECONDS; KLAB_COMMIT=$C KLAB_TARGETS="klab klab_bench rmsnorm softmax" timeout 400 bash tools/gpu-run.sh rows-sweep > $OUT/sweep.txt 2>&1; echo "rows-sweep exit $? in $((SECONDS-t0)) s"
grep -E "^== (exit|summary)|exit [0-9]" $OUT/sweep.txt | tail -8
for tool in memcheck racecheck; do for f in rows_rmsnorm softmax; do
  t0=$SECONDS; timeout 70 compute-sanitizer --tool $tool --error-exitcode 99 $K --no-isolate --verify-only --config tests/gpu_ini/$f.ini --out $R --run-id $tool-$f > $OUT/san-$tool-$f.txt 2>&1; rc=$?
  echo "$tool $f: exit $rc in $((SECONDS-t0)) s; $(grep -E '(ERROR|RACECHECK) SUMMARY' $OUT/san-$tool-$f.txt | tail -1); $(grep -E '^run ' $OUT/san-$tool-$f.txt | tail -1)"
done; done
tar -C $OUT -czf $OUT/san.tgz san; rm -rf $R; gzip -f $OUT/sweep.txt; tar -C $OUT -czf $OUT/sanlogs.tgz $(cd $OUT; ls san-*.txt); rm -f $OUT/san-*.txt
