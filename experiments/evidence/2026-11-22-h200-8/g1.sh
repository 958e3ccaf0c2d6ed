#!/bin/bash
# eighth sitting, call 1: what the seventh left unverified on a GPU: the whole suite at HEAD (test_gpu_decode since 319c130, func_attr_once since 34289b6), racecheck of softmax, swiglu, vector_add and the large INIs, synccheck of the GEMM and row INIs
C=$1; export KLAB_COMMIT=$C
t0=$SECONDS; KLAB_COMMIT=$C bash tools/gpu-run.sh build > $OUT/build.txt 2>&1 || { tail -30 $OUT/build.txt; exit 1; }; echo "build $((SECONDS-t0)) s"
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu
nvidia-smi --query-gpu=name,uuid,clocks.max.sm,temperature.gpu --format=csv,noheader
K=build-gpu/klab; R=$OUT/r; mkdir -p $R
t0=$SECONDS; timeout 240 ctest --test-dir build-gpu --output-on-failure -j 4 --timeout 230 > $OUT/ctest.txt 2>&1; echo "ctest exit $? in $((SECONDS-t0)) s"
grep -E "tests passed|Failed|\*\*\*|^not ok" $OUT/ctest.txt | head -30
san() { tool=$1; f=$2; id="$tool-$(basename $(dirname $f))-$(basename $f .ini)"; t1=$SECONDS
  timeout 50 compute-sanitizer --tool $tool --error-exitcode 99 $K --no-isolate --verify-only --config $f --out $R --run-id $id > $OUT/$id.txt 2>&1; rc=$?
  echo "$tool $f: exit $rc in $((SECONDS-t1)) s: $(grep -E '(ERROR|RACECHECK|SYNCCHECK) SUMMARY' $OUT/$id.txt | tail -1) kernels: $(grep -oE 'access at (void )?[A-Za-z_][A-Za-z0-9_]*' $OUT/$id.txt | awk '{print $NF}' | sort -u | tr '\n' ' ')"; }
for f in tests/gpu_ini/softmax.ini tests/gpu_ini/swiglu.ini tests/gpu_ini/vector_add.ini tests/gpu_ini_large/*.ini; do [ -f $f ] && san racecheck $f; done
tar -C $OUT -czf $OUT/g1-runs.tgz r $(cd $OUT && ls racecheck-*.txt 2>/dev/null); rm -rf $R
for f in tests/gpu_ini/matmul_h200.ini tests/gpu_ini/fp8_gemm.ini tests/gpu_ini/fused_gated_mlp.ini tests/gpu_ini/rows_rmsnorm.ini tests/gpu_ini/rmsnorm.ini; do [ -f $f ] && san synccheck $f; done
mkdir -p $R; tar -C $OUT -czf $OUT/g1-sync.tgz $(cd $OUT && ls synccheck-*.txt 2>/dev/null); rm -f $OUT/racecheck-*.txt $OUT/synccheck-*.txt
gzip -f $OUT/ctest.txt
