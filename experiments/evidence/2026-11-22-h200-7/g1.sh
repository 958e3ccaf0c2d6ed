#!/bin/bash
# seventh sitting, call 1: everything changed since the last GPU run: the whole suite with the GPU tests, then the sanitizers over every GPU-test INI
C=$1; export KLAB_COMMIT=$C
t0=$SECONDS; KLAB_COMMIT=$C bash tools/gpu-run.sh build > $OUT/build.txt 2>&1 || { tail -30 $OUT/build.txt; exit 1; }; echo "build $((SECONDS-t0)) s"
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu
nvidia-smi --query-gpu=name,uuid,clocks.max.sm,temperature.gpu --format=csv,noheader
t0=$SECONDS; timeout 230 ctest --test-dir build-gpu --output-on-failure -j 4 --timeout 220 > $OUT/ctest.txt 2>&1; echo "ctest exit $? in $((SECONDS-t0)) s"
grep -E "tests passed|Failed|\*\*\*|^not ok" $OUT/ctest.txt | head -30
rm -f $OUT/log.txt $OUT/results.tgz
t0=$SECONDS; timeout 330 bash tools/gpu-run.sh sanitize > $OUT/sanitize.txt 2>&1; echo "sanitize exit $? in $((SECONDS-t0)) s"
sed -n '/^== summary/,$p' $OUT/sanitize.txt | head -80
mv $OUT/results.tgz $OUT/sanitize.tgz 2>/dev/null; gzip -f $OUT/log.txt 2>/dev/null
