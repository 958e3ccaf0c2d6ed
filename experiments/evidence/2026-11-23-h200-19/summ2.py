#!/usr/bin/env python3
"""summ2.py DIR...: per (plugin, N, dtype) the own plan's median and each alternative's (us, % of the copy), the
mean over the given runs, and own / alt speed (> 1: the alternative is faster)."""
import csv, sys, glob, re, statistics as st
rows = {}
for d in sys.argv[1:]:
    for f in glob.glob(f"{d}/*.csv"):
        for r in csv.DictReader(open(f)):
            if not r.get("median_ms") or r["status"] != "passed": continue
            m = re.match(r"n(\d+)-(\w+)-(.+)", r["case"])
            if not m: continue
            rows.setdefault((r["plugin"], int(m.group(1)), m.group(2)), {}).setdefault(m.group(3), []).append(
                (float(r["median_ms"]) * 1e3, float(r["frac_limit"] or 0) * 100, r["config"]))
for k in sorted(rows):
    v = rows[k]; own = v.get("own")
    if not own: continue
    o = st.mean(x for x, _, _ in own)
    print(f"{k[0]} n{k[1]} {k[2]} own {own[0][2]}: " + " ".join(f"{x:.2f}" for x, _, _ in own) + f" ({st.mean(p for _, p, _ in own):.1f} %)")
    for name in sorted(v, key=lambda n: st.mean(x for x, _, _ in v[n])):
        if name == "own": continue
        a = st.mean(x for x, _, _ in v[name])
        print(f"    {name:14s} " + " ".join(f"{x:.2f}" for x, _, _ in v[name]) + f" ({st.mean(p for _, p, _ in v[name]):.1f} %)  alt/own speed {o / a:.3f}")
