#!/usr/bin/env python3
"""Twelfth sitting, call 5: the streaming plans with L2 eviction hints (pass 1 evict_last, pass 2
evict_first) and each step's loads issued before the previous step is reduced, beside the own choice,
at the sweep's long rows (M x N = 2^25). One case a configuration."""
import sys
out = sys.argv[1]
def plan(cta, vpt, cluster=1):
    return f"cta={cta},tpr={cta},vpt={vpt},cluster={cluster},stream=1"
LONG = [(32768, "fp32"), (65536, "fp16"), (65536, "fp32"), (131072, "fp16"), (131072, "fp32"), (262144, "fp16"), (262144, "fp32")]
PLANS = [("s1024x4", plan(1024, 4)), ("s512x4", plan(512, 4)), ("s512x8", plan(512, 8)),
         ("s1024x4c2", plan(1024, 4, 2)), ("s512x8c2", plan(512, 8, 2)), ("s1024x4c4", plan(1024, 4, 4))]
def ini(plugin, extra):
    s = [f"[experiment]\nplugin = {plugin}\n[defaults]\nprofiles = fused\nbudget_ms = 200\n{extra}"]
    for n, d in LONG:
        m = (1 << 25) // n
        s.append(f"[case n{n}-{d}-own]\nshape = {m}x{n}\ndtypes = {d}\n")
        for name, cfg in PLANS:
            if name.endswith("c4") and n * (4 if d == "fp32" else 2) < (1 << 19):
                continue  # cluster 4 only for rows of 512 KiB and more
            s.append(f"[case n{n}-{d}-{name}]\nshape = {m}x{n}\ndtypes = {d}\nconfig = {cfg}\n")
    return "\n".join(s)
open(f"{out}/s12_5_rmsnorm.ini", "w").write(ini("rmsnorm", "param.eps = 1e-6\n"))
open(f"{out}/s12_5_softmax.ini", "w").write(ini("softmax", "param.spread = 20\n"))
