#!/usr/bin/env python3
"""The row-length sweep tables of the seventh sitting's call 4, from its CSVs: klab's own run
(runs/rowsweep_<plugin>/<plugin>.csv) and the torch_rows run (runs/torch-rowsweep/rowsweep_<plugin>.csv,
klab's profiles and PyTorch's in the same rounds). Ratios: PyTorch median / klab fused median of the
torch_rows CSV, bound = PyTorch median_lo / fused median_hi (both 95 % intervals: >= 90 % together).
Usage: sweep_table.py <runs dir>"""
import csv, sys, os
R = sys.argv[1] if len(sys.argv) > 1 else "runs"
def load(f): return list(csv.DictReader(open(os.path.join(R, f))))
def m(r, x): return float(r[x]) * 1e3
for plug, other in [("rmsnorm", "F.rms_norm"), ("softmax", "torch.softmax")]:
    T = load("torch-rowsweep/rowsweep_%s.csv" % plug); K = load("rowsweep_%s/%s.csv" % (plug, plug))
    print("\n### %s\n" % plug)
    print("| N | dtype | fused config | klab run: fused µs [95 %%] | %% of copy | same-rounds run: fused µs | %% of copy | torch.compile µs | compile / fused [bound] | %s / fused [bound] | eager / fused |" % other)
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for dt in ["fp16", "fp32"]:
        for n in [128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072, 262144]:
            c = "n%d" % n
            k = [r for r in K if r["case"] == c and r["dtype"] == dt][0]
            g = lambda p: [r for r in T if r["case"] == c and r["dtype"] == dt and r["profile"] == p]
            f = g("fused")[0]; tc = g("torch.compile")[0]; o = g(other)[0]; e = g("torch.eager")
            ratio = lambda a: "%.3f [≥ %.3f]" % (m(a, "median_ms") / m(f, "median_ms"), m(a, "median_lo") / m(f, "median_hi"))
            print("| %d | %s | `%s` | %.2f [%.2f–%.2f] | %.1f | %.2f | %.1f | %.2f | %s | %s | %s |" % (
                n, dt, k["config"], m(k, "median_ms"), m(k, "median_lo"), m(k, "median_hi"), float(k["frac_limit"]) * 100,
                m(f, "median_ms"), float(f["frac_limit"]) * 100, m(tc, "median_ms"), ratio(tc), ratio(o),
                ratio(e[0]) if e else "-"))
