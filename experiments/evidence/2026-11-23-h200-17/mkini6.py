#!/usr/bin/env python3
"""Seventeenth sitting, call 6: softmax's 64 KiB 16-bit rows (fp16 1024x32768 at 89.0 % of the copy in
call 4): streaming plans of two and four blocks an SM beside the on-chip own choice, ABAB."""
import sys
out = sys.argv[1]
def P(cta, vpt, cl, st): return f"cta={cta},tpr={cta},vpt={vpt},cluster={cl},stream={st}"
s = ["[experiment]\nplugin = softmax\n[defaults]\nprofiles = fused\nbudget_ms = 300\nparam.spread = 20\n"]
for d in ("fp16", "bf16"):
    for k in range(2):
        s.append(f"[case n32768-{d}-own-{k}]\nshape = 1024x32768\ndtypes = {d}\n")
        for name, cfg in (("s512x4", P(512, 4, 1, 1)), ("s256x8", P(256, 8, 1, 1)), ("s512x8", P(512, 8, 1, 1)), ("s1024x4", P(1024, 4, 1, 1))):
            s.append(f"[case n32768-{d}-{name}-{k}]\nshape = 1024x32768\ndtypes = {d}\nconfig = {cfg}\n")
open(f"{out}/s17_6_softmax.ini", "w").write("\n".join(s))
