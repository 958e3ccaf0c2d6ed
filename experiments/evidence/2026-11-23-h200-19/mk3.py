#!/usr/bin/env python3
"""Nineteenth sitting, call 3: the on-chip epilogue in whole rows (b), and with w's loads kept in L1 (c), against
763c8c9 (a): short rows (own plans and the small-block ones of call 2), a model shape per path. Writes $1/s19_3r.ini
and s19_3s.ini."""
import sys
out = sys.argv[1]
def P(cta, tpr, v): return f"cta={cta},tpr={tpr},vpt={v},cluster=1,stream=0"
rms = [(128, "fp16", None), (128, "fp16", (64, 8, 2)), (128, "fp32", None), (128, "fp32", (64, 16, 2)), (128, "bf16", None),
       (1024, "fp16", None), (1024, "fp16", (64, 64, 2)), (1024, "fp32", None), (1024, "fp32", (128, 128, 2)), (1024, "bf16", None),
       (4096, "fp16", None), (4096, "fp32", None), (4096, "bf16", None), (8192, "bf16", None)]
soft = [(128, "fp16", None), (128, "fp16", (64, 4, 4)), (128, "fp32", None), (1024, "fp16", None), (1024, "fp16", (32, 32, 4)),
        (1024, "fp32", None), (4096, "fp16", None)]
def ini(plugin, L, extra):
    s = [f"[experiment]\nplugin = {plugin}\n[defaults]\nprofiles = fused\nbudget_ms = 300\n{extra}"]
    for n, d, p in L:
        m = (1 << 25) // n
        name = f"n{n}-{d}-" + ("own" if p is None else f"c{p[0]}t{p[1]}v{p[2]}")
        s.append(f"[case {name}]\nshape = {m}x{n}\ndtypes = {d}\n" + ("" if p is None else f"config = {P(*p)}\n"))
    return "\n".join(s)
open(f"{out}/s19_3r.ini", "w").write(ini("rmsnorm", rms, "param.eps = 1e-6\n"))
open(f"{out}/s19_3s.ini", "w").write(ini("softmax", soft, "param.spread = 20\n"))
