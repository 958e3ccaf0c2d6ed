"""PyTorch beside klab, measured by klab: the same cases, the same tensors, the same float64 reference,
sampled in the same rounds after the same L2 flush between the same CUDA events (libklab_bench).

    python3 tools/torch_rows.py --build build-gpu --out out/torch                 every plugin with a module, ini/<plugin>.ini
    python3 tools/torch_rows.py --plugins softmax,rmsnorm [--cases A,B] [--dtypes fp16]
    python3 tools/torch_rows.py --ini experiments/rowsweep_softmax.ini            another INI (it names its plugin)
    python3 tools/torch_rows.py --units units.tsv --quick --phases-out phases.ini the units named, quickly
    python3 tools/torch_rows.py --dry-run                                         the cases and callables; no torch, no GPU
    python3 tools/torch_rows.py --compare out/torch/*.csv                         the comparison below, again
    python3 tools/torch_rows.py --check                                           one line: torch and its GPU, or why not

`klab --with-torch` runs this in klab's run folder with klab's selection (--ini, --so, --cases with
--ini-cases-only, --dtypes, --mode, --device, --run-id, --seed, --csv-suffix .torch). A plugin's PyTorch
callables are its own module, <plugin>_torch.py beside <plugin>.so (klab/torch_module.py: the contract);
a plugin without one is skipped with a line.

Each INI is read by klab's own reader (libklab_bench), and each case runs as klab runs it
(kb_begin_case): shape or dim.*, dtypes, param.*, profiles, config, steps, warm-up and stopping rule.
A --cases name that is not a case of the INI but is a shape (1x4096) becomes a case of that shape with
the INI's [defaults], as a [case 1x4096] section would. Writes <out>/<INI stem>.csv in klab's CSV
columns: klab's profiles, klab's copy at the same bytes (limit_gbps), and the PyTorch callables as
extra rows (flags 'external'); then prints, per case and dtype, each callable against klab's fused
profile (the fastest klab profile where there is no 'fused'). A claim "klab beats torch.compile" is a
ratio of two rows of one file.

--units FILE runs only the units it names (klab/units.py); --quick caps every case's sampling by klab's
quick rule and flags every row 'quick' (timing/stopping.h); --budget-ms replaces each case's budget,
after the quick rule; --phases-out FILE writes where the time went (klab/phases.py).

--mode batched: klab times N runs per sample. A PyTorch callable cannot go into klab's own graph (its
caching allocator must own the capture), so it is captured into torch.cuda.CUDAGraphs and klab
queues N replays behind its blocking kernel, the method it uses for its own profiles that launch
graphs (launch column "queued"); the row's profile carries "@cudagraph" to say so. As klab's profiles
rotate N copies of their tensors, so does the callable: N graphs, each over its own clone of the case's
inputs (kb_add_external_rotating), so every run of a batch reads cold data on both sides. Until
2026-11-22 PyTorch replayed one graph on the case's own tensors, L2-warm after its first run, while
klab's rows read cold copies: its decode-size wins were partly that. Until 2026-11-23 (eb9b277) the N
graphs did not keep the clones they read (graphed() kept the graph, not the callable), so the copies
shared memory and PyTorch's batched rows still read warm, sometimes foreign, data; see graphed().

The GEMM family (matmul_h200, fp8_gemm, fused_gated_mlp) is compiled twice where a GEMM is the point:
"torch.compile" is the default mode, as everywhere else and in the anchors (../shared/anchors:
torch.compile(fn, dynamic=False)); "torch.compile-max-autotune" is mode="max-autotune-no-cudagraphs".
In the default mode Inductor calls cuBLAS for every mm, so a compiled matmul is the cublas row again;
max-autotune times Triton GEMM templates against cuBLAS and may fuse a pointwise epilogue into a
template: the strongest PyTorch a GEMM kernel can be set beside. Without CUDA graphs, because klab
times the callable itself (its stream, its rounds, and under --mode batched its own
torch.cuda.CUDAGraph): Inductor's graph trees would copy inputs into static buffers and replay a graph
of their own. The cost is compile time, ~20-40 s a shape on an H200 (tools/gpu-run.sh gemm-torch).
--wall-s bounds a run: once that many seconds have passed, the units not begun are listed as not run.
"""
import argparse
import os
import sys
import time

