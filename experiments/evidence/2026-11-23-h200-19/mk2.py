#!/usr/bin/env python3
"""Nineteenth sitting, call 2: short rows (N <= 4096 at M*N = 2^25) in smaller blocks and with fewer vectors
a thread, beside the own choice (the copy probe of call 1: 128 x 1 copies ran 3-5 % above 256 x 4 at 64+ MiB
a side; torch.compile's RMSNorm runs a row of 1024 fp16 in one warp-sized block). Writes $1/rms.ini, soft.ini."""
import sys
out = sys.argv[1]
def P(cta, tpr, vpt): return f"cta={cta},tpr={tpr},vpt={vpt},cluster=1,stream=0"
def alts(w):
    tpr4 = w // 4
    own = (256 if tpr4 < 128 else tpr4, tpr4, 4)
    a = []
    for cta in (32, 64, 128):
        if cta >= tpr4 and cta != own[0]: a.append((cta, tpr4, 4))
    for v in (1, 2):
        t = w // v
        if t > 1024: continue
        for cta in sorted({max(t, 128)} | ({64} if t <= 64 else set())):
            a.append((cta, t, v))
    return [p for p in dict.fromkeys(a) if p != own]
def ini(plugin, Ns, extra):
    s = [f"[experiment]\nplugin = {plugin}\n[defaults]\nprofiles = fused\nbudget_ms = 300\n{extra}"]
    n_units = 0
    for n in Ns:
        for d, e in (("fp16", 2), ("fp32", 4)):
            m, w = (1 << 25) // n, n * e // 16
            s.append(f"[case n{n}-{d}-own]\nshape = {m}x{n}\ndtypes = {d}\n"); n_units += 1
            for cta, tpr, v in alts(w):
                s.append(f"[case n{n}-{d}-c{cta}t{tpr}v{v}]\nshape = {m}x{n}\ndtypes = {d}\nconfig = {P(cta, tpr, v)}\n"); n_units += 1
    return "\n".join(s), n_units
a, na = ini("rmsnorm", (128, 512, 1024, 2048, 4096), "param.eps = 1e-6\n")
b, nb = ini("softmax", (128, 1024), "param.spread = 20\n")
open(f"{out}/rms.ini", "w").write(a); open(f"{out}/soft.ini", "w").write(b)
print(f"units: rmsnorm {na}, softmax {nb}")
