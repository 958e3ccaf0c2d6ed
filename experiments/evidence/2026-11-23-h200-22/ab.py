#!/usr/bin/env python3
"""ab.py R PROFILE: each (case, dtype)'s medians (us) over the processes R/ab-<variant>-<rep>, by variant,
and mean(first variant) / mean(each other) (> 1: the other faster). Variants in name order."""
import csv, glob, sys, os, statistics as st
rows, names = {}, set()
for d in glob.glob(sys.argv[1] + "/ab-*"):
    v = os.path.basename(d).split('-')[1]
    names.add(v)
    for f in glob.glob(d + "/*.csv"):
        for r in csv.DictReader(open(f)):
            if r.get('median_ms') and r.get('profile') == sys.argv[2]:
                rows.setdefault((r['case'], r['dtype']), {}).setdefault(v, []).append(float(r['median_ms']) * 1e3)
names = sorted(names)
print(f"medians us by variant ({', '.join(names)}); {names[0]}/other > 1: other faster")
for k, v in sorted(rows.items()):
    base = v.get(names[0], [float('nan')])
    cols = [f"{n} {' '.join(f'{t:8.2f}' for t in v.get(n, []))}" for n in names]
    ratios = [f"{st.mean(base) / st.mean(v[n]):.4f}" for n in names[1:] if v.get(n)]
    print(f"{k[0]:16s} {k[1]:5s} {'  '.join(cols)}  {' '.join(ratios)}")
