"""PyTorch's decode step of decode_replay's cases (ini/decode_replay.ini), eager and torch.cuda.CUDAGraph,
timed the way klab times step subjects, written as rows of klab's CSV into a run folder.

    python3 tools/torch_decode.py --out out/RUN                  every case of ini/decode_replay.ini
    python3 tools/torch_decode.py --out out/RUN --cases llama8b-4l,llama8b-4l-dyn --dtypes fp16
    python3 tools/torch_decode.py --dry-run                      the plan; needs no torch and no GPU

The step itself is klab/decode_model.py's. Timing, as klab's step timer (docs/timing.md, "Step timing")
does it, with these differences stated:
  - one sample a step, CUDA events around it, at least --steps samples (1000), raw samples in
    <out>/decode_replay.samples/; the row's statistics (p50/p95/p99/max, the median's 95 % interval from
    order statistics) are klab's own, computed by libklab_bench from those samples;
  - cold by default: L2 flushed before each step by reading a buffer of 4x the L2 (at least 256 MiB);
  - klab holds the GPU behind a blocking kernel until the whole span is enqueued; here torch.cuda._sleep
    (a spin of --hold-us) stands in for it, so the host's enqueue of an eager step overlaps the spin as
    it overlaps klab's blocking kernel. A host slower than the spin would show in the eager rows' tail.
  - the states are not restored between sequences (klab restores them every `steps` steps): the cursor
    wraps modulo the schedule's rows, so every step still reads a length from the schedule.
libklab_bench does not time these steps for PyTorch: its external subjects are timed as single runs, not
as steps, and verified on the plugin's first output, which for decode_replay is the KV cache.
Each (case, dtype) is verified once before timing: the step's output hidden state against the same step
in float64 (torch, on the GPU, from the same weights and states), relative L2 error against the plugin's
own tolerance for the case. The schedule's length (the case's steps), bytes and flops come from the
plugin's hooks (kb_case_work), so gbps is against the same count as klab's rows; frac_limit is left
empty (no klab copy in these rounds). Rows are written by klab's CSV writer (kb_csv_row): klab's
columns and schema.
"""
import argparse
import os
import sys
import tempfile

from . import bench, decode_model
from .decode_model import Geom, Model
from .ini import Ini, IniError
from .meta import meta_is_klabs, torch_meta
from .torch_bench import graphed

ROOT = bench.ROOT
PLUGIN = "decode_replay"


def plugin_so(a):
    return os.path.join(a.build, "plugins", PLUGIN + ".so")


def plan(a):
    """[(case, [(dtype, its work or None)])]: work is kb_case_work's, None where the plugin is not built."""
    ini = Ini(a.ini)
    if ini.plugin != PLUGIN:
        raise IniError(f"{a.ini}: plugin {ini.plugin}, expected {PLUGIN}")
    so = plugin_so(a)
    built = os.path.exists(so)
    return [(c, [(d, c.work(so, d) if built else None) for d in c.dtypes if not a.dtypes or d in a.dtypes])
            for c in ini.select(a.cases)]


def dry_run(a, work):
    print(f"# {os.path.relpath(a.ini, ROOT)} -> {a.out}/{PLUGIN}_torch.csv, samples in "
          f"{a.out}/{PLUGIN}.samples/; {a.steps} steps a row, {'hot' if a.hot else 'cold'}")
    for c, dts in work:
        for d, wk in dts:
            g = Geom(c, wk["steps"] if wk else c.steps)
            what = "attention only" if g.attn_only else f"{g.layers} layers"
            sched = f"dynamic [{g.kv_min}, {g.kv}]" if g.dynamic else f"fixed {g.kv}"
            b = f"{wk['bytes'] / 1e6:.1f} MB a step" if wk else f"bytes: {PLUGIN}.so not built"
            print(f"  {c.name:<20} {d}  B={g.batch} {what}, hidden {g.hidden}, {g.heads}/{g.kv_heads} heads of "
                  f"{g.head_dim}, inter {g.inter}, KV {sched}, schedule rows {g.steps or 'the plugin default'}: "
                  f"torch_eager, torch_cudagraph; {b}")
    if "torch" in sys.modules:
        print("error: --dry-run imported torch", file=sys.stderr)
        return 1
    return 0


def write_meta(a, torch):
    """<out>/meta.ini, as klab writes a run's, through libklab_bench with decode_replay.so opened for it
    alone (its GPU, its cold or hot L2; no case is begun, its CSV is thrown away). Its [method]
    says klab's timer; [torch] timer says how this one differs. Kept where klab's own run's is there;
    skipped, with a line, where the plugin or the library is missing."""
    if meta_is_klabs(a.out):
        print(f"# {a.out}/meta.ini: klab's own run's, kept", flush=True)
        return
    try:
        with tempfile.TemporaryDirectory() as tmp:
            s = bench.Bench(plugin_so(a), os.path.join(tmp, "unused.csv"), a.run_id, a.seed,
                              "hot" if a.hot else "plain")
            try:
                s.write_meta(a.out, {**torch_meta(torch),
                                     "torch.timer": "tools/torch_decode.py: one step a sample between CUDA events, "
                                                    "a profile's steps in one run (not interleaved), the GPU held "
                                                    "by torch.cuda._sleep while a step is enqueued",
                                     "torch.steps": a.steps, "torch.hold_us": a.hold_us})
            finally:
                s.close()
    except (OSError, bench.BenchError) as e:
        print(f"torch_decode: no meta.ini: {e}", file=sys.stderr)


