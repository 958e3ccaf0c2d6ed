#!/usr/bin/env python3
"""Seventeenth sitting, call 4: the own choices of eb19130 beside the plans they replaced, and softmax's
256 KiB rows (unmeasured for streaming), ABAB, M x N = 2^25."""
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
rms = [(65536, "bf16", [("s1024x8", P(1024, 8, 1, 1))], 2),
       (131072, "bf16", [("c256x8c8", P(256, 8, 8, 0))], 2)]
smx = [(65536, "bf16", [("c256x8c4", P(256, 8, 4, 0))], 2),
       (131072, "fp16", [("s1024x8", P(1024, 8, 1, 1)), ("s512x8", P(512, 8, 1, 1))], 2),
       (65536, "fp32", [("s1024x8", P(1024, 8, 1, 1)), ("s512x8", P(512, 8, 1, 1))], 1),
       (262144, "fp16", [("s1024x8", P(1024, 8, 1, 1))], 1)]
open(f"{out}/s17_4_rmsnorm.ini", "w").write(ini("rmsnorm", "param.eps = 1e-6\n", rms))
open(f"{out}/s17_4_softmax.ini", "w").write(ini("softmax", "param.spread = 20\n", smx))
