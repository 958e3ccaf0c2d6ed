#!/usr/bin/env python3
"""Seventeenth sitting, call 5: rows past 128 KiB (fp32 65536, 16-bit 131072 and 262144): streaming
plans split over a cluster so each block's part is one 1024 x 8 step or two 512 x 8 steps (two blocks
an SM), beside the own choice, ABAB, M x N = 2^25."""
import sys
out = sys.argv[1]
def P(cta, vpt, cl, st): return f"cta={cta},tpr={cta},vpt={vpt},cluster={cl},stream={st}"
def ini(plugin, extra, rows):
    s = [f"[experiment]\nplugin = {plugin}\n[defaults]\nprofiles = fused\nbudget_ms = 300\n{extra}"]
    for n, d, cfgs, reps in rows:
        m = (1 << 25) // n
        for k in range(reps):
            s.append(f"[case n{n}-{d}-own-{k}]\nshape = {m}x{n}\ndtypes = {d}\n")
            for name, cfg in cfgs:
                s.append(f"[case n{n}-{d}-{name}-{k}]\nshape = {m}x{n}\ndtypes = {d}\nconfig = {cfg}\n")
    return "\n".join(s)
c2 = [("s512x8c2", P(512, 8, 2, 1)), ("s1024x8c2", P(1024, 8, 2, 1))]
rms = [(65536, "fp32", c2, 2), (131072, "fp16", c2, 2), (131072, "fp32", c2 + [("s1024x8c4", P(1024, 8, 4, 1))], 1),
       (262144, "fp16", c2 + [("s512x8c4", P(512, 8, 4, 1)), ("s1024x8c4", P(1024, 8, 4, 1))], 1)]
smx = [(131072, "fp16", c2, 1), (65536, "fp32", c2, 1), (262144, "fp16", c2 + [("s512x8c4", P(512, 8, 4, 1))], 1)]
open(f"{out}/s17_5_rmsnorm.ini", "w").write(ini("rmsnorm", "param.eps = 1e-6\n", rms))
open(f"{out}/s17_5_softmax.ini", "w").write(ini("softmax", "param.spread = 20\n", smx))
