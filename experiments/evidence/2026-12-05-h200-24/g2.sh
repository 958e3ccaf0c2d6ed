#!/bin/bash
# Written in the twenty-fifth sitting (no device lent), unrun: #28's cluster pushes as float4 (vec-push.patch,
# decode_replay 1.10.0: a quarter of the remote o stores and one float2 (m, l) store before the release
# arrival, where a rank's slice is a multiple of 4) against 1.8.0 (the tree as committed, b). Verify the
# cluster cases of c, BCBC at llama8b-4l (fixed and dynamic), small-16l, attn-only, attn-only kv 512
# (graph_pdl, fp16, alternating processes, the twenty-second sitting's INI), PyTorch's decode against b (not
# rerun on an H200 since 1.7.0), test_gpu_decode and memcheck / synccheck / racecheck of c's cluster cases.
# ~7 min on an H100 (g1.sh's times). From the repository: bash experiments/evidence/2026-12-05-h200-24/g2.sh <commit>
C=$1; export KLAB_COMMIT=$C
S=experiments/evidence/2026-12-05-h200-24; S22=experiments/evidence/2026-11-23-h200-22
nvidia-smi --query-gpu=name,uuid --format=csv,noheader
T=/tmp/tree-c; rm -rf $T; mkdir -p $T && tar --exclude=./build-gpu --exclude=./.sit --exclude=./.deps -cf - . | tar -C $T -xf - && ln -s $PWD/.deps $T/.deps
patch -s -p1 -d $T < $S/vec-push.patch || exit 1
t0=$SECONDS; KLAB_TARGETS="klab decode_replay" bash tools/gpu-run.sh build > $OUT/build-b.txt 2>&1 || { tail -30 $OUT/build-b.txt; exit 1; }; echo "build b $((SECONDS-t0)) s"
t0=$SECONDS; (cd $T && KLAB_TARGETS="klab decode_replay test_gpu_decode" bash tools/gpu-run.sh build > $OUT/build.txt 2>&1) || { tail -30 $OUT/build.txt; exit 1; }; echo "build c $((SECONDS-t0)) s"
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu; rm -f $OUT/log.txt $OUT/results.tgz
KB=$PWD/build-gpu/klab; K=$T/build-gpu/klab; R=$OUT/r; mkdir -p $R $OUT/logs $OUT/san
CL="--case tiny-d128-g4-cluster,tiny-g8-cluster16,tiny-attn-b8-cluster"
t0=$SECONDS; timeout 60 $K --no-isolate --verify-only --config tests/gpu_ini/decode_replay.ini $CL --out $R --run-id quick > $OUT/logs/quick.txt 2>&1; echo "quick exit $? in $((SECONDS-t0)) s"; grep -E "^run quick" $OUT/logs/quick.txt
python3 $S22/mkini.py $OUT/ab.ini call2
for rep in 0 1; do for v in b c; do
  KK=$K; [ $v = b ] && KK=$KB
  t0=$SECONDS; timeout 80 $KK --config $OUT/ab.ini --out $R --run-id ab-$v-$rep --timeout 70 > $OUT/logs/ab-$v-$rep.txt 2>&1; echo "ab $v $rep exit $? in $((SECONDS-t0)) s"
done; done
python3 $S22/ab.py $R graph_pdl
tar -C $OUT -czf $OUT/g2-runs.tgz r logs ab.ini
t0=$SECONDS; timeout 100 env PYTHONUNBUFFERED=1 python3 tools/torch_decode.py --build build-gpu --out $R/torch-decode --run-id torch-decode --cases llama8b-4l,small-16l,attn-only --dtypes fp16 > $OUT/logs/torch-decode.txt 2>&1; echo "torch_decode exit $? in $((SECONDS-t0)) s"; tail -5 $OUT/logs/torch-decode.txt
python3 tools/decode_probes.py $R/ab-b-1 $R/torch-decode --pairs torch_cudagraph/graph_pdl 2>&1 | grep -A7 '## ratios' > $OUT/ratios.md; cat $OUT/ratios.md
tar -C $OUT -czf $OUT/g2-runs.tgz r logs ab.ini
t0=$SECONDS; (cd $T/build-gpu && timeout 90 ctest -R 'test_gpu_decode' --output-on-failure > $OUT/logs/ctest.txt 2>&1); echo "ctest exit $? in $((SECONDS-t0)) s"; grep -E "tests passed|Failed|not ok" $OUT/logs/ctest.txt | head -8
san() { local tool=$1 lim=$2 id=san-$1; shift 2
  t0=$SECONDS; timeout $lim compute-sanitizer --tool $tool --error-exitcode 99 --print-limit 20 $K --no-isolate --verify-only --config tests/gpu_ini/decode_replay.ini --out $R --run-id $id "$@" > $OUT/san/$id.txt 2>&1; rc=$?
  echo "$tool $*: exit $rc in $((SECONDS-t0)) s; $(grep -E '(ERROR|RACECHECK|SYNCCHECK) SUMMARY' $OUT/san/$id.txt | tail -1); rows passed: $(grep -c ' passed' $OUT/san/$id.txt)"; }
san memcheck 50 $CL
san synccheck 50 $CL
san racecheck 40 --case tiny-g8-cluster16 --dtype fp16
tar -C $OUT -czf $OUT/g2-runs.tgz r logs san ab.ini; rm -rf $R $OUT/logs $OUT/san
