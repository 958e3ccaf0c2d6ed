#!/bin/bash
# thirteenth sitting, call 8: the cluster plan's floor (ef9af05): small-16l own plan against the old one forced, ABAB, and dynamic; test_gpu_decode; memcheck, synccheck, racecheck of the cluster cases and of tiny (its own plan now one split)
C=$1; export KLAB_COMMIT=$C
t0=$SECONDS; KLAB_COMMIT=$C KLAB_TARGETS="klab decode_replay test_gpu_decode" bash tools/gpu-run.sh build > $OUT/build.txt 2>&1 || { tail -30 $OUT/build.txt; exit 1; }; echo "build $((SECONDS-t0)) s"
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu; rm -f $OUT/log.txt $OUT/results.tgz
nvidia-smi --query-gpu=name,uuid --format=csv,noheader
K=build-gpu/klab; R=$OUT/r; mkdir -p $R $OUT/ini $OUT/san
python3 .sit/s13/mkini8.py $OUT/ini/decode_replay.ini
t0=$SECONDS; timeout 150 $K --plugin decode_replay --ini-dir $OUT/ini --out $R --run-id var --timeout 60 > $OUT/var.txt 2>&1; echo "var exit $? in $((SECONDS-t0)) s"
grep -E "^S-" $OUT/var.txt | cut -c1-120
tar -C $OUT -czf $OUT/g8-runs.tgz r ini
t0=$SECONDS; (cd build-gpu && timeout 100 ctest -R 'test_gpu_decode' --output-on-failure > $OUT/ctest.txt 2>&1); echo "ctest exit $? in $((SECONDS-t0)) s"; grep -E "Passed|Failed|FAILED|\[  FAILED|not ok" $OUT/ctest.txt | head -8
san() { local tool=$1 f=$2 lim=$3 id=san-$1; shift 3
  t0=$SECONDS; timeout $lim compute-sanitizer --tool $tool --error-exitcode 99 --print-limit 20 $K --no-isolate --verify-only --config $f --out $R --run-id $id "$@" > $OUT/san/$id.txt 2>&1; rc=$?
  echo "$tool $*: exit $rc in $((SECONDS-t0)) s; $(grep -E '(ERROR|RACECHECK|SYNCCHECK) SUMMARY' $OUT/san/$id.txt | tail -1); rows passed: $(grep -c ' passed' $OUT/san/$id.txt)"; }
DS="--case tiny,tiny-dyn,tiny-d128-g4-cluster,tiny-g8-cluster16,tiny-attn-b8-cluster"
san memcheck tests/gpu_ini/decode_replay.ini 60 $DS
san synccheck tests/gpu_ini/decode_replay.ini 60 $DS
san racecheck tests/gpu_ini/decode_replay.ini 60 --case tiny --dtype fp16
tar -C $OUT -czf $OUT/g8-san.tgz san; rm -rf $OUT/san
gzip -f $OUT/var.txt $OUT/ctest.txt $OUT/build.txt; rm -rf $R $OUT/ini