import importlib.util

from . import bench, torch_cases, torch_module
from .compare import compare
from .ini import Ini, IniError
from .meta import meta_is_klabs, torch_meta
from .phases import Phases
from .torch_bench import TorchBench, callable_of, copy_of
from .torch_cases import EAGER
from .torch_module import ModuleError, spec_of
from .units import UnitsError, check_units, read_units

ROOT = bench.ROOT
START = time.monotonic()  # --wall-s counts from here


class Fatal(Exception):
    """The run cannot go on (a case is not what its rows would say, or the CUDA context was lost)."""


def plugin_dirs(a):
    """Where a plugin is looked for without --so: <build>/plugins (a build tree), <build>/klab/plugins (an
    install prefix's lib, where klab passes --build)."""
    return [os.path.join(a.build, "plugins"), os.path.join(a.build, "klab", "plugins")]


def plugin_so(a, plugin):
    """The plugin's library: --so's, else the first of plugin_dirs that has it (the first when none does)."""
    if plugin in a.so:
        return a.so[plugin]
    places = [os.path.join(d, plugin + ".so") for d in plugin_dirs(a)]
    return next((p for p in places if os.path.exists(p)), places[0])


def plan(a):
    """[(Ini, module, [(case, [dtypes])])] from --ini or --plugins, narrowed by --cases, --dtypes and
    --units; raises IniError, UnitsError or ModuleError."""
    inis = []
    if a.ini:
        for p in a.ini:
            i = Ini(p)
            so = plugin_so(a, i.plugin)
            m = torch_module.load(so, i.plugin)
            if m:
                inis.append((i, m))
            else:
                print(f"# {p}: plugin '{i.plugin}' has no PyTorch module ({torch_module.path_of(so, i.plugin)}): "
                      "skipped", flush=True)
    else:
        if not a.plugins:
            a.plugins = sorted({p for d in plugin_dirs(a) for p in torch_module.plugins_in(d)})
        for p in a.plugins:
            so = plugin_so(a, p)
            m = torch_module.load(so, p)
            if not m:
                raise IniError(f"--plugins: '{p}' has no PyTorch module (no {torch_module.path_of(so, p)})")
            path = os.path.join(ROOT, "ini", p + ".ini")
            if not os.path.exists(path):
                print(f"# {p}: no {os.path.relpath(path, ROOT)}: skipped", flush=True)
                continue
            inis.append((Ini(path), m))
    units = None
    if a.units:
        units = read_units(a.units)
        check_units(a.units, units, [i for i, _ in inis])
    out = []
    for i, m in inis:
        cases = []
        for c in i.select(a.cases, a.ini_cases_only):
            dts = [d for d in c.dtypes if not a.dtypes or d in a.dtypes]
            if units is not None:
                dts = [d for d in dts if (c.name, d) in units]
                if not dts:
                    continue  # not a unit of this run
            cases.append((c, dts))
        if not cases:
            print(f"# {i.path}: no case selected: skipped", flush=True)
            continue
        for c, _ in cases:
            spec_of(m, c)  # a module that breaks its contract stops here, before any GPU work
        out.append((i, m, cases))
    return out


def row_label(a, label, s):
    """The row's profile: the callable, how it was launched, what its verification left out."""
    return label + ("@cudagraph" if a.mode == "batched" else "") + s.suffix


