#!/usr/bin/env python3
"""Seventeenth sitting, call 3: is the 1024 x 8 streaming plan's gap at 16-bit long rows its arithmetic,
serial with memory in one block an SM? Streaming plans of two and four blocks an SM (512 x 8, 256 x 8,
512 x 4) beside the own choice, ABAB, M x N = 2^25; softmax (heavier arithmetic) the same."""
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
multi = [("s512x8", P(512, 8, 1, 1)), ("s256x8", P(256, 8, 1, 1)), ("s512x4", P(512, 4, 1, 1))]
rms = [(65536, "fp16", multi + [("c256x8c4", P(256, 8, 4, 0))], 2),
       (32768, "fp32", multi, 1),
       (131072, "fp16", [("s1024x8", P(1024, 8, 1, 1)), ("s512x8", P(512, 8, 1, 1))], 2),
       (131072, "bf16", [("s1024x8", P(1024, 8, 1, 1))], 1)]
smx = [(65536, "fp16", multi, 1), (32768, "fp32", multi, 1)]
open(f"{out}/s17_3_rmsnorm.ini", "w").write(ini("rmsnorm", "param.eps = 1e-6\n", rms))
open(f"{out}/s17_3_softmax.ini", "w").write(ini("softmax", "param.spread = 20\n", smx))
