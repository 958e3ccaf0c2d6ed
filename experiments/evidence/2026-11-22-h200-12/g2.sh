#!/bin/bash
# twelfth sitting, call 2: klab --tune over the row plans at N = 8192, 16384, 32768 (M x N = 2^25), where the sweep reads under 95 % of the copy, to ground the per-shape choice (row_plan_choose)
C=$1
KLAB_COMMIT=$C KLAB_BUDGET_MS=100 KLAB_TARGETS="klab rmsnorm softmax" KLAB_TUNE="experiments/rowsweep_softmax.ini:n8192,n16384,n32768:fp16,fp32 experiments/rowsweep_rmsnorm.ini:n16384,n32768:fp16,fp32 experiments/rowsweep_rmsnorm.ini:n8192:fp16" timeout 560 bash tools/gpu-run.sh rows-tune > $OUT/tune.txt 2>&1; echo "rows-tune exit $?"
grep -E "^== |best|exit" $OUT/tune.txt | tail -40 | cut -c1-200
python3 - <<'P'
import csv,glob,os,collections
for f in sorted(glob.glob(os.environ['OUT']+'/runs/**/*.csv',recursive=True)):
    rows=[r for r in csv.DictReader(open(f)) if r['status']=='passed' and r['frac_limit']]
    g=collections.defaultdict(list)
    for r in rows: g[(r['case'],r['dtype'])].append(r)
    for k,v in g.items():
        v.sort(key=lambda r:-float(r['frac_limit']))
        print(f"{os.path.basename(f)} {k[0]} {k[1]}: {len(v)} rows")
        for r in v[:6]: print(f"   {100*float(r['frac_limit']):6.1f}% {1e3*float(r['median_ms']):8.2f} {r['config']} {r['flags']}")
P
gzip -f $OUT/tune.txt
