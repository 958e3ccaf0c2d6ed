#!/usr/bin/env python3
"""Relabel a decode_replay tune CSV for tools/decode_probes.py: profile P becomes P.cfgN or P.own
(from the row's samples_file), so that one (case, dtype, profile) key names one row.
usage: relabel.py TUNE_RUN_DIR OUT_DIR   (OUT_DIR gets decode_replay.csv and a link to the samples)"""
import csv, os, sys
src, dst = sys.argv[1], sys.argv[2]
os.makedirs(dst, exist_ok=True)
link = os.path.join(dst, "decode_replay.samples")
if not os.path.exists(link):
    os.symlink(os.path.abspath(os.path.join(src, "decode_replay.samples")), link)
with open(os.path.join(src, "decode_replay.csv"), newline="") as f:
    rows = list(csv.DictReader(f))
for r in rows:
    r["profile"] += "." + os.path.basename(r["samples_file"]).split(".")[-2]
with open(os.path.join(dst, "decode_replay.csv"), "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
    w.writeheader(); w.writerows(rows)
