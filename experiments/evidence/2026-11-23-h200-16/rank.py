#!/usr/bin/env python3
"""Rank a tune's rows per case: cuBLAS, the own choice, and the 8 fastest (median us [lo-hi], speedup [lo-hi], clock)."""
import csv, re, sys
rows = list(csv.DictReader(open(sys.argv[1])))
for case in dict.fromkeys(r['case'] for r in rows):
    rs = sorted((r for r in rows if r['case'] == case and r['median_ms']), key=lambda r: float(r['median_ms']))
    print(case)
    for k, r in enumerate(rs):
        c = re.sub(r',check=.*', '', r['config'].replace('stages=4,consumers=2,', ''))
        if k < 8 or r['profile'] == 'cublas' or 'own-choice' in r['flags']:
            f = lambda x: float(r[x]) * 1e3
            print(f"  {k+1:2d} {f('median_ms'):8.2f} [{f('median_lo'):.2f}-{f('median_hi'):.2f}] n={r['reps']:>3s} "
                  f"sp={float(r['speedup']):.4f} [{float(r['speedup_lo']):.4f}-{float(r['speedup_hi']):.4f}] "
                  f"{r['sm_mhz'][:6]} {r['profile'] if r['profile'] == 'cublas' else c[:110]} {r['flags']}")
