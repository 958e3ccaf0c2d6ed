#!/bin/bash
# fifteenth sitting, call 5: RMSNorm ragged 1024x4093 (fp16, bf16 6-8 % behind torch.compile in rows-3):
# klab --tune over the fused profile's space beside its own choice, then torch_rows plain at the own choice
C=$1; export KLAB_COMMIT=$C
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu
t0=$SECONDS; KLAB_COMMIT=$C KLAB_TARGETS="klab klab_bench rmsnorm" bash tools/gpu-run.sh build > $OUT/build.txt 2>&1 || { tail -30 $OUT/build.txt; exit 1; }; echo "build $((SECONDS-t0)) s"
nvidia-smi --query-gpu=name,uuid --format=csv,noheader
K=build-gpu/klab; R=$OUT/r; mkdir -p $R $OUT/logs
t0=$SECONDS; timeout 200 $K --tune --config ini/rmsnorm.ini --case ragged --dtype fp16,bf16 --profile fused --out $R --run-id tune-ragged --tune-cache $OUT/tune-cache.ini > $OUT/logs/tune.txt 2>&1; echo "tune exit $? in $((SECONDS-t0)) s"
python3 .sit/s15/summ.py $R/tune-ragged/rmsnorm.csv | sort -k5 -n -t' ' | awk '{print}' | sort -t'|' -k1 | head -0
python3 - $R/tune-ragged/rmsnorm.csv <<'PY'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r['median_ms']]
for d in ('fp16', 'bf16'):
    rs = sorted((r for r in rows if r['dtype'] == d), key=lambda r: float(r['median_ms']))
    for r in rs[:6] + [r for r in rs if 'own' in r['flags'] or 'chosen' in r['flags']]:
        print(d, f"{float(r['median_ms'])*1e3:8.2f} [{float(r['median_lo'])*1e3:.2f}-{float(r['median_hi'])*1e3:.2f}]", f"{100*float(r['frac_limit'] or 0):5.1f}%", r['config'], r['flags'], r['status'])
PY
t0=$SECONDS; timeout 100 env PYTHONUNBUFFERED=1 python3 tools/torch_rows.py --build build-gpu --budget-ms 400 --out $R/torch --plugins rmsnorm --ini-cases-only --cases ragged > $OUT/logs/torch.txt 2>&1; echo "torch_rows exit $? in $((SECONDS-t0)) s"
grep -A20 "PyTorch / klab" $OUT/logs/torch.txt | grep ratio | cut -c1-140
tar -C $OUT -czf $OUT/g5-runs.tgz r logs tune-cache.ini; rm -rf $R $OUT/logs
