#!/usr/bin/env python3
"""Ratios of medians between two configurations of one tune (the same rounds), from their raw samples,
with decode_probes.py's interval (core/interval.c's interval_ratio). Usage:
  ratios.py RUN CASE PROFILE CFG_A CFG_B [...]   (CFG: the samples file's tail: cfg20, own, ...)"""
import csv, os, sys
sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', '..', 'tools'))
sys.path.insert(0, 'tools')
from decode_probes import ratio_interval

def samples(run, case, prof, cfg):
    p = os.path.join(run, 'decode_replay.samples', f'{case}.fp16.{prof}.{cfg}.csv')
    rows = list(csv.reader(open(p)))
    col = rows[0].index('ms') if 'ms' in rows[0] else 0
    return [float(r[col]) * 1000 for r in rows[1:] if r and r[col] not in ('', 'ms')]

run, args = sys.argv[1], sys.argv[2:]
print('| case | profile | A / B | ratio | 95 % interval | A - B us |\n|---|---|---|---|---|---|')
for i in range(0, len(args), 4):
    case, prof, a, b = args[i:i + 4]
    xa, xb = samples(run, case, prof, a), samples(run, case, prof, b)
    r = ratio_interval(xa, xb)
    xa.sort(), xb.sort()
    d = xa[len(xa) // 2] - xb[len(xb) // 2]
    print(f'| {case} | {prof} | {a} / {b} | {r[0]:.4f} | {r[1]:.4f}-{r[2]:.4f} | {d:+.2f} |')
