#!/usr/bin/env python3
"""Eighteenth sitting, call 3: on-chip plans of 4 vectors a thread (torch.compile's shape at these rows:
1024 threads x 16 floats at fp32 16384) beside the own choices, where klab trails compile (N = 8192-32768),
in two builds: A (the commit) and B (its 4-vector on-chip aligned kernels bounded to two blocks an SM:
32 registers). Writes $1/s18_3.ini."""
import sys
out = sys.argv[1]
def P(cta, vpt, st=0): return f"cta={cta},tpr={cta},vpt={vpt},cluster=1,stream={st}"
cases = [  # (N, dtype, [(name, plan)])
    (8192, "fp32", [("c512x4", P(512, 4)), ("c1024x2", P(1024, 2))]),
    (8192, "fp16", [("c512x2", P(512, 2)), ("c128x8", P(128, 8))]),
    (16384, "fp32", [("c1024x4", P(1024, 4))]),
    (16384, "fp16", [("c512x4", P(512, 4))]),
    (32768, "fp16", [("c1024x4", P(1024, 4))]),
]
s = ["[experiment]\nplugin = rmsnorm\n[defaults]\nprofiles = fused\nbudget_ms = 300\nparam.eps = 1e-6\n"]
for n, d, alts in cases:
    m = (1 << 25) // n
    s.append(f"[case n{n}-{d}-own]\nshape = {m}x{n}\ndtypes = {d}\n")
    for name, cfg in alts:
        s.append(f"[case n{n}-{d}-{name}]\nshape = {m}x{n}\ndtypes = {d}\nconfig = {cfg}\n")
open(f"{out}/s18_3.ini", "w").write("\n".join(s))
