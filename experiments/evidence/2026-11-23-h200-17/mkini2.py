#!/usr/bin/env python3
"""Seventeenth sitting, call 2: the wide streaming plan with the next wave's L2 prefetch (stream=2)
beside stream=1 and the own choice, in ABAB order (own, s2, own, s2 ...), M x N = 2^25."""
import sys
out = sys.argv[1]
S = "cta=1024,tpr=1024,vpt=8,cluster=1,stream={}"
def ini(plugin, extra, rows):
    s = [f"[experiment]\nplugin = {plugin}\n[defaults]\nprofiles = fused\nbudget_ms = 300\n{extra}"]
    for n, d, cfgs, reps in rows:
        m = (1 << 25) // n
        for k in range(reps):
            s.append(f"[case n{n}-{d}-own-{k}]\nshape = {m}x{n}\ndtypes = {d}\n")
            for name, cfg in cfgs:
                s.append(f"[case n{n}-{d}-{name}-{k}]\nshape = {m}x{n}\ndtypes = {d}\nconfig = {cfg}\n")
    return "\n".join(s)
s1, s2 = ("s1", S.format(1)), ("s2", S.format(2))
rms = [(65536, "fp16", [s2], 2), (65536, "bf16", [s2], 2), (32768, "fp32", [s2], 2),
       (131072, "fp16", [s1, s2], 1), (65536, "fp32", [s1, s2], 1), (262144, "fp16", [s1, s2], 1)]
smx = [(65536, "fp16", [s1, s2], 1), (32768, "fp32", [s1, s2], 1)]
open(f"{out}/s17_2_rmsnorm.ini", "w").write(ini("rmsnorm", "param.eps = 1e-6\n", rms))
open(f"{out}/s17_2_softmax.ini", "w").write(ini("softmax", "param.spread = 20\n", smx))
