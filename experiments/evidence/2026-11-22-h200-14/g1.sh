#!/bin/bash
# fourteenth sitting, call 1: the QKV projection on the stream (258a02c): a quick verify of the stream cases, the A/B (ABAB) at llama8b-4l, small-16l, llama8b-4l B=8, probed; test_gpu_decode; memcheck, synccheck, racecheck of the stream cases
C=$1; export KLAB_COMMIT=$C
t0=$SECONDS; KLAB_COMMIT=$C KLAB_TARGETS="klab decode_replay test_gpu_decode" bash tools/gpu-run.sh build > $OUT/build.txt 2>&1 || { tail -30 $OUT/build.txt; exit 1; }; echo "build $((SECONDS-t0)) s"
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu; rm -f $OUT/log.txt $OUT/results.tgz
nvidia-smi --query-gpu=name,uuid --format=csv,noheader
K=build-gpu/klab; R=$OUT/r; mkdir -p $R $OUT/ini $OUT/inip $OUT/san
t0=$SECONDS; timeout 60 $K --no-isolate --verify-only --config tests/gpu_ini/decode_replay.ini --case odd-b1-stream,odd-b8-stream --out $R --run-id quick > $OUT/quick.txt 2>&1; echo "quick exit $? in $((SECONDS-t0)) s"; grep -E "passed|FAIL|rror" $OUT/quick.txt | head -20
python3 .sit/s14/mkini.py $OUT/ini/decode_replay.ini
t0=$SECONDS; timeout 200 $K --plugin decode_replay --ini-dir $OUT/ini --out $R --run-id var --timeout 60 > $OUT/var.txt 2>&1; echo "var exit $? in $((SECONDS-t0)) s"
grep -E "^(L|S)" $OUT/var.txt | cut -c1-120
tar -C $OUT -czf $OUT/g1-runs.tgz r ini
python3 .sit/s14/mkini.py $OUT/inip/decode_replay.ini probes
t0=$SECONDS; KLAB_DECODE_PROBES=$R/probes timeout 100 $K --plugin decode_replay --ini-dir $OUT/inip --out $R --run-id probed --timeout 60 > $OUT/probed.txt 2>&1; echo "probed exit $? in $((SECONDS-t0)) s"
python3 tools/decode_probes.py $R/probed --probes $R/probes/decode_replay.probes > $OUT/probed-tables.md 2>&1; grep -A9 "## kernels of" $OUT/probed-tables.md | head -60
gzip -f $R/probes/decode_replay.probes/*.csv 2>/dev/null
tar -C $OUT -czf $OUT/g1-runs.tgz r ini inip
t0=$SECONDS; (cd build-gpu && timeout 110 ctest -R 'test_gpu_decode' --output-on-failure > $OUT/ctest.txt 2>&1); echo "ctest exit $? in $((SECONDS-t0)) s"; grep -E "Passed|Failed|FAILED|\[  FAILED|not ok" $OUT/ctest.txt | head -8
san() { local tool=$1 f=$2 lim=$3 id=san-$1; shift 3
  t0=$SECONDS; timeout $lim compute-sanitizer --tool $tool --error-exitcode 99 --print-limit 20 $K --no-isolate --verify-only --config $f --out $R --run-id $id "$@" > $OUT/san/$id.txt 2>&1; rc=$?
  echo "$tool $*: exit $rc in $((SECONDS-t0)) s; $(grep -E '(ERROR|RACECHECK|SYNCCHECK) SUMMARY' $OUT/san/$id.txt | tail -1); rows passed: $(grep -c ' passed' $OUT/san/$id.txt)"; }
DS="--case odd-b1-stream,odd-b8-stream"
san memcheck tests/gpu_ini/decode_replay.ini 50 $DS
san synccheck tests/gpu_ini/decode_replay.ini 50 $DS
san racecheck tests/gpu_ini/decode_replay.ini 50 --case odd-b1-stream --dtype fp16
tar -C $OUT -czf $OUT/g1-san.tgz san; rm -rf $OUT/san
gzip -f $OUT/var.txt $OUT/ctest.txt $OUT/build.txt $OUT/quick.txt $OUT/probed.txt; rm -rf $R $OUT/ini $OUT/inip
