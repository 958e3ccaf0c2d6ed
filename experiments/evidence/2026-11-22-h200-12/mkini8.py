#!/usr/bin/env python3
"""Twelfth sitting, call 8: the Triton-shaped streaming plan (1024 threads x 8 vectors: a 128 KiB step
in flight at once, read again from L1) beside the own choice at the long rows (M x N = 2^25): cluster c
= the row's bytes / 128 KiB (one step a block) and 2c (half a step)."""
import sys
out = sys.argv[1]
LONG = [(32768, "fp32"), (65536, "fp16"), (65536, "fp32"), (131072, "fp16"), (131072, "fp32"), (262144, "fp16"), (262144, "fp32")]
def ini(plugin, extra):
    s = [f"[experiment]\nplugin = {plugin}\n[defaults]\nprofiles = fused\nbudget_ms = 200\n{extra}"]
    for n, d in LONG:
        m = (1 << 25) // n
        c = max(1, n * (4 if d == "fp32" else 2) // (128 << 10))
        s.append(f"[case n{n}-{d}-own]\nshape = {m}x{n}\ndtypes = {d}\n")
        for cl in (c, 2 * c):
            s.append(f"[case n{n}-{d}-s1024x8c{cl}]\nshape = {m}x{n}\ndtypes = {d}\nconfig = cta=1024,tpr=1024,vpt=8,cluster={cl},stream=1\n")
    s.append("[case sanity-4096x8192-own]\nshape = 4096x8192\ndtypes = fp16\n")
    return "\n".join(s)
open(f"{out}/s12_8_rmsnorm.ini", "w").write(ini("rmsnorm", "param.eps = 1e-6\n"))
open(f"{out}/s12_8_softmax.ini", "w").write(ini("softmax", "param.spread = 20\n"))
