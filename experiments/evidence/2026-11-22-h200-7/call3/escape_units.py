#!/usr/bin/env python3
"""Escape-check pairs of a KLAB_DEBUG_ESCAPE=1 rows-decode log, one line per (process, unit, subject):
least subject excess, least reference excess, their difference (what the check compares with
max(6 us, 5 % of the median event time)), and the row's status. Usage: escape_units.py rows-decode.txt"""
import re, sys, statistics
proc = None; unit = 0; pend = {}; out = []; status = {}
esc = re.compile(r"^escape (\S+) pair (\d+): subject excess ([\d.]+) ms \(events ([\d.]+) ms\), reference ([\d.]+) ms \(events ([\d.]+) ms\)")
row = re.compile(r"^(\S+)\s+(fp32|fp16|bf16)\s+(\S+)\s+cold\S*\s.*\s(passed|flagged|failed|skipped)\b")
done = re.compile(r"^# (\S+) (fp32|fp16|bf16): [\d.]+ s")
for line in open(sys.argv[1]):
    if line.startswith("== env"):
        proc = re.search(r"--plugins (\S+)", line).group(1); unit = 0; pend = {}; status = {}
        continue
    m = esc.match(line)
    if m:
        lab = m.group(1); pend.setdefault(lab, []).append(tuple(float(m.group(i)) for i in (3, 4, 5, 6)))
        continue
    m = row.match(line)
    if m and proc:
        status[m.group(3)] = m.group(4)
        continue
    m = done.match(line)
    if m and proc:
        unit += 1
        for lab, ps in pend.items():
            ls = min(p[0] for p in ps); lr = min(p[2] for p in ps); ev = statistics.median(p[1] for p in ps)
            d = ls - lr; thr = max(0.006, 0.05 * ev)
            out.append((proc, unit, m.group(1), m.group(2), lab, ls * 1e3, lr * 1e3, d * 1e3, ev * 1e3,
                        "over" if d > thr else "", status.get(lab, "?")))
        pend = {}; status = {}
print("process\tunit\tcase\tdtype\tsubject\tleast_subject_us\tleast_reference_us\tdiff_us\tevents_median_us\tover_threshold\tstatus")
for o in out:
    print("\t".join(str(round(x, 1)) if isinstance(x, float) else str(x) for x in o))
