"""What a decode_replay run's tail is made of: tables from its raw step samples and its probes.

    python3 tools/decode_probes.py RUN                          rows, ratios between profiles, the steps
    python3 tools/decode_probes.py RUN --probes DIR             and the kernels and enqueue times of DIR
    python3 tools/decode_probes.py RUN --lens llama8b-4l-dyn=3510,2806,...   a dynamic case by KV length
    python3 tools/decode_probes.py RUN TORCH --pairs torch_cudagraph/graph    PyTorch's rows beside klab's

RUN is a klab run folder (decode_replay.csv, decode_replay.samples/), TORCH one of tools/torch_decode.py's
(decode_replay_torch.csv, its samples); every row of every folder is read. DIR holds <case>.<dtype>.kernels.csv
and <case>.<dtype>.enqueue.csv, or the same gzipped (docs/notes/decode_replay.md, "Probes"), written by the same run as RUN
(KLAB_DECODE_PROBES, param.probes = 1) when the probes are to be paired with the samples. Python's
standard library and libklab_bench; no GPU.

Sections:
  rows     p50, p95, p99, max of each row as klab's CSV has them, and p95/p50.
  ratios   median(A) / median(B) of two profiles of one case from their raw samples, with the interval
           klab gives a speedup (core/interval.h, interval_ratio): each median's order-statistic interval
           at 97.5 %, so that both hold together with >= 95 % (Bonferroni); lo = A_lo / B_hi, hi = A_hi / B_lo.
  steps    the samples against their step (the position in the sequence: klab restores the states every
           `steps` steps) and against time (sample order): per-step medians, which steps the samples above
           p95 fall on, the lag-1 autocorrelation, the first and last quarter's medians; with --lens, each
           schedule row's KV length, its median, and the spread left after each step's own median.
  kernels  per profile and kernel name (all layers) the median and p95 of the span (last CTA's end minus
           first CTA's start) and of the gap before it (negative: overlap, PDL); the step span.
  p50/p95  the probed steps near the median step span (45th-55th percentile) against those at or above its
           95th percentile: the mean span and gap of each kernel name a step in both, and the difference.
  pairing  each probed step paired with its sample (the ring holds a profile's last run()s; the enqueue
           file counts every run(), so sample i is ring seq i + runs - samples), the pairs whose cursor and
           step agree, and sample minus probed span (the events, the launch of the first kernel).
  enqueue  the host's time in run() (eager: every launch; graph profiles: cudaGraphLaunch) per profile.

Every median, quantile and interval is klab's own (libklab_bench: core/stats/), the rows' and the derived
sets' alike: quantiles interpolate between closest ranks, intervals are order statistics. The library is
found in --build (default: the repository's build/).
"""
import argparse
import csv
import gzip
import math
import os
import sys

from . import bench
from .bench import median, quantile

PAIRS = (("graph", "graph_pdl"), ("graph_piecewise", "graph"), ("eager", "graph"))


class UsageError(Exception):
    pass


def found(path):
    """path, or path.gz (the probes kept gzipped in experiments/evidence/), or None"""
    return path if os.path.exists(path) else path + ".gz" if os.path.exists(path + ".gz") else None


def read_csv(path):
    try:
        with (gzip.open(path, "rt", newline="") if path.endswith(".gz") else open(path, newline="")) as f:
            return list(csv.DictReader(f))
    except OSError as e:
        raise UsageError(f"{path}: {e.strerror}") from None


def ratio_interval(num, den):
    """median(num) / median(den) and klab's 95 % interval of it (interval_ratio); None if too few."""
    ci = bench.ratio_interval(num, den)
    return None if ci is None else (median(num) / median(den), *ci)


def autocorr1(xs):
    n = len(xs)
    if n < 3:
        return float("nan")
    m = sum(xs) / n
    var = sum((x - m) ** 2 for x in xs)
    return sum((xs[i] - m) * (xs[i + 1] - m) for i in range(n - 1)) / var if var > 0 else float("nan")


class Run:
    """The rows and raw samples of one or more run folders (klab's decode_replay.csv, tools/torch_decode.py's
    decode_replay_torch.csv), so that a ratio can take its two profiles from two folders."""

    def __init__(self, folders):
        self.folder = ", ".join(folders)
        self.rows, self.samples = [], {}  # samples: (case, dtype, profile) -> [(step, us)] in the order taken
        for folder in folders:
            names = sorted(n for n in os.listdir(folder) if n.startswith("decode_replay") and n.endswith(".csv")) \
                if os.path.isdir(folder) else []
            if not names:
                raise UsageError(f"{folder}: no decode_replay*.csv")
            for name in names:
                for r in read_csv(os.path.join(folder, name)):
                    key = (r["case"], r["dtype"], r["profile"])
                    if key in self.samples or any((q["case"], q["dtype"], q["profile"]) == key for q in self.rows):
                        raise UsageError(f"{folder}/{name}: {' '.join(key)} is in an earlier folder too")
                    self.rows.append(r)
                    if r.get("samples_file"):
                        rows = read_csv(os.path.join(folder, r["samples_file"]))
                        self.samples[key] = [(int(s["step"]), float(s["ms"]) * 1e3) for s in rows]

    def cases(self):
        seen = []
        for r in self.rows:
            if (r["case"], r["dtype"]) not in seen:
                seen.append((r["case"], r["dtype"]))
        return seen

    def profiles(self, case, dtype):
        return [r["profile"] for r in self.rows if r["case"] == case and r["dtype"] == dtype]


