#!/bin/bash
# seventh sitting, call 4: the row-length sweeps with PyTorch in the same rounds, the register plans the own choice (issue 22)
C=$1; export KLAB_COMMIT=$C
t0=$SECONDS; KLAB_COMMIT=$C bash tools/gpu-run.sh build > $OUT/build.txt 2>&1 || { tail -30 $OUT/build.txt; exit 1; }; echo "build $((SECONDS-t0)) s"
nvidia-smi --query-gpu=name,uuid,clocks.max.sm,temperature.gpu --format=csv,noheader
rm -f $OUT/log.txt $OUT/results.tgz
t0=$SECONDS; KLAB_BUDGET_MS=300 timeout 420 bash tools/gpu-run.sh rows-sweep > $OUT/rows-sweep.txt 2>&1; echo "rows-sweep exit $? in $((SECONDS-t0)) s"
sed -n '/^== summary/,$p' $OUT/rows-sweep.txt | grep -E "ratio|csv|flagged" | head -90
mv $OUT/results.tgz $OUT/rows-sweep.tgz 2>/dev/null; gzip -f $OUT/log.txt 2>/dev/null