def dry_run(a, work):
    print("# kb_begin_case runs each case as klab does: every key of the INI, profiles, config and the "
          "stopping rule included" + ("; --quick: klab's quick rule, every row flagged quick" if a.quick else ""))
    print(torch_presence())
    for ini, m, cases in work:
        print(f"{os.path.relpath(ini.path, ROOT)}  plugin {ini.plugin}  -> {ini.stem}{a.csv_suffix}.csv  "
              f"(PyTorch: {m.__file__})")
        for c, dts in cases:
            s = spec_of(m, c)
            rule = c.sampling(a.quick, a.budget_ms)
            head = (f"  {c.name:<26} {c.shape if c.dims else '-':<14} {','.join(dts) or '-':<15} "
                    f"{rule['budget_ms']:>6.0f} ms")
            if s.skip:
                print(f"{head}  skipped: {s.skip}")
                continue
            labels = [row_label(a, op[0], s) for op in s.ops]
            params = " ".join([f"param.{k}={v}" for k, v in c.params.items()]
                              + [f"dim.{k}={v}" for k, v in c.named.items()])
            tensors = " ".join(f"{k}{list(v)}" for k, v in s.tensors.items())
            quick = (f"; quick: warmup {rule['warmup']:.0f}, reps {rule['min_reps']:.0f}-{rule['max_reps']:.0f}, "
                     f"precision {rule['precision']:g}" if a.quick else "")
            print(f"{head}  {', '.join(labels)}  [{tensors}] {params}" + "".join(f"; {n}" for n in s.notes) + quick)
    if "torch" in sys.modules:  # the ctest runs this where torch may be missing: it must never need it
        print("error: --dry-run imported torch", file=sys.stderr)
        return 1
    return 0


def torch_presence():
    """One line: whether this interpreter has torch, asked without importing it."""
    if importlib.util.find_spec("torch") is None:
        return (f"# torch: not installed for {sys.executable}: each module's declarations and cases are "
                "checked, its callables are not run")
    return f"# torch: installed for {sys.executable} (not imported by a dry run)"


def run_ini(a, ini, m, cases, phases):
    """One INI's cases on its plugin opened once (libklab_bench); returns the CSV's path, or None when
    skipped. The first INI of a run writes the folder's meta.ini (a.meta_done), unless klab's own is there; an
    earlier run of this script into the folder has its meta.ini replaced by this run's."""
    torch = torch_cases.torch
    so = plugin_so(a, ini.plugin)
    if not os.path.exists(so):
        print(f"# {ini.plugin}: {so} not built: {ini.path} skipped", flush=True)
        return None
    csv_path = os.path.join(a.out, ini.stem + a.csv_suffix + ".csv")
    print(f"# {os.path.relpath(ini.path, ROOT)} -> {csv_path} ({a.mode}{', quick' if a.quick else ''})", flush=True)
    b, fatal = None, False
    try:
        b = TorchBench(so, csv_path, a.run_id, a.seed, a.mode, a.device, a.quick)
        if not a.meta_done:
            a.meta_done = True
            if meta_is_klabs(a.out):
                print(f"# {a.out}/meta.ini: klab's own run's, kept", flush=True)
            else:
                b.bench.write_meta(a.out, torch_meta(torch))
        for c, dts in cases:
            s = spec_of(m, c)
            if s.skip:
                print(f"# {c.name}: skipped: {s.skip}", flush=True)
                continue
            for dt in dts:
                t0 = time.monotonic()
                if a.wall_s and t0 - START > a.wall_s:
                    print(f"# {c.name} {dt}: not run: --wall-s {a.wall_s:.0f} spent", flush=True)
                    continue
                phases.units += 1
                if not b.bench.begin_case(ini.file, c.index, dt, a.budget_ms):
                    continue
                t = {n: b.tensor(n, shape) for n, shape in s.tensors.items()}
                why = s.check(t) if s.check else None
                if why:
                    # the plugin's rows of this unit would carry the INI's name for another geometry:
                    # stop here, leaving the CSV as .partial
                    raise Fatal(f"{ini.plugin} case {c.name} {dt}: {why}")
                for label, fn, how, make in s.ops:
                    f, args = callable_of(fn, how), make(t)
                    b.external(row_label(a, label, s), lambda f=f, args=args: f(*args),
                               copy=lambda probe=False, f=f, make=make, t=t: copy_of(make, t, f, probe),
                               compiled=how != EAGER)
                b.finish()
                print(f"# {c.name} {dt}: {time.monotonic() - t0:.1f} s", flush=True)
    except (bench.BenchError, Fatal) as e:
        fatal = True  # the CSV stays .partial: the plugin's rows cannot go on
        raise e if isinstance(e, Fatal) else Fatal(str(e)) from None
    finally:
        if b:
            phases.add(b.bench, b.compile_ms)
            if not fatal:
                b.bench.close()
    return csv_path


