#!/usr/bin/env python3
"""mkab.py OUTDIR: A/B INIs (tile plan against its register twin) for rmsnorm and softmax, ragged short rows."""
import subprocess, sys, os
out = sys.argv[1]; os.makedirs(out, exist_ok=True)
shapes = ["65537x17", "100003x33", "16384x100", "8192x250"]
dts = {"fp16": 2, "fp32": 4, "bf16": 2}
for plugin, lim16, lim32 in [("rmsnorm", "fit4", "fit4"), ("softmax", "heavy", "heavy")]:
    L = [f"[experiment]\nplugin = {plugin}\n[defaults]\nbudget_ms = 250\n"]
    for sh in shapes:
        for dt, e in dts.items():
            if dt == "bf16" and sh != "65537x17": continue
            lim = lim16 if e == 2 else lim32
            if plugin == "rmsnorm" and dt == "bf16": lim = "any"
            r, c = sh.split("x")
            own, twin = subprocess.check_output(["./plans", r, c, str(e), lim], text=True).split()
            if twin == "-": continue
            t, n = (own, twin) if "tile=1" in own else (twin, own)
            pairs = [("t", t), ("n", n)]
            if sh == "65537x17":
                pairs += [("t" + c, t.replace("cta=256", "cta=" + c)) for c in ("128", "512")]
            for tag, cfg in pairs:
                L.append(f"[case {sh}-{dt}-{tag}]\nshape = {sh}\ndtypes = {dt}\nconfig = {cfg}\n")
    open(f"{out}/ab_{plugin}.ini", "w").write("\n".join(L))
    print(plugin, sum(1 for l in L if l.startswith("[case")), "cases")
