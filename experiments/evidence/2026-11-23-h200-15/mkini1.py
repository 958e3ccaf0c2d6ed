#!/usr/bin/env python3
"""Fifteenth sitting, call 1: the 1024 x 8 streaming plan with the whole-step pass 2 (16-bit rows)
beside the own choice (the new rule at rmsnorm 16-bit 65536) and the old cluster plans, M x N = 2^25."""
import sys
out = sys.argv[1]
S1024 = "cta=1024,tpr=1024,vpt=8,cluster={},stream=1"
C256 = "cta=256,tpr=256,vpt=8,cluster={},stream=0"
def ini(plugin, extra, rows):
    s = [f"[experiment]\nplugin = {plugin}\n[defaults]\nprofiles = fused\nbudget_ms = 300\n{extra}"]
    for n, d, cfgs in rows:
        m = (1 << 25) // n
        s.append(f"[case n{n}-{d}-own]\nshape = {m}x{n}\ndtypes = {d}\n")
        for name, cfg in cfgs:
            s.append(f"[case n{n}-{d}-{name}]\nshape = {m}x{n}\ndtypes = {d}\nconfig = {cfg}\n")
    return "\n".join(s)
rms = [(65536, "fp16", [("c256x8c4", C256.format(4))]),
       (65536, "bf16", [("c256x8c4", C256.format(4))]),
       (32768, "fp32", [("c256x8c4", C256.format(4))]),
       (131072, "fp16", [("s1024x8c2", S1024.format(2))]),
       (262144, "fp16", [("s1024x8c4", S1024.format(4))])]
smx = [(65536, "fp16", [("s1024x8c1", S1024.format(1))]),
       (131072, "fp16", [("s1024x8c2", S1024.format(2))])]
open(f"{out}/s15_1_rmsnorm.ini", "w").write(ini("rmsnorm", "param.eps = 1e-6\n", rms))
open(f"{out}/s15_1_softmax.ini", "w").write(ini("softmax", "param.spread = 20\n", smx))