def check():
    """klab --with-torch asks this before its GPU work: the last line printed is the answer."""
    try:
        torch = torch_cases.need_torch()
    except Exception as e:  # ImportError, or a torch that fails to load its libraries
        print(f"no torch in {sys.executable}: {e}")
        return 3
    if not torch.cuda.is_available():
        print(f"torch {torch.__version__} sees no CUDA device: timing needs a GPU")
        return 3
    print(f"torch {torch.__version__} on {torch.cuda.get_device_name(0)}")
    return 0


def arguments(argv):
    ap = argparse.ArgumentParser(prog="torch_rows.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--out", default="out/torch")
    ap.add_argument("--run-id", default="torch")
    ap.add_argument("--seed", type=int, default=20261122)
    ap.add_argument("--plugins", type=lambda s: [p for p in s.split(",") if p], default=[],
                    help="plugins, each with its ini/<plugin>.ini (default: every plugin with a PyTorch module "
                         "in the build's plugin folder)")
    ap.add_argument("--ini", action="append", help="an INI instead (repeatable; each names its plugin)")
    ap.add_argument("--cases", type=lambda s: [c for c in s.split(",") if c], default=[],
                    help="only these cases; a name that is no case of the INI but a shape adds that shape")
    ap.add_argument("--dtypes", type=lambda s: [d for d in s.split(",") if d], default=[])
    ap.add_argument("--units", metavar="FILE", help="only the units of FILE, one `case<TAB>dtype` a line")
    ap.add_argument("--budget-ms", type=float, default=0, help="each case's sampling budget instead of the INI's")
    ap.add_argument("--quick", action="store_true",
                    help="klab's quick rule: few samples, a short budget; every row flagged 'quick'")
    ap.add_argument("--phases-out", metavar="FILE",
                    help="at the end, an INI file whose [phases] says where the time went (ms, all units)")
    ap.add_argument("--wall-s", type=float, default=0,
                    help="begin no unit after this many seconds (0: no limit); the units left are listed as not run")
    ap.add_argument("--mode", choices=("plain", "batched", "hot"), default="plain",
                    help="klab's timing mode (docs/timing.md); batched replays each callable's CUDA graph")
    ap.add_argument("--dry-run", action="store_true", help="print the cases and callables; needs no torch or GPU")
    ap.add_argument("--compare", nargs="+", metavar="CSV", help="print the comparison of CSVs this script wrote")
    ap.add_argument("--check", action="store_true",
                    help="one line: torch's version and GPU (exit 0), or why there are none (exit 3)")
    ap.add_argument("--so", action="append", default=[], metavar="PLUGIN=PATH",
                    help="the plugin's library instead of <build>/plugins/PLUGIN.so (repeatable)")
    ap.add_argument("--csv-suffix", default="", help="each CSV is <out>/<INI stem><suffix>.csv")
    ap.add_argument("--device", type=int, default=0, help="the CUDA device")
    ap.add_argument("--ini-cases-only", action="store_true",
                    help="a --cases name that is no case of an INI selects nothing there (klab's --case)")
    a = ap.parse_args(argv)
    a.so = dict(s.split("=", 1) for s in a.so if "=" in s)
    a.meta_done = False
    return a


def main(argv=None):
    a = arguments(argv)
    if a.check:
        return check()
    if a.compare:
        return 1 if sum(compare(p) for p in a.compare) else 0
    bench.use_build(a.build)
    try:
        work = plan(a)
        if a.dry_run:
            return dry_run(a, work)
    except (IniError, UnitsError, ModuleError, bench.BenchError) as e:
        print(f"torch_rows: {e}", file=sys.stderr)
        return 2
    torch = torch_cases.need_torch()
    torch.cuda.set_device(a.device)
    os.makedirs(a.out, exist_ok=True)
    print(f"# torch {torch.__version__}, {torch.cuda.get_device_name(a.device)}", flush=True)
    bad, phases = 0, Phases()
    try:
        for ini, m, cases in work:
            path = run_ini(a, ini, m, cases, phases)
            if path:
                bad += compare(path)
    except (Fatal, bench.BenchError) as e:  # BenchError: kb_close could not complete a CSV
        print(f"torch_rows: {e}", file=sys.stderr)
        return 1
    finally:
        if a.phases_out:
            phases.write(a.phases_out)
    return 1 if bad else 0
