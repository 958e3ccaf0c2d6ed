#!/usr/bin/env python3
"""ab.py R: each (case, dtype)'s fused medians over the processes r/ab-b-<rep> and r/ab-p-<rep>, and
mean(b) / mean(p) (> 1: p faster)."""
import csv, glob, sys, os, statistics as st
rows = {}
for d in glob.glob(sys.argv[1] + "/ab-*"):
    v = os.path.basename(d).split('-')[1]
    for f in glob.glob(d + "/*.csv"):
        for r in csv.DictReader(open(f)):
            if r.get('median_ms') and r.get('profile') == 'fused':
                rows.setdefault((r['case'], r['dtype']), {}).setdefault(v, []).append(float(r['median_ms']) * 1e3)
print("medians us, b then p; b/p > 1: p faster")
for k, v in sorted(rows.items()):
    b, p = v.get('b', [float('nan')]), v.get('p', [float('nan')])
    print(f"{k[0]:22s} {k[1]:5s} b {' '.join(f'{t:7.2f}' for t in b)}  p {' '.join(f'{t:7.2f}' for t in p)}  {st.mean(b) / st.mean(p):.3f}")
