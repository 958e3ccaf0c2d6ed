#!/bin/bash
# fifteenth sitting, call 4: the decode-size rows that call 3 flagged (late units of a batched process),
# each case in a process of its own, batched, PyTorch's rotated graphs keeping their clones
C=$1; export KLAB_COMMIT=$C
t0=$SECONDS; KLAB_COMMIT=$C KLAB_TARGETS="klab klab_bench rmsnorm softmax swiglu" bash tools/gpu-run.sh build > $OUT/build.txt 2>&1 || { tail -30 $OUT/build.txt; exit 1; }; echo "build $((SECONDS-t0)) s"
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu
nvidia-smi --query-gpu=name,uuid --format=csv,noheader
R=$OUT/r; mkdir -p $R $OUT/logs
T=(env PYTHONUNBUFFERED=1 python3 tools/torch_rows.py --build build-gpu --budget-ms 300)
for pc in "rmsnorm 8x4096" "softmax 8x4096" "swiglu 32x11008" "swiglu packed-1x14336" "swiglu packed-32x11008"; do
  set -- $pc
  t0=$SECONDS; timeout 100 "${T[@]}" --out $R/dec-$1-$2 --mode batched --plugins $1 --cases $2 > $OUT/logs/dec-$1-$2.txt 2>&1; echo "$1 $2 batched exit $? in $((SECONDS-t0)) s"
  grep -E "copies|rror" $OUT/logs/dec-$1-$2.txt | head -4; grep -A80 "PyTorch / klab" $OUT/logs/dec-$1-$2.txt | grep ratio | grep -v "eager\|F\.\|softmax@" | cut -c1-140
  python3 - $R/dec-$1-$2/*.csv <<'PY'
import csv, sys
for f in sys.argv[1:]:
    for r in csv.DictReader(open(f)):
        if r['status'] != 'passed': print('  NOT PASSED', r['case'], r['dtype'], r['profile'], r['status'], r['reason'][:90])
PY
done
tar -C $OUT -czf $OUT/g4-runs.tgz r logs; rm -rf $R $OUT/logs
