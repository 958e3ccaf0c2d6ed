#!/usr/bin/env python3
"""summ.py R: per (plugin, shape, dtype) the tile plan's and its register twin's medians over the runs, n/t."""
import csv, sys, glob, statistics as st, os
rows = {}
for f in glob.glob(f"{sys.argv[1]}/**/*.csv", recursive=True):
    for r in csv.DictReader(open(f)):
        if r.get('profile') != 'fused' or not r.get('median_ms'): continue
        if r['case'].count('-') < 2: continue  # not an A/B case (torch_rows' rows)
        sh, dt, tag = r['case'].rsplit('-', 2)
        rows.setdefault((r.get('plugin', os.path.basename(f)), sh, dt), {}).setdefault(tag, []).append((float(r['median_ms']) * 1e3, float(r['frac_limit'] or 0) * 100, r['status']))
for k, v in sorted(rows.items()):
    t, n = v.get('t', []), v.get('n', [])
    f = lambda L: " ".join(f"{x:.2f}({p:.0f}%{'' if s == 'passed' else ' ' + s})" for x, p, s in L)
    ratio = st.mean(x for x, _, _ in n) / st.mean(x for x, _, _ in t) if t and n else float('nan')
    extra = " ".join(f"| {g} {f(L)}" for g, L in sorted(v.items()) if g not in ("t", "n"))
    print(f"{k[0]:8s} {k[1]:10s} {k[2]:5s} tile {f(t)} | regs {f(n)} | n/t {ratio:.3f} {extra}")
