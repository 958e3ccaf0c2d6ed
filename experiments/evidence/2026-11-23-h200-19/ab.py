#!/usr/bin/env python3
"""ab.py R: the a, b, c builds' medians per (plugin, case, dtype), and the mean speed of b and c over a."""
import csv, sys, os, glob, re, statistics as st
R = sys.argv[1]; rows = {}
for d in sorted(glob.glob(f"{R}/*-[abc]-*")):
    m = re.match(r"(\w+)-([abc])-(\d+)", os.path.basename(d))
    if not m: continue
    for f in glob.glob(f"{d}/*.csv"):
        for r in csv.DictReader(open(f)):
            if r.get('median_ms'):
                rows.setdefault((m.group(1), r['case'], r['dtype']), {}).setdefault(m.group(2), []).append((float(r['median_ms']) * 1e3, float(r['frac_limit'] or 0) * 100))
for k, v in sorted(rows.items()):
    a = v.get('a', [])
    f = lambda L: " ".join(f"{x:.2f}({p:.1f}%)" for x, p in L)
    line = f"{k[0]} {k[1]:14s} {k[2]:5s} a {f(a)}"
    for s_ in "bc":
        b = v.get(s_, [])
        r = st.mean(x for x, _ in a) / st.mean(x for x, _ in b) if a and b else float('nan')
        line += f" | {s_} {f(b)} {s_}/a {r:.3f}"
    print(line)