def time_steps(torch, fn, n, hold_us, flush):
    ev = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(n)]
    cycles = int(hold_us * 1.5e3)  # ~1.5 GHz: a spin of about hold_us
    for i in range(n):
        if flush is not None:
            flush.sum()
        torch.cuda._sleep(cycles)
        ev[i][0].record()
        fn()
        ev[i][1].record()
        if i % 64 == 63:
            torch.cuda.synchronize()
    torch.cuda.synchronize()
    return [a.elapsed_time(b) for a, b in ev]


def cells_of(a, torch, c, dtype, profile, work, err, sample_rel):
    """The row's cells but its statistics (kb_csv_row computes those from the samples)."""
    tol = work["tolerance"]
    props = torch.cuda.get_device_properties(0)
    uuid = getattr(props, "uuid", None)
    r = dict(run_id=a.run_id, plugin=PLUGIN, case=c.name, shape=c.shape, dtype=dtype, profile=profile,
             l2="hot" if a.hot else "cold", launch="steps", batch=1, status="passed" if err <= tol else "incorrect",
             flags="external", discarded=0, bytes=work["bytes"], flops=work["flops"], rel_l2_err=repr(err),
             tolerance=repr(tol), seed=a.seed, samples_file=sample_rel, gpu=torch.cuda.current_device(),
             gpu_name=props.name)
    if uuid is not None:
        r["gpu_uuid"] = f"GPU-{uuid}"
    if err > tol:
        r["reason"] = f"relative L2 error {err:.3g} against float64 over {tol:g}"
    return r


def run(a, work):
    t = decode_model.need_torch()
    if any(wk is None for _, dts in work for _, wk in dts):
        print(f"torch_decode: {plugin_so(a)} not built: the steps, bytes and tolerance are the plugin's",
              file=sys.stderr)
        return 2
    os.makedirs(os.path.join(a.out, f"{PLUGIN}.samples"), exist_ok=True)
    write_meta(a, t)
    props = t.cuda.get_device_properties(0)
    l2 = getattr(props, "L2_cache_size", 60 << 20)
    flush = None if a.hot else t.empty(max(256 << 20, 4 * l2) // 4, dtype=t.float32, device="cuda").uniform_()
    out_csv = os.path.join(a.out, f"{PLUGIN}_torch.csv")
    print(f"# torch {t.__version__}, {t.cuda.get_device_name(0)} -> {out_csv}", flush=True)
    rows, bad = bench.CsvWriter(out_csv), 0
    for c, dts in work:
        for d, wk in dts:
            g = Geom(c, wk["steps"])
            m = Model(g, {"fp16": t.float16, "bf16": t.bfloat16}[d], a.seed)
            ref = m.clone_as(t.float64)
            y = m.step().double()
            yr = ref.step()
            err = float((y - yr).norm() / yr.norm())
            del ref
            m.cursor.zero_()
            for profile, fn in (("torch_eager", m.step), ("torch_cudagraph", graphed(m.step))):
                for _ in range(10):
                    fn()
                samples = time_steps(t, fn, a.steps, a.hold_us, flush)
                rel = f"{PLUGIN}.samples/{c.name}.{d}.{profile}.csv"
                with open(os.path.join(a.out, rel), "w") as f:
                    f.write("step,ms\n")
                    for i, ms in enumerate(samples):
                        f.write(f"{i % g.steps},{ms:.6f}\n")
                cells = cells_of(a, t, c, d, profile, wk, err, rel)
                bad += cells["status"] != "passed"
                rows.row(cells, samples)
                st = bench.stats(samples)
                print(f"  {c.name:<20} {d} {profile:<16} p50 {st['median']:.4f} p95 {st['p95']:.4f} "
                      f"p99 {st['p99']:.4f} max {st['max']:.4f} ms  err {err:.2e}", flush=True)
            del m
            t.cuda.empty_cache()
    rows.close()
    return 1 if bad else 0


def main(argv=None):
    ap = argparse.ArgumentParser(prog="torch_decode.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("--ini", default=os.path.join(ROOT, "ini", f"{PLUGIN}.ini"))
    ap.add_argument("--build", default="build")
    ap.add_argument("--out", default="out/torch")
    ap.add_argument("--run-id", default="torch")
    ap.add_argument("--seed", type=int, default=20261122)
    ap.add_argument("--cases", type=lambda s: [x for x in s.split(",") if x], default=[])
    ap.add_argument("--dtypes", type=lambda s: [x for x in s.split(",") if x], default=[])
    ap.add_argument("--steps", type=int, default=1000, help="samples a row (at least 1000)")
    ap.add_argument("--hold-us", type=float, default=2000, help="the spin that holds the GPU while a step is enqueued")
    ap.add_argument("--hot", action="store_true", help="no L2 flush before each step")
    ap.add_argument("--dry-run", action="store_true", help="print the plan; needs no torch or GPU")
    a = ap.parse_args(argv)
    if a.steps < 1000:
        print("torch_decode: --steps must be at least 1000 (klab's step rows have at least 1000 samples)",
              file=sys.stderr)
        return 2
    bench.use_build(a.build)
    try:
        work = plan(a)
    except (IniError, bench.BenchError) as e:
        print(f"torch_decode: {e}", file=sys.stderr)
        return 2
    return dry_run(a, work) if a.dry_run else run(a, work)
