"""torch_rows.py --compare: each PyTorch row of a CSV beside the klab row it stands for, one case and
dtype at a time. The rows' figures are klab's (its medians and their 95 % intervals); this only sets
two rows side by side: a ratio of medians and its lower bound from the two intervals."""
import csv
import os


def num(r, k):
    try:
        return float(r[k])
    except (KeyError, ValueError):
        return None


# The klab profile a PyTorch row stands beside, where that is not 'fused': (plugin, label prefix) -> profile.
# matmul_h200 has no 'fused': the fastest of its rows is often its cuBLAS baseline ('cublas'), which is
# torch.matmul's own kernel, not klab's; its kernel to set beside PyTorch is wgmma_persistent.
AGAINST = {("fp8_gemm", "torch._scaled_mm"): "prequant", ("fp8_gemm", "torch."): "autoquant",
           ("matmul_h200", "torch."): "wgmma_persistent"}


def against(plugin, label, klab):
    """The klab row (of klab, one case and dtype) that the PyTorch row `label` is set against."""
    name = next((p for (pl, pre), p in AGAINST.items() if pl == plugin and label.startswith(pre)), "fused")
    return next((r for r in klab if r["profile"] == name), None) or min(klab, key=lambda r: num(r, "median_ms"),
                                                                        default=None)


def compare(csv_path):
    """Each PyTorch row against klab's 'fused' profile (fp8_gemm: autoquant, and prequant beside
    torch._scaled_mm; matmul_h200: wgmma_persistent; else the fastest klab profile) of the same case and
    dtype: the ratio of medians and
    its lower bound, the callable's median_lo over klab's median_hi (from two 95 % intervals: holds with at
    least 90 %, docs/timing.md). Returns how many external rows did not pass."""
    rows = list(csv.DictReader(open(csv_path, newline="")))
    bad = [r for r in rows if "external" in r["flags"] and r["status"] != "passed"]
    units = {}
    for r in rows:
        units.setdefault((r["case"], r["dtype"]), []).append(r)
    print(f"\n{os.path.basename(csv_path)}: PyTorch / klab, medians in us [95 %]; ratio > 1: klab faster")
    for (case, dt), rs in units.items():
        klab = [r for r in rs if "external" not in r["flags"] and r["profile"] != "copy-ref" and num(r, "median_ms")]
        for r in rs:
            if "external" not in r["flags"]:
                continue
            ref = against(r["plugin"], r["profile"], klab)
            if r["status"] != "passed" or not ref:
                print(f"  {case:<22} {dt:<5} {r['profile']:<34} {r['status']}: {r['reason']}")
                continue
            m, lo, hi = (num(r, k) for k in ("median_ms", "median_lo", "median_hi"))
            km, khi = num(ref, "median_ms"), num(ref, "median_hi")
            bound = f"{lo / khi:.3f}" if lo and khi else "-"
            print(f"  {case:<22} {dt:<5} {r['profile']:<34} {m * 1e3:9.2f} [{(lo or 0) * 1e3:.2f}-{(hi or 0) * 1e3:.2f}]"
                  f"  {ref['profile']} {km * 1e3:9.2f}  ratio {m / km:6.3f} (>= {bound})")
    return len(bad)
