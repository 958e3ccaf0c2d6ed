#!/bin/bash
# fourteenth sitting, call 5: persistent gated gate/up (06a81ef): verify (the stream cases, a stack of several gated tiles a CTA, matmul_h200's stream configurations); the A/B (ABAB at llama8b-4l, B = 8, small-16l); test_gpu_decode; memcheck, synccheck, racecheck
C=$1; export KLAB_COMMIT=$C
t0=$SECONDS; KLAB_COMMIT=$C KLAB_TARGETS="klab decode_replay matmul_h200 test_gpu_decode" bash tools/gpu-run.sh build > $OUT/build.txt 2>&1 || { tail -30 $OUT/build.txt; exit 1; }; echo "build $((SECONDS-t0)) s"
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu; rm -f $OUT/log.txt $OUT/results.tgz
nvidia-smi --query-gpu=name,uuid --format=csv,noheader
K=build-gpu/klab; R=$OUT/r; mkdir -p $R $OUT/ini $OUT/iniv $OUT/san
python3 .sit/s14/mkini5.py $OUT/iniv/decode_replay.ini verify
t0=$SECONDS; timeout 60 $K --no-isolate --verify-only --config tests/gpu_ini/decode_replay.ini --case odd-b1-stream,odd-b8-stream --out $R --run-id quick > $OUT/quick.txt 2>&1; echo "quick exit $? in $((SECONDS-t0)) s"; grep -cE " passed" $OUT/quick.txt; grep -E "FAIL|rror|not passed" $OUT/quick.txt | head -5
t0=$SECONDS; timeout 60 $K --no-isolate --verify-only --plugin decode_replay --ini-dir $OUT/iniv --out $R --run-id persist > $OUT/persist.txt 2>&1; echo "persist exit $? in $((SECONDS-t0)) s"; grep -E "^P-|run persist" $OUT/persist.txt | cut -c1-130
t0=$SECONDS; timeout 90 $K --no-isolate --verify-only --config tests/gpu_ini/matmul_h200.ini --out $R --run-id mm > $OUT/mm.txt 2>&1; echo "matmul verify exit $? in $((SECONDS-t0)) s"; grep -E "^run mm" $OUT/mm.txt; grep -E "FAIL|incorrect|not passed" $OUT/mm.txt | head -5
python3 .sit/s14/mkini5.py $OUT/ini/decode_replay.ini
t0=$SECONDS; timeout 170 $K --plugin decode_replay --ini-dir $OUT/ini --out $R --run-id var --timeout 60 > $OUT/var.txt 2>&1; echo "var exit $? in $((SECONDS-t0)) s"
grep -E "^(L|S)" $OUT/var.txt | cut -c1-120
tar -C $OUT -czf $OUT/g5-runs.tgz r ini iniv
t0=$SECONDS; (cd build-gpu && timeout 100 ctest -R 'test_gpu_decode' --output-on-failure > $OUT/ctest.txt 2>&1); echo "ctest exit $? in $((SECONDS-t0)) s"; grep -E "Passed|Failed|FAILED|\[  FAILED|not ok" $OUT/ctest.txt | head -8
san() { local tool=$1 lim=$2 id=san-$1-$3; shift 3
  t0=$SECONDS; timeout $lim compute-sanitizer --tool $tool --error-exitcode 99 --print-limit 20 $K --no-isolate --verify-only --out $R --run-id $id "$@" > $OUT/san/$id.txt 2>&1; rc=$?
  echo "$tool $id $*: exit $rc in $((SECONDS-t0)) s; $(grep -E '(ERROR|RACECHECK|SYNCCHECK) SUMMARY' $OUT/san/$id.txt | tail -1); rows passed: $(grep -c ' passed' $OUT/san/$id.txt)"; }
san memcheck 60 persist --plugin decode_replay --ini-dir $OUT/iniv --dtype fp16
san synccheck 60 persist --plugin decode_replay --ini-dir $OUT/iniv --dtype fp16 --profile graph_pdl
san racecheck 60 persist --plugin decode_replay --ini-dir $OUT/iniv --dtype fp16 --profile eager
san memcheck 40 stream --config tests/gpu_ini/decode_replay.ini --case odd-b1-stream,odd-b8-stream
tar -C $OUT -czf $OUT/g5-san.tgz san; rm -rf $OUT/san
gzip -f $OUT/var.txt $OUT/ctest.txt $OUT/build.txt $OUT/quick.txt $OUT/persist.txt $OUT/mm.txt; rm -rf $R $OUT/ini $OUT/iniv
