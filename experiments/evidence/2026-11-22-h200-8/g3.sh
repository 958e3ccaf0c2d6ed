#!/bin/bash
# eighth sitting, call 3: skinny v3 with the L2 prefetch option: test_gpu_matmul, a plain tune beside cuBLAS and v1, a batched tune, and ncu kernel durations (v1, v3, cuBLAS, klab's copy) at 16 x 4096 x 4096
C=$1; export KLAB_COMMIT=$C
t0=$SECONDS; KLAB_COMMIT=$C KLAB_TARGETS="klab matmul_h200 vector_add test_gpu_matmul" bash tools/gpu-run.sh build > $OUT/build.txt 2>&1 || { tail -30 $OUT/build.txt; exit 1; }; echo "build $((SECONDS-t0)) s"
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu
nvidia-smi --query-gpu=name,uuid --format=csv,noheader
K=build-gpu/klab; R=$OUT/r; mkdir -p $R $OUT/ini
t0=$SECONDS; timeout 100 ctest --test-dir build-gpu -R 'test_gpu_matmul|sass_matmul' --output-on-failure --timeout 95 > $OUT/ctest.txt 2>&1; echo "ctest exit $? in $((SECONDS-t0)) s"
grep -E "Test +#|tests passed|^not ok" $OUT/ctest.txt | head
awk '/^[[:space:]]*budget_ms/ {next} {print} /^\[defaults\]/ {print "budget_ms = 300"}' ini/matmul_h200.ini > $OUT/ini/matmul_h200.ini
t0=$SECONDS; timeout 200 $K --tune --ini-dir $OUT/ini --out $R --tune-cache $R/tune-cache.ini --timeout 195 --run-id t-v3p --plugin matmul_h200 --case decode-16,decode-1,decode-16-down --profile cublas,skinny > $OUT/tune-v3p.txt 2>&1; echo "tune exit $? in $((SECONDS-t0)) s"
tar -C $OUT -czf $OUT/g3-runs.tgz r
t0=$SECONDS; timeout 100 $K --tune --batched --ini-dir $OUT/ini --out $R --tune-cache $R/tune-cache-b.ini --timeout 95 --run-id t-v3b --plugin matmul_h200 --case decode-16,decode-1 --dtype fp16 --profile cublas,skinny > $OUT/tune-v3b.txt 2>&1; echo "batched tune exit $? in $((SECONDS-t0)) s"
tar -C $OUT -czf $OUT/g3-runs.tgz r
M="--metrics gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,sm__warps_active.avg.pct_of_peak_sustained_active"
t0=$SECONDS; timeout 100 ncu $M -k regex:"stream_kernel|skinny_kernel|nvjet|gemv|gemm" $K --no-isolate --tune --verify-only --plugin matmul_h200 --case decode-16 --dtype bf16 --profile cublas,skinny --out /tmp/r --run-id ncu-sk > $OUT/ncu-sk.txt 2>&1; echo "ncu skinny exit $? in $((SECONDS-t0)) s"
t0=$SECONDS; timeout 60 ncu $M $K --no-isolate --verify-only --plugin vector_add --case copy-2^24 --dtype fp16 --profile vectorized --out /tmp/r --run-id ncu-copy > $OUT/ncu-copy.txt 2>&1; echo "ncu copy exit $? in $((SECONDS-t0)) s"
python3 - $OUT/ncu-sk.txt $OUT/ncu-copy.txt <<'PY'
import re,sys
for f in sys.argv[1:]:
    name=None; m={}
    for line in open(f):
        h=re.match(r'^  (\S.*?)\s+\(\d+, \d+, \d+\)x\(\d+, \d+, \d+\)',line)
        if h:
            if name: print(name[:70], m)
            name=h.group(1); m={}
            continue
        x=re.match(r'^\s+(gpu__time_duration.sum|dram__throughput\S+|dram__bytes_read.sum|sm__warps_active\S+)\s+(\S+)\s+([\d.,]+)',line)
        if x: m[x.group(1).split('.')[0][:12]]=x.group(3)+x.group(2)
    if name: print(name[:70], m)
PY
gzip -f $OUT/ctest.txt $OUT/tune-v3p.txt $OUT/tune-v3b.txt $OUT/ncu-sk.txt; rm -rf $R $OUT/ini
