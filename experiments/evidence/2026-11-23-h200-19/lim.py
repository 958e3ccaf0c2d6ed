#!/usr/bin/env python3
"""lim.py R: klab's copy rate (limit_gbps, GB/s) per case bytes in the a and b builds' runs (the copy kernel changed)."""
import csv, sys, glob, re, os, statistics as st
R = sys.argv[1]; rows = {}
for d in glob.glob(f"{R}/*-[ab]-*"):
    side = re.match(r"\w+-([ab])-\d+", os.path.basename(d)).group(1)
    for f in glob.glob(f"{d}/*.csv"):
        for r in csv.DictReader(open(f)):
            if r.get("limit_gbps") and r["profile"] == "fused":
                rows.setdefault(int(float(r["bytes"])) >> 20, {}).setdefault(side, []).append(float(r["limit_gbps"]))
for b in sorted(rows):
    v = rows[b]
    print(f"{b:6d} MiB moved: a {st.median(v.get('a', [0])):.0f} GB/s (n={len(v.get('a', []))}), b {st.median(v.get('b', [0])):.0f} GB/s (n={len(v.get('b', []))})")
