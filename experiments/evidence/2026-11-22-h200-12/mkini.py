#!/usr/bin/env python3
"""Twelfth sitting: the streaming plans (one block a row, no cross-block wait; pass 2 backwards, the last
step from registers) beside the own choice at the long rows, and candidate plans at the short-of-90 %
shapes N = 16384, 32768 (M x N = 2^25). One case a configuration (klab times each with its copy)."""
import sys
out = sys.argv[1]
def plan(cta, vpt, tpr=None, cluster=1, stream=1):
    return f"cta={cta},tpr={tpr or cta},vpt={vpt},cluster={cluster},stream={stream}"
LONG = [(32768, "fp32"), (65536, "fp16"), (65536, "fp32"), (131072, "fp16"), (262144, "fp16")]
STREAM = [("s512x8", plan(512, 8)), ("s256x8", plan(256, 8)), ("s512x4", plan(512, 4)), ("s1024x4", plan(1024, 4))]
MID = [(16384, "fp16"), (32768, "fp16")]
# one block a row of 2048 vectors (N = 16384 fp16), other than the own choice's 512 x 4
ONCHIP = [("r256x8", plan(256, 8, stream=0)), ("r1024x2", plan(1024, 2, stream=0)),
          ("r512x8t256", plan(512, 8, tpr=256, stream=0)), ("r128x8c2", plan(128, 8, cluster=2, stream=0))]
def ini(plugin, extra):
    s = [f"[experiment]\nplugin = {plugin}\n[defaults]\nprofiles = fused\nbudget_ms = 200\n{extra}"]
    def add(n, d, name, cfg):
        m = (1 << 25) // n
        s.append(f"[case n{n}-{d}-{name}]\nshape = {m}x{n}\ndtypes = {d}\n" + (f"config = {cfg}\n" if cfg else ""))
    for n, d in LONG:
        add(n, d, "own", None)
        for name, cfg in STREAM:
            add(n, d, name, cfg)
    for n, d in MID:
        add(n, d, "own", None)
        for name, cfg in ONCHIP if n == 16384 else []:
            add(n, d, name, cfg)
        for name, cfg in STREAM[:2]:
            add(n, d, name, cfg)
    return "\n".join(s)
open(f"{out}/s12_rmsnorm.ini", "w").write(ini("rmsnorm", "param.eps = 1e-6\n"))
open(f"{out}/s12_softmax.ini", "w").write(ini("softmax", "param.spread = 20\n"))
