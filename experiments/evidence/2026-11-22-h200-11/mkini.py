#!/usr/bin/env python3
"""Eleventh sitting: INIs timing the split plans beside the own choice at the sweep's long rows
(M x N = 2^25), one case a configuration (klab runs each case as a unit with its copy reference)."""
import sys
out = sys.argv[1]
def cases(plugin, ns, dtypes, plans, extra=""):
    s = [f"[experiment]\nplugin = {plugin}\n[defaults]\nprofiles = fused\nbudget_ms = 200\n{extra}"]
    for n in ns:
        m = (1 << 25) // n
        for d in dtypes:
            s.append(f"[case n{n}-{d}-own]\nshape = {m}x{n}\ndtypes = {d}\n")
            for cta, vpt in plans:
                s.append(f"[case n{n}-{d}-s{cta}x{vpt}]\nshape = {m}x{n}\ndtypes = {d}\n"
                         f"config = cta={cta},tpr={cta},vpt={vpt},cluster=1,stream=0,split=1\n")
    return "\n".join(s)
open(f"{out}/split_rmsnorm.ini", "w").write(cases("rmsnorm", [65536, 131072, 262144], ["fp16", "fp32"],
    [(256, 4), (256, 8), (512, 2), (512, 4), (128, 8)], "param.eps = 1e-6\n"))
open(f"{out}/split_softmax.ini", "w").write(cases("softmax", [65536, 262144], ["fp16", "fp32"],
    [(256, 4), (256, 8), (512, 4)], "param.spread = 20\n"))
