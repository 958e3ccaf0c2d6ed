#!/usr/bin/env python3
"""ab.py R: old and new processes' medians per (plugin, case, dtype), and the mean speed new / old."""
import csv, sys, os, glob, re, statistics as st
R = sys.argv[1]; rows = {}
for d in sorted(glob.glob(f"{R}/*-old-*") + glob.glob(f"{R}/*-new-*")):
    m = re.match(r"(\w+)-(old|new)-(\d+)", os.path.basename(d))
    if not m: continue
    for f in glob.glob(f"{d}/*.csv"):
        for r in csv.DictReader(open(f)):
            if r.get('median_ms'):
                rows.setdefault((m.group(1), r['case'], r['dtype']), {}).setdefault(m.group(2), []).append((float(r['median_ms']) * 1e3, float(r['frac_limit'] or 0) * 100))
for k, v in sorted(rows.items()):
    o, n = v.get('old', []), v.get('new', [])
    ratio = st.mean(x for x, _ in o) / st.mean(x for x, _ in n) if o and n else float('nan')
    f = lambda L: " ".join(f"{x:.2f}({p:.1f}%)" for x, p in L)
    print(f"{k[0]} {k[1]:8s} {k[2]:5s} old {f(o)} | new {f(n)} | new/old speed {ratio:.3f}")