def f_us(x):
    return f"{x * 1e3:.2f}"


def show_rows(run):
    print("## rows (klab's CSV; us)")
    print("| case | dtype | profile | n | p50 | p95 | p99 | max | p95/p50 | status |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in run.rows:
        med, p95 = float(r["median_ms"] or "nan"), float(r["p95_ms"] or "nan")
        print(f"| {r['case']} | {r['dtype']} | {r['profile']} | {r['reps']} | {f_us(med)} | {f_us(p95)} | "
              f"{f_us(float(r['p99_ms'] or 'nan'))} | {f_us(float(r['max_ms'] or 'nan'))} | {p95 / med:.4f} | {r['status']} |")
    print()


def show_ratios(run, pairs):
    print("## ratios of medians from the raw samples (interval: each median at 97.5 %, joint >= 95 %)")
    print("| case | dtype | A / B | ratio | 95 % interval | A - B us |")
    print("|---|---|---|---|---|---|")
    for case, dtype in run.cases():
        for a, b in pairs:
            sa, sb = run.samples.get((case, dtype, a)), run.samples.get((case, dtype, b))
            if not sa or not sb:
                continue
            xa, xb = [u for _, u in sa], [u for _, u in sb]
            ri = ratio_interval(xa, xb)
            if ri is None:
                print(f"| {case} | {dtype} | {a} / {b} | too few samples | | |")
                continue
            print(f"| {case} | {dtype} | {a} / {b} | {ri[0]:.4f} | {ri[1]:.4f}-{ri[2]:.4f} | "
                  f"{median(xa) - median(xb):+.2f} |")
    print()


def parse_lens(specs):
    lens = {}
    for spec in specs or ():
        case, sep, vals = spec.partition("=")
        try:
            lens[case] = [int(v) for v in vals.split(",")] if sep else None
        except ValueError:
            lens[case] = None
        if not lens[case]:
            raise UsageError(f"--lens {spec}: want CASE=L0,L1,... (each schedule row's KV length)")
    return lens


def show_steps(run, lens):
    print("## steps (us): per-step medians, where the samples above p95 fall, drift and autocorrelation")
    print("| case | profile | steps | step medians min (step) | max (step) | samples > p95 by step (top 3) |"
          " lag-1 autocorr | first / last quarter median |")
    print("|---|---|---|---|---|---|---|---|")
    for (case, dtype, prof), ss in run.samples.items():
        by = {}
        for s, u in ss:
            by.setdefault(s, []).append(u)
        meds = {s: median(v) for s, v in by.items()}
        lo_s, hi_s = min(meds, key=meds.get), max(meds, key=meds.get)
        xs = [u for _, u in ss]
        p95 = quantile(sorted(xs), 0.95)
        tail = {}
        for s, u in ss:
            if u > p95:
                tail[s] = tail.get(s, 0) + 1
        top = sorted(tail.items(), key=lambda kv: (-kv[1], kv[0]))[:3]
        q = max(1, len(xs) // 4)
        print(f"| {case} | {prof} | {len(by)} | {meds[lo_s]:.2f} ({lo_s}) | {meds[hi_s]:.2f} ({hi_s}) | "
              f"{', '.join(f'{s}: {k}' for s, k in top) or '-'} of {sum(tail.values())} | {autocorr1(xs):.3f} | "
              f"{median(xs[:q]):.2f} / {median(xs[-q:]):.2f} |")
    print()
    for case, ls in lens.items():
        profs = [p for (c, _, p) in run.samples if c == case]
        if not profs:
            raise UsageError(f"--lens {case}: no samples of that case in {run.folder}")
        print(f"### {case} by schedule row (KV length); us")
        print("| row | KV length | " + " | ".join(f"{p} p50 | p95" for p in profs) + " |")
        print("|---|---|" + "---|---|" * len(profs))
        for row, kv in enumerate(ls):
            cells = []
            for p in profs:
                v = sorted(u for s, u in run.samples[(case, _dtype(run, case), p)] if s % len(ls) == row)
                cells.append(f"{quantile(v, 0.5):.2f} | {quantile(v, 0.95):.2f}" if v else "- | -")
            print(f"| {row} | {kv} | " + " | ".join(cells) + " |")
        print()
        print("| profile | us per 1000 positions (least squares on the rows' medians) | p95 - p50 | "
              "p95 - p50 of (sample - its row's median) |")
        print("|---|---|---|---|")
        for p in profs:
            ss = run.samples[(case, _dtype(run, case), p)]
            meds = [median([u for s, u in ss if s % len(ls) == r]) for r in range(len(ls))]
            mx, my = sum(ls) / len(ls), sum(meds) / len(meds)
            sxx = sum((x - mx) ** 2 for x in ls)
            slope = sum((x - mx) * (y - my) for x, y in zip(ls, meds)) / sxx if sxx else float("nan")
            xs = sorted(u for _, u in ss)
            res = sorted(u - meds[s % len(ls)] for s, u in ss)
            print(f"| {p} | {slope * 1000:.3f} | {quantile(xs, 0.95) - quantile(xs, 0.5):.2f} | "
                  f"{quantile(res, 0.95) - quantile(res, 0.5):.2f} |")
        print()


def _dtype(run, case):
    return next(d for c, d in run.cases() if c == case)


def kernel_steps(rows):
    """profile -> [(seq, cursor, [(kernel, name, span_us, gap_us, end_us)])] in seq order"""
    out = {}
    for r in rows:
        prof, seq = r["profile"], int(r["seq"])
        steps = out.setdefault(prof, {})
        st = steps.setdefault(seq, (int(r["step"]), []))
        s, e = int(r["start_ns"]), int(r["end_ns"])
        st[1].append((int(r["kernel"]), r["name"], (e - s) / 1e3, int(r["gap_ns"]) / 1e3, e / 1e3))
    return {p: [(seq, c, sorted(ks)) for seq, (c, ks) in sorted(st.items())] for p, st in out.items()}


def names_in_order(steps):
    names = []
    for _, _, ks in steps:
        for _, n, *_ in ks:
            if n not in names:
                names.append(n)
    return names


def show_kernels(case, dtype, probes, run):
    path = found(os.path.join(probes, f"{case}.{dtype}.kernels.csv"))
    if not path:
        return
    by_prof = kernel_steps(read_csv(path))
    print(f"## kernels of {case} {dtype} (probes, us; every layer's kernels of a name together)")
    print("| profile | kernel | n | span p50 | span p95 | gap p50 | gap p95 | gap sum a step p50 |")
    print("|---|---|---|---|---|---|---|---|")
    for prof, steps in by_prof.items():
        for name in names_in_order(steps):
            spans = sorted(k[2] for _, _, ks in steps for k in ks if k[1] == name)
            gaps = sorted(k[3] for _, _, ks in steps for k in ks if k[1] == name and k[0] > 0)
            gsum = sorted(sum(k[3] for k in ks if k[1] == name and k[0] > 0) for _, _, ks in steps)
            g = f"{quantile(gaps, 0.5):.2f} | {quantile(gaps, 0.95):.2f}" if gaps else "- | -"
            print(f"| {prof} | {name} | {len(spans)} | {quantile(spans, 0.5):.2f} | {quantile(spans, 0.95):.2f} | "
                  f"{g} | {quantile(gsum, 0.5):.2f} |")
        tot = sorted(max(k[4] for k in ks) for _, _, ks in steps)
        gs = sorted(sum(k[3] for k in ks if k[0] > 0) for _, _, ks in steps)
        print(f"| {prof} | **step** | {len(tot)} | {quantile(tot, 0.5):.2f} | {quantile(tot, 0.95):.2f} | "
              f"{quantile(gs, 0.5):.2f} (all gaps) | {quantile(gs, 0.95):.2f} | |")
    print()
    print(f"## p50 step against p95 step, {case} {dtype} (probes: mean a step of each kernel name, us)")
    print("| profile | kernel | span @p50 | span @p95 | moved | gap @p50 | gap @p95 | moved |")
    print("|---|---|---|---|---|---|---|---|")
    for prof, steps in by_prof.items():
        tot = sorted(max(k[4] for k in ks) for _, _, ks in steps)
        lo, hi, top = quantile(tot, 0.45), quantile(tot, 0.55), quantile(tot, 0.95)
        mid = [ks for _, _, ks in steps if lo <= max(k[4] for k in ks) <= hi]
        tail = [ks for _, _, ks in steps if max(k[4] for k in ks) >= top]

        def mean_of(group, name, idx):
            return sum(sum(k[idx] for k in ks if k[1] == name and (idx != 3 or k[0] > 0)) for ks in group) / len(group)

        for name in names_in_order(steps):
            a, b = mean_of(mid, name, 2), mean_of(tail, name, 2)
            c, d = mean_of(mid, name, 3), mean_of(tail, name, 3)
            print(f"| {prof} | {name} | {a:.2f} | {b:.2f} | {b - a:+.2f} | {c:.2f} | {d:.2f} | {d - c:+.2f} |")
        print(f"| {prof} | **step** ({len(mid)} and {len(tail)} steps) | "
              f"{sum(max(k[4] for k in ks) for ks in mid) / len(mid):.2f} | "
              f"{sum(max(k[4] for k in ks) for ks in tail) / len(tail):.2f} | | | | |")
    print()
    show_pairing(case, dtype, probes, run, by_prof)


def show_pairing(case, dtype, probes, run, by_prof):
    path = found(os.path.join(probes, f"{case}.{dtype}.enqueue.csv"))
    if not path:
        return
    runs = {}
    for r in read_csv(path):
        runs[r["profile"]] = runs.get(r["profile"], 0) + 1
    print(f"## probed steps paired with their samples, {case} {dtype} (us)")
    print("| profile | run()s | samples | pairs | cursor = step | sample - span p50 | p95 | corr(span, sample) |")
    print("|---|---|---|---|---|---|---|---|")
    for prof, steps in by_prof.items():
        ss = run.samples.get((case, dtype, prof))
        if not ss or prof not in runs:
            continue
        off = runs[prof] - len(ss)
        pairs = [(c, max(k[4] for k in ks), ss[seq - off]) for seq, c, ks in steps if 0 <= seq - off < len(ss)]
        agree = sum(1 for c, _, (s, _) in pairs if c == s)
        d = sorted(u - span for _, span, (_, u) in pairs)
        xs, ys = [p[1] for p in pairs], [p[2][1] for p in pairs]
        print(f"| {prof} | {runs[prof]} | {len(ss)} | {len(pairs)} | {agree} | "
              f"{quantile(d, 0.5):.2f} | {quantile(d, 0.95):.2f} | {pearson(xs, ys):.3f} |")
    print()


def pearson(xs, ys):
    n = len(xs)
    if n < 3:
        return float("nan")
    mx, my = sum(xs) / n, sum(ys) / n
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    sxx, syy = sum((x - mx) ** 2 for x in xs), sum((y - my) ** 2 for y in ys)
    return sxy / math.sqrt(sxx * syy) if sxx > 0 and syy > 0 else float("nan")


def show_enqueue(case, dtype, probes):
    path = found(os.path.join(probes, f"{case}.{dtype}.enqueue.csv"))
    if not path:
        return
    by = {}
    for r in read_csv(path):
        by.setdefault(r["profile"], []).append(float(r["enqueue_us"]))
    print(f"## host enqueue of one run(), {case} {dtype} (us)")
    print("| profile | run()s | p50 | p95 | max |")
    print("|---|---|---|---|---|")
    for prof, v in by.items():
        v.sort()
        print(f"| {prof} | {len(v)} | {quantile(v, 0.5):.2f} | {quantile(v, 0.95):.2f} | {v[-1]:.2f} |")
    print()


def main(argv=None):
    ap = argparse.ArgumentParser(prog="decode_probes.py", description=__doc__.split("\n")[0])
    ap.add_argument("run", nargs="+", help="run folders of decode_replay (decode_replay*.csv, decode_replay.samples/)")
    ap.add_argument("--probes", help="the decode_replay.probes folder of the same run")
    ap.add_argument("--lens", action="append", help="CASE=L0,L1,...: a dynamic case's KV length per schedule row")
    ap.add_argument("--pairs", help="A/B,...: the ratios to print (default graph/graph_pdl, "
                                    "graph_piecewise/graph, eager/graph)")
    ap.add_argument("--build", help="the build folder with libklab_bench.so (default: the repository's build/)")
    a = ap.parse_args(argv)
    bench.use_build(a.build)
    try:
        pairs = PAIRS
        if a.pairs:
            pairs = tuple(tuple(p.split("/")) for p in a.pairs.split(","))
            if any(len(p) != 2 or not all(p) for p in pairs):
                raise UsageError(f"--pairs {a.pairs}: want A/B,C/D")
        lens = parse_lens(a.lens)
        run = Run(a.run)
        show_rows(run)
        show_ratios(run, pairs)
        show_steps(run, lens)
        if a.probes:
            if not os.path.isdir(a.probes):
                raise UsageError(f"--probes {a.probes}: no such folder")
            for case, dtype in run.cases():
                show_kernels(case, dtype, a.probes, run)
                show_enqueue(case, dtype, a.probes)
    except (UsageError, bench.BenchError) as e:
        print(f"decode_probes: {e}", file=sys.stderr)
        return 2
    return 0
