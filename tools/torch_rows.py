"""PyTorch beside klab, measured by klab: the same cases, the same tensors, the same float64 reference,
sampled in the same rounds after the same L2 flush between the same CUDA events (libklab_bench).

    python3 tools/torch_rows.py --build build-gpu --out out/torch                 every plugin of TABLE, ini/<plugin>.ini
    python3 tools/torch_rows.py --plugins softmax,rmsnorm [--cases A,B] [--dtypes fp16]
    python3 tools/torch_rows.py --ini experiments/rowsweep_softmax.ini            another INI (it names its plugin)
    python3 tools/torch_rows.py --dry-run                                         the cases and callables; no torch, no GPU
    python3 tools/torch_rows.py --compare out/torch/*.csv                         the comparison below, again
    python3 tools/torch_rows.py --check                                           one line: torch and its GPU, or why not

`klab --with-torch` runs this script in klab's run folder with klab's selection (--ini, --so, --cases with
--ini-cases-only, --dtypes, --mode, --device, --run-id, --seed, --csv-suffix .torch); TABLE below is the one
list of the plugins that have PyTorch callables.

Each INI's cases are read from the file (shape, dtypes, param.*, dim.*, budget_ms, [defaults]); a
--cases name that is not a case of the INI but is a shape (1x4096) becomes a case of that shape with
the INI's [defaults], as a [case 1x4096] section would. Writes <out>/<INI stem>.csv in klab's CSV
columns: klab's profiles, klab's copy at the same bytes (limit_gbps), and the PyTorch callables as
extra rows (flags 'external'); then prints, per case and dtype, each callable against klab's fused
profile (the fastest klab profile where there is no 'fused'). A claim "klab beats torch.compile" is a
ratio of two rows of one file.

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

What libklab_bench carries of a case (core/klab_bench.c, kb_begin): its name, shape ("" for a case
sized by dim.* alone), one dtype, param.*, dim.* and budget_ms; the plugin's setup sees the case as a
klab run gives it. Not carried: `profiles` (every profile of the plugin is timed), `config`, `steps`,
warmup/min_reps/max_reps/precision (klab_bench's own 10, 20, 5000, 0.5 %).

The GEMM family (matmul_h200, fp8_gemm, fused_gated_mlp) is compiled twice where a GEMM is the point:
"torch.compile" is the default mode, as everywhere else in this file and in the anchors
(../shared/anchors: torch.compile(fn, dynamic=False)); "torch.compile-max-autotune" is
mode="max-autotune-no-cudagraphs". In the default mode Inductor calls cuBLAS for every mm, so a compiled
matmul is the cublas row again; max-autotune times Triton GEMM templates against cuBLAS and may fuse a
pointwise epilogue into a template: the strongest PyTorch a GEMM kernel can be set beside. Without
CUDA graphs, because klab times the callable itself (its stream, its rounds, and under --mode batched its
own torch.cuda.CUDAGraph): Inductor's graph trees would copy inputs into static buffers and replay a graph
of their own. The cost is compile time, ~20-40 s a shape on an H200 (tools/gpu-run.sh gemm-torch).
--wall-s bounds a run: once that many seconds have passed, the units not begun are listed as not run.
"""
import argparse
import csv
import ctypes
import gc
import math
import os
import re
import shlex
import sys
import time

from klab_ini import Ini, IniError, parse_shape  # noqa: F401  (torch_decode imports them from here)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
START = time.monotonic()  # --wall-s counts from here
torch = None  # imported by need_torch(): --dry-run works where there is no torch
F = None


def need_torch():
    global torch, F
    if torch is None:
        import torch as t
        import torch.nn.functional as f
        import torch._dynamo

        torch._dynamo.config.recompile_limit = 256  # dynamic=False: one graph a shape and dtype
        torch._dynamo.config.accumulated_recompile_limit = 4096
        torch, F = t, f
    return torch


# ---- klab's INI files: tools/klab_ini.py (one reader for the Python tools) -----------------------------------


# ---- the PyTorch callables ----------------------------------------------------------------------------------
# Every callable computes into tensors of its own (never the case's outputs) and returns them, the output
# klab compares first; the case's inputs are the plugin's own tensors, seen by torch without a copy.

def softmax(x):
    return torch.softmax(x, -1)  # F.softmax is this same function


def swiglu(g, u):
    return F.silu(g) * u


def rms_eager(x, w, eps):
    """The framework's sequence, as the anchors define it: float math, two roundings."""
    xf = x.float()
    return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)).to(x.dtype) * w


def rms_F(x, w, eps):
    return F.rms_norm(x, (x.shape[-1],), w, eps)


def rms_residual(x, r, w, eps):
    """h = x + r, then F.rms_norm of h: both outputs written; y first, as the plugin makes them."""
    h = x + r
    return F.rms_norm(h, (h.shape[-1],), w, eps), h


def rms_rope(x, w, pos, cos, sin, eps, head_dim, half):
    """RMSNorm (the framework's sequence, rounded to the dtype as the plugin's baseline rounds t), then
    RoPE per head of head_dim at each token's position, from the plugin's own cos/sin caches (float,
    positions x head_dim/2) and positions (int32). half: pairs (i, i + head_dim/2), rotate_half
    (LLaMA); else (2i, 2i + 1), interleaved (GPT-J). Rotation in float, one rounding."""
    t = rms_eager(x, w, eps)
    tokens, hidden = t.shape
    v = t.float().view(tokens, hidden // head_dim, head_dim)
    c = cos.index_select(0, pos).unsqueeze(1)
    s = sin.index_select(0, pos).unsqueeze(1)
    if half:
        a, b = v[..., : head_dim // 2], v[..., head_dim // 2:]
        y = torch.cat((a * c - b * s, b * c + a * s), -1)
    else:
        a, b = v[..., 0::2], v[..., 1::2]
        y = torch.stack((a * c - b * s, b * c + a * s), -1).flatten(-2)
    return y.view(tokens, hidden).to(x.dtype)


def reduce_sum(x):
    return torch.sum(x, -1, dtype=torch.float32)  # a vector (rank 1): the one value


def reduce_max(x):
    return torch.amax(x, -1).float()


def matmul(a, b):
    return torch.matmul(a, b)


E4M3_MAX = 448.0  # float8_e4m3fn's largest finite value


def fp8_quantise(x):
    """x (bf16) to float8_e4m3fn with one scale for the tensor, on every call, as a PyTorch user writes it
    (torchao's tensorwise recipe): 448 / amax, the product saturated to +-448 (PyTorch's cast gives NaN
    past 480, it does not saturate), and the dequantisation scale amax / 448 that _scaled_mm takes."""
    amax = x.abs().amax().float().clamp(min=1e-12)
    scale = E4M3_MAX / amax
    return (x.float() * scale).clamp(-E4M3_MAX, E4M3_MAX).to(torch.float8_e4m3fn), scale.reciprocal()


def fp8_each_call(a, w, fast_accum):
    """D = A W^T through fp8 from the bf16 A (m x k) and W (n x k), both quantised on every call."""
    qa, sa = fp8_quantise(a)
    qw, sw = fp8_quantise(w)
    return torch._scaled_mm(qa, qw.t(), scale_a=sa, scale_b=sw, out_dtype=torch.bfloat16, use_fast_accum=fast_accum)


def fp8_prequant(qa, qw, sa, sw, fast_accum):
    """The same on the plugin's own pre-quantised e4m3 A and W and their per-tensor scales."""
    return torch._scaled_mm(qa, qw.t(), scale_a=sa, scale_b=sw, out_dtype=torch.bfloat16, use_fast_accum=fast_accum)


def gated_silu(x, wg, wu):
    return F.silu(x @ wg.T) * (x @ wu.T)


def gated_gelu(x, wg, wu):
    return F.gelu(x @ wg.T) * (x @ wu.T)  # approximate="none": erf, as the plugin's reference


def copy(x, out):
    return out.copy_(x)  # torch's copy_ of one contiguous tensor into another is the driver's memcpy


def add(a, b):
    return torch.add(a, b)


EAGER, COMPILED, AUTOTUNED = "eager", "compile", "max-autotune"
COMPILE_MODE = {COMPILED: None, AUTOTUNED: "max-autotune-no-cudagraphs"}


class Spec:
    """One case's PyTorch side: the case's tensors by name with the shapes torch sees them in (-1: from the
    tensor's element count), the arguments made of them, the callables (label, function, how[, make]), and
    a reason when the case has none. make(t) turns the named tensors into the arguments; an op that takes
    other arguments than the rest names its own make."""

    def __init__(self, tensors=None, make=None, ops=(), skip=None, suffix="", check=None, notes=()):
        self.tensors, self.make, self.skip = tensors or {}, make, skip
        self.ops = [op if len(op) == 4 else (*op, make) for op in ops]
        self.suffix = suffix  # appended to every label: what the row's verification does not cover
        self.check = check    # check(t) -> None or why the tensors the plugin made are not the case's
        self.notes = list(notes)


def spec_softmax(c):
    return Spec({"x": c.dims}, lambda t: (t["x"],),
                [("torch.softmax", softmax, EAGER), ("torch.compile", softmax, COMPILED)])


def spec_swiglu(c):
    layout = c.params.get("layout", "split")
    if layout == "packed":
        if c.cols % 2:
            return Spec(skip=f"packed width {c.cols} is odd (the plugin refuses it)")
        n = c.cols // 2
        tensors = {"x": (c.rows, c.cols)}
        make = lambda t: (t["x"][:, :n], t["x"][:, n:])  # views: row r's gate, then its up
    else:
        tensors = {"gate": (c.rows, c.cols), "up": (c.rows, c.cols)}
        make = lambda t: (t["gate"], t["up"])
    return Spec(tensors, make, [("torch.eager", swiglu, EAGER), ("torch.compile", swiglu, COMPILED)],
                notes=[f"layout {layout}"])


def spec_reduction(c):
    op = c.params.get("op", "sum")
    fn, label = {"sum": (reduce_sum, "torch.sum"), "max": (reduce_max, "torch.amax")}.get(op, (None, None))
    if fn is None:
        return Spec(skip=f"param.op = {op}: no PyTorch callable")
    # rank 1: the whole vector (dim=-1 of a vector is all of it); rank 2+: one value a row
    shape = (c.cols,) if len(c.dims) == 1 else (c.rows, c.cols)
    return Spec({"x": shape}, lambda t: (t["x"],), [(label, fn, EAGER), ("torch.compile", fn, COMPILED)])


def spec_rmsnorm(c):
    eps = float(c.params.get("eps", "1e-6"))  # RMS_DEFAULT_EPS (plugins/lib/row/rms.h)
    x = (c.rows, c.cols)
    if c.params.get("residual", "0") == "1":
        # libklab_bench compares an external's first output only (inst_compare_external: out[0]), so
        # h = x + r is written but not checked; the label says so, since the row's flags are klab's
        return Spec({"x": x, "r": x, "w": (c.cols,)}, lambda t: (t["x"], t["r"], t["w"], eps),
                    [("F.rms_norm", rms_residual, EAGER), ("torch.compile", rms_residual, COMPILED)],
                    suffix="[h-unverified]", notes=["residual: y verified, h written and not compared"])
    return Spec({"x": x, "w": (c.cols,)}, lambda t: (t["x"], t["w"], eps),
                [("torch.compile", rms_eager, COMPILED), ("F.rms_norm", rms_F, EAGER),
                 ("torch.eager", rms_eager, EAGER)])


def spec_rmsnorm_rope(c):
    """The geometry as plugins/rmsnorm_rope/rmsnorm_rope.h reads the case: dim.head_dim (default 128);
    seq from a BxSxH shape, else dim.seq (default 1); dim.cache (default max(seq, 4096)). After set-up the
    tables say which head_dim and cache the plugin used (check), so a geometry read differently here stops
    the run instead of mislabelling rows."""
    if len(c.dims) not in (2, 3):
        return Spec(skip=f"rank {len(c.dims)}: the plugin takes BxSxH or TxH")
    seq = c.dims[1] if len(c.dims) == 3 else c.named.get("seq", 1)
    cache = c.named.get("cache", max(seq, 4096))
    eps = float(c.params.get("eps", "1e-6"))
    d, half = c.named.get("head_dim", 128), c.params.get("layout", "half") == "half"
    tokens, hidden = c.rows, c.cols

    def check(t):
        rows = t["cos"].shape[0]
        # position 1, pair 0 is at angle 1 in every RoPE (base^0): the row length of the table is head_dim/2
        if rows != cache or abs(float(t["cos"][1, 0]) - math.cos(1.0)) > 1e-6 \
                or abs(float(t["cos"][0, d // 2 - 1]) - 1.0) > 1e-6:
            return (f"the plugin's cos table is not {cache} positions x {d // 2} pairs "
                    f"(cos[1,0] = {float(t['cos'][1, 0]):.6f}, cos(1) = {math.cos(1.0):.6f})")
        return None

    return Spec({"x": (tokens, hidden), "w": (hidden,), "pos": (tokens,), "cos": (-1, d // 2),
                 "sin": (-1, d // 2)},
                lambda t: (t["x"], t["w"], t["pos"], t["cos"], t["sin"], eps, d, half),
                [("torch.eager", rms_rope, EAGER), ("torch.compile", rms_rope, COMPILED)], check=check,
                notes=[f"head_dim {d}, {'half' if half else 'interleaved'}, cache {cache}"])


def spec_vector_add(c):
    op = c.params.get("op", "copy")
    n = math.prod(c.dims)
    if op == "copy":
        return Spec({"a": (n,)}, lambda t: (t["a"], torch.empty_like(t["a"])), [("torch.copy_", copy, EAGER)])
    if op == "add":
        return Spec({"a": (n,), "b": (n,)}, lambda t: (t["a"], t["b"]), [("torch.add", add, EAGER)])
    return Spec(skip=f"param.op = {op}: no PyTorch callable")


def named_dims(c, names, plugin):
    """The case's dim.NAME values in the order of names, or the Spec that skips it (the plugin refuses it)."""
    missing = [n for n in names if n not in c.named]
    if missing:
        return None, Spec(skip=f"{plugin} needs " + ", ".join(f"dim.{n}" for n in missing))
    return [c.named[n] for n in names], None


def spec_matmul_h200(c):
    """C (m x n) = A (m x k) B (k x n), all row-major, as torch.matmul computes it (plugins/matmul_h200/
    matmul_h200.h): the plugin's a and b are torch.matmul's operands as they lie. No default-mode compile:
    it would lower to the same cuBLAS call as torch.matmul."""
    dims, skip = named_dims(c, "mnk", "matmul_h200")
    if skip:
        return skip
    m, n, k = dims
    return Spec({"a": (m, k), "b": (k, n)}, lambda t: (t["a"], t["b"]),
                [("torch.matmul", matmul, EAGER), ("torch.compile-max-autotune", matmul, AUTOTUNED)])


def spec_fp8_gemm(c):
    """D (m x n, bf16) = A (m x k) W (n x k)^T from the bf16 a and w (plugins/fp8_gemm/fp8_gemm.h); the
    case's dtype fp8e4m3 is the precision the GEMM computes in, not a tensor's. Quantised on every call
    (eager, and torch.compile of the same function), and torch._scaled_mm on the plugin's own setup-
    quantised a_e4m3, w_e4m3 and their dequantisation scales (scales[0] and scales[4], FP8Q_SCALE_STRIDE
    apart): the pairs autoquant and prequant stand beside. param.fast_accum is _scaled_mm's use_fast_accum."""
    dims, skip = named_dims(c, "mnk", "fp8_gemm")
    if skip:
        return skip
    m, n, k = dims
    fast = c.params.get("fast_accum", "1") == "1"
    each = {"a": (m, k), "w": (n, k)}
    pre = {"a_e4m3": (m, k), "w_e4m3": (n, k), "scales": (8,)}
    return Spec({**each, **pre}, None,
                [("torch.fp8-each-call", fp8_each_call, EAGER, lambda t: (t["a"], t["w"], fast)),
                 ("torch.compile", fp8_each_call, COMPILED, lambda t: (t["a"], t["w"], fast)),
                 ("torch._scaled_mm", fp8_prequant, EAGER,
                  lambda t: (t["a_e4m3"], t["w_e4m3"], t["scales"][0], t["scales"][4], fast))],
                notes=["e4m3, one scale a tensor"])


def spec_fused_gated_mlp(c):
    """out (m x f) = act(x Wg^T) * (x Wu^T), x m x k and Wg, Wu f x k (nn.Linear weights), bf16
    (plugins/fused_gated_mlp/fused_gated_mlp.h); act from param.activation: silu, or gelu in its erf form
    as the plugin's reference and kernels compute it."""
    dims, skip = named_dims(c, "mkf", "fused_gated_mlp")
    if skip:
        return skip
    m, k, f = dims
    act = c.params.get("activation", "silu")
    fn = {"silu": gated_silu, "gelu": gated_gelu}.get(act)
    if fn is None:
        return Spec(skip=f"param.activation = {act}: no PyTorch callable")
    return Spec({"x": (m, k), "w_gate": (f, k), "w_up": (f, k)}, lambda t: (t["x"], t["w_gate"], t["w_up"]),
                [("torch.eager", fn, EAGER), ("torch.compile", fn, COMPILED),
                 ("torch.compile-max-autotune", fn, AUTOTUNED)])


# plugin -> its cases' PyTorch side; its INI is ini/<plugin>.ini unless --ini names another
TABLE = {
    "softmax": spec_softmax,
    "swiglu": spec_swiglu,
    "reduction": spec_reduction,
    "rmsnorm": spec_rmsnorm,
    "rmsnorm_rope": spec_rmsnorm_rope,
    "vector_add": spec_vector_add,
    "matmul_h200": spec_matmul_h200,
    "fp8_gemm": spec_fp8_gemm,
    "fused_gated_mlp": spec_fused_gated_mlp,
}
# the plugins whose cases are sized by dim.* (a shape, where a case's name gives one, means nothing to them)
BY_DIMS = {"matmul_h200", "fp8_gemm", "fused_gated_mlp"}


def spec_of(plugin, c):
    """The case's Spec, with what kb_begin does not carry said as notes (or as the skip)."""
    if c.dims is None and plugin not in BY_DIMS:
        return Spec(skip="no shape (sized by dim.* alone)")
    s = TABLE[plugin](c)
    if c.config or c.steps:
        s.notes.append("config/steps not carried by kb_begin: the plugin's own choice")
    return s


# ---- libklab_bench ------------------------------------------------------------------------------------------

# klab_dtype's numbering (klab/plugin.h), by name; torch dtypes are looked up by these names
CODES = {"float32": 0, "float16": 1, "bfloat16": 2, "float8_e4m3fn": 3, "float8_e5m2": 4, "int32": 5, "int64": 6}
LAUNCH = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p)
RESULT = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p),
                          ctypes.POINTER(ctypes.c_int), ctypes.POINTER(ctypes.c_size_t))
LAUNCH_COPY = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int)
REPLICATE = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_int, ctypes.POINTER(ctypes.c_double))
# the most a rotating callable's copies may occupy (klab's own rotation aims at ~1.25 GB: docs/timing.md)
MAX_COPY_BYTES = 4 << 30


def load(build):
    lib = ctypes.CDLL(os.path.join(build, "libklab_bench.so"))
    lib.kb_open.restype = ctypes.c_void_p
    lib.kb_open.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulonglong]
    lib.kb_set_mode.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
    lib.kb_write_meta.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_int,
                                  ctypes.POINTER(ctypes.c_char_p), ctypes.POINTER(ctypes.c_char_p), ctypes.c_int]
    lib.kb_begin.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p,
                             ctypes.c_double]
    lib.kb_tensor.restype = ctypes.c_void_p
    lib.kb_tensor.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_int),
                              ctypes.POINTER(ctypes.c_size_t)]
    lib.kb_stream.restype = ctypes.c_void_p
    lib.kb_stream.argtypes = [ctypes.c_void_p]
    lib.kb_add_external.argtypes = [ctypes.c_void_p, ctypes.c_char_p, LAUNCH, RESULT, ctypes.c_void_p]
    lib.kb_add_external_rotating.argtypes = [ctypes.c_void_p, ctypes.c_char_p, LAUNCH_COPY, RESULT, REPLICATE,
                                             ctypes.c_void_p]
    lib.kb_finish.argtypes = [ctypes.c_void_p]
    lib.kb_close.argtypes = [ctypes.c_void_p]
    lib.kb_error.restype = ctypes.c_char_p
    lib.kb_error.argtypes = [ctypes.c_void_p]
    return lib


class Tensor:
    """A klab tensor seen by torch without a copy (__cuda_array_interface__; bf16 travels as int16 and
    fp8 as uint8, the interface having no name for them)."""

    TYPESTR = {"float32": "<f4", "float16": "<f2", "bfloat16": "<i2", "float8_e4m3fn": "|u1",
               "float8_e5m2": "|u1", "int32": "<i4", "int64": "<i8"}
    CARRIED = ("bfloat16", "float8_e4m3fn", "float8_e5m2")

    def __init__(self, ptr, dtype, shape):
        self.__cuda_array_interface__ = {"shape": tuple(shape), "typestr": self.TYPESTR[dtype],
                                         "data": (ptr, False), "version": 3, "strides": None}
        self.dtype = dtype

    def torch(self):
        t = torch.as_tensor(self, device="cuda")
        return t.view(getattr(torch, self.dtype)) if self.dtype in self.CARRIED else t


class Fatal(Exception):
    """The session cannot go on (kb_* failed, or a case is not what its rows would say)."""


class Bench:
    MAX_UNITS = 64  # CFG_MAX_CASES: kb_begin's (case, dtype) units in one session

    def __init__(self, lib, so, csv_path, run_id, seed, mode="plain", device=0):
        self.lib = lib
        self.keep = []  # ctypes callbacks and outputs must outlive the C side's use of them
        # klab's copy at the same bytes (limit_gbps) is the host's own kernel: nothing to point at
        self.s = lib.kb_open(so.encode(), device, csv_path.encode(), run_id.encode(), seed)
        if not self.s:
            raise Fatal("kb_open: " + lib.kb_error(None).decode())
        self.check(lib.kb_set_mode(self.s, mode.encode()), "kb_set_mode")
        self.mode = mode
        self.streams = {}

    def write_meta(self, folder, entries, csv_schema=0):
        """<folder>/meta.ini as klab writes a run's (kb_write_meta): this session's run id, seed, GPU and
        mode, this process's command line, then `entries` {"SECTION.KEY": value}. csv_schema 0: klab's
        own, the schema of the rows this session writes. Once per folder, before the first begin(). A
        meta.ini that cannot be written is said and the rows go on, as klab's own run does."""
        keys, values = [k.encode() for k in entries], [str(v).encode() for v in entries.values()]
        command = shlex.join([os.path.basename(sys.executable)] + sys.argv)
        if self.lib.kb_write_meta(self.s, folder.encode(), command.encode(), csv_schema,
                                  (ctypes.c_char_p * len(keys))(*keys), (ctypes.c_char_p * len(values))(*values),
                                  len(keys)):
            print(f"{os.path.basename(sys.argv[0])}: {self.lib.kb_error(self.s).decode()}", file=sys.stderr)

    def check(self, rc, what):
        if rc != 0:
            raise Fatal(f"{what}: {self.lib.kb_error(self.s).decode()}")

    def begin(self, c, dtype, budget_ms):
        """False when the case did not set up and verify: its rows (in the CSV) say why."""
        if self.lib.kb_begin(self.s, c.name.encode(), c.kb_shape().encode(), dtype.encode(),
                             c.kb_params().encode(), budget_ms):
            err = self.lib.kb_error(self.s).decode()
            print(err, file=sys.stderr)
            if "context was lost" in err or not err.startswith("kb_begin: case"):
                raise Fatal(err)
            return False
        return True

    def tensor(self, name, shape):
        code, count = ctypes.c_int(), ctypes.c_size_t()
        ptr = self.lib.kb_tensor(self.s, name.encode(), ctypes.byref(code), ctypes.byref(count))
        if not ptr:
            raise Fatal("kb_tensor: " + self.lib.kb_error(self.s).decode())
        shape = list(shape)
        if -1 in shape:
            rest = math.prod(d for d in shape if d != -1)
            shape[shape.index(-1)] = count.value // rest if rest and count.value % rest == 0 else -1
        if math.prod(shape) != count.value:
            raise Fatal(f"tensor '{name}' has {count.value} elements, not the {tuple(shape)} this case implies")
        dtype = next(k for k, v in CODES.items() if v == code.value)
        return Tensor(ptr, dtype, shape).torch()

    def external(self, label, fn, copy=None):
        """fn() computes the case's output; it is run once and verified, then timed on klab's stream.
        Batched: what is verified and timed is fn captured in a CUDA graph (see the module's note); with
        copy (a function returning (fn', bytes): fn over fresh clones of the inputs, and the bytes those
        inputs and its output occupy), klab rotates a batch through that many graphs, each on its own
        copy, as it rotates its own profiles' tensors: every run of a batch reads cold data."""
        if self.mode == "batched" and copy is not None:
            return self.external_rotating(label, fn, copy)
        if self.mode == "batched":
            try:
                fn = graphed(fn)
            except Exception as e:  # its row fails with the reason, the others go on
                print(f"{label}: capturing it in a CUDA graph: {e}", file=sys.stderr)
                fn = failing(e)

        cl, cr = LAUNCH(lambda user, stream: self.run_on(label, stream, fn)), RESULT(self.result_of(label, fn))
        self.keep += [cl, cr]
        self.check(self.lib.kb_add_external(self.s, label.encode(), cl, cr, None), "kb_add_external")

    def external_rotating(self, label, fn, copy):
        try:
            graphs = [graphed(fn)]
        except Exception as e:  # its row fails with the reason, the others go on
            print(f"{label}: capturing it in a CUDA graph: {e}", file=sys.stderr)
            graphs = [failing(e)]

        def replicate(user, n, footprint):
            try:
                _, each = copy(probe=True)
                if n * each > MAX_COPY_BYTES:
                    print(f"{label}: {n} copies of {each} bytes exceed {MAX_COPY_BYTES}: not rotated", file=sys.stderr)
                    return -1
                while len(graphs) < n:
                    f, _ = copy()
                    graphs.append(graphed(f))
                # one replay of each now: a graph's first launch uploads it, and uploads left to the
                # first timed batch could run beside it
                for g in graphs:
                    g()
                torch.cuda.synchronize()
                footprint[0] = float(n * each)
                return 0
            except Exception as e:
                print(f"{label}: making {n} copies: {e}", file=sys.stderr)
                return -1

        cl = LAUNCH_COPY(lambda user, stream, replica: self.run_on(label, stream, graphs[replica % len(graphs)]))
        cr, cp = RESULT(self.result_of(label, lambda: graphs[0]())), REPLICATE(replicate)
        self.keep += [cl, cr, cp, graphs]
        self.check(self.lib.kb_add_external_rotating(self.s, label.encode(), cl, cr, cp, None),
                   "kb_add_external_rotating")

    def run_on(self, label, stream, fn):
        """fn() enqueued on klab's stream (a torch ExternalStream of it); 0, or -1: a Python error must not
        unwind through C."""
        try:
            s = self.streams.get(stream)
            if s is None:
                s = self.streams[stream] = torch.cuda.ExternalStream(stream)
            with torch.cuda.stream(s):
                fn()
            return 0
        except Exception as e:
            print(f"{label}: {e}", file=sys.stderr)
            return -1

    def result_of(self, label, fn):
        """The kb_result_fn of fn: its first output (klab's out[0]), kept alive, as pointer, dtype, count."""
        def result(user, pptr, pdtype, pcount):
            try:
                out = fn()
                out = (out[0] if isinstance(out, tuple) else out).contiguous()
                torch.cuda.synchronize()
                self.keep.append(out)
                pptr[0] = out.data_ptr()
                pdtype[0] = CODES[str(out.dtype).replace("torch.", "")]
                pcount[0] = out.numel()
                return 0
            except Exception as e:
                print(f"{label}: {e}", file=sys.stderr)
                return -1
        return result

    def finish(self):
        self.check(self.lib.kb_finish(self.s), "kb_finish")
        self.keep = [k for k in self.keep if isinstance(k, (LAUNCH, RESULT))]
        # the unit's rotating graphs (and their memory pools) go now, between units: left to the
        # collector they were destroyed inside a later unit's timed launches, whose escape check then
        # saw ~15 us of device work past the events (H200, 2026-11-22)
        gc.collect()
        torch.cuda.synchronize()

    def close(self):
        self.check(self.lib.kb_close(self.s), "kb_close")


def copy_of(make, t, f, probe=False):
    """f over fresh clones of the case's inputs t (same contents), its arguments made by make, and the
    bytes one copy occupies: the inputs and f's output. probe: only the bytes, nothing cloned."""
    inputs = sum(v.numel() * v.element_size() for v in t.values())
    out = f(*make(t))
    outs = out if isinstance(out, tuple) else (out,)
    each = inputs + sum(o.numel() * o.element_size() for o in outs if hasattr(o, "numel"))
    if probe:
        return None, each
    args = make({n: v.clone() for n, v in t.items()})
    return (lambda: f(*args)), each


WARMUP_STREAM = []  # one side stream for every warm-up of the process (graphed)


def graphed(fn):
    """fn captured once into a torch.cuda.CUDAGraph; the returned callable replays it on the current
    stream and returns its (static) output. Warm-up on a side stream first, as torch's capture needs.
    One side stream serves every capture: a new one each time left hundreds of live streams in a
    batched process (a graph per rotated copy), and cudaDeviceSynchronize, which the escape check
    brackets each subject with, costs more with every stream: the likely cause of the sixth H200
    sitting's drift, subjects' excess climbing from ~0 to 26 us over a batched process while the
    reference stayed flat (docs/measurements/2026-11-22-h200-rows-3.md)."""
    if not WARMUP_STREAM:
        WARMUP_STREAM.append(torch.cuda.Stream())
    side = WARMUP_STREAM[0]
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            fn()
    torch.cuda.current_stream().wait_stream(side)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        out = fn()
    torch.cuda.synchronize()

    def replay():
        g.replay()
        return out

    replay.graph = g  # keep the graph (and its memory pool) alive with the callable
    # ... and fn, with every tensor it closes over: the graph reads their memory at each replay, and a
    # rotated copy's clones (copy_of) had no other owner. Freed, their blocks went back to the caching
    # allocator and the next copy's clones took them, so the copies' graphs read one another's memory
    # (the rotation was not cold). The batched units that died making their copies on the H200,
    # rmsnorm_rope 1x4096 (index_select's device assert: positions read as other bits) and softmax
    # 4096x1024 fp32 (an illegal address), run since fn is kept (2026-11-23-h200-15.md, call 3)
    replay.fn = fn
    return replay


def failing(e):
    def fn():
        raise RuntimeError(str(e))
    return fn


COMPILED_FNS = {}


def callable_of(fn, how):
    if how == EAGER:
        return fn
    if (fn, how) not in COMPILED_FNS:
        COMPILED_FNS[fn, how] = torch.compile(fn, dynamic=False, mode=COMPILE_MODE[how])
    return COMPILED_FNS[fn, how]


# ---- runs ---------------------------------------------------------------------------------------------------

def plan(a):
    """[(Ini, [cases])] from --ini or --plugins; raises IniError."""
    inis = []
    if a.ini:
        for p in a.ini:
            i = Ini(p, TABLE)
            if i.plugin in TABLE:
                inis.append(i)
            else:
                print(f"# {p}: plugin '{i.plugin}' has no PyTorch callables in TABLE: skipped", flush=True)
    else:
        for p in a.plugins:
            if p not in TABLE:
                raise IniError(f"--plugins: '{p}' has no PyTorch callables (known: {', '.join(TABLE)})")
            path = os.path.join(ROOT, "ini", p + ".ini")
            if not os.path.exists(path):
                print(f"# {p}: no {os.path.relpath(path, ROOT)}: skipped", flush=True)
                continue
            inis.append(Ini(path, TABLE))
    out = []
    for i in inis:
        cases = [c for c in i.select(a.cases, a.ini_cases_only) if a.units is None or dtypes_of(a, c)]
        if not cases:
            print(f"# {i.path}: no case selected: skipped", flush=True)
            continue
        units = sum(len(dtypes_of(a, c)) for c in cases)
        if units > Bench.MAX_UNITS:
            raise IniError(f"{i.path}: {units} (case, dtype) units; one libklab_bench session holds "
                           f"{Bench.MAX_UNITS}: narrow it with --cases or --dtypes")
        out.append((i, cases))
    return out


def row_label(a, label, s):
    """The row's profile: the callable, how it was launched, what its verification left out."""
    return label + ("@cudagraph" if a.mode == "batched" else "") + s.suffix


def dtypes_of(a, c):
    return [d for d in c.dtypes if (not a.dtypes or d in a.dtypes) and (a.units is None or (c.name, d) in a.units)]


def dry_run(a, work):
    print("# kb_begin carries a case's name, shape, dtype, param.*, dim.* and budget_ms; every profile of the"
          " plugin is timed, whatever `profiles` says")
    for ini, cases in work:
        print(f"{os.path.relpath(ini.path, ROOT)}  plugin {ini.plugin}  -> {ini.stem}{a.csv_suffix}.csv")
        for c in cases:
            s = spec_of(ini.plugin, c)
            budget = a.budget_ms or c.budget_ms
            head = f"  {c.name:<26} {c.shape if c.dims else '-':<14} {','.join(dtypes_of(a, c)) or '-':<15} {budget:>6.0f} ms"
            if s.skip:
                print(f"{head}  skipped: {s.skip}")
                continue
            labels = [row_label(a, op[0], s) for op in s.ops]
            params = " ".join([f"param.{k}={v}" for k, v in c.params.items()]
                              + [f"dim.{k}={v}" for k, v in c.named.items()])
            tensors = " ".join(f"{k}{list(v)}" for k, v in s.tensors.items())
            print(f"{head}  {', '.join(labels)}  [{tensors}] {params}"
                  + "".join(f"; {n}" for n in s.notes))
    if "torch" in sys.modules:  # the ctest runs this where torch may be missing: it must never need it
        print("error: --dry-run imported torch", file=sys.stderr)
        return 1
    return 0


def torch_meta():
    """What meta.ini's [torch] says of the PyTorch that made a folder's rows."""
    return {"torch.version": torch.__version__, "torch.cuda": torch.version.cuda or "none"}


def meta_is_klabs(folder):
    """True where <folder>/meta.ini is klab's own run's (klab --with-torch runs this script in its run
    folder, after writing it): it describes the run and is kept. One this script wrote has [torch]."""
    try:
        with open(os.path.join(folder, "meta.ini")) as f:
            return not re.search(r"^\[torch\]$", f.read(), re.M)
    except FileNotFoundError:
        return False


def run_ini(a, lib, ini, cases):
    """One INI's cases in one libklab_bench session; returns the CSV's path, or None when skipped. The
    first session of a run writes the folder's meta.ini (a.meta_done), unless klab's own is there; an
    earlier run of this script into the folder has its meta.ini replaced by this run's."""
    so = a.so.get(ini.plugin) or os.path.join(a.build, "plugins", ini.plugin + ".so")
    if not os.path.exists(so):
        print(f"# {ini.plugin}: {so} not built: {ini.path} skipped", flush=True)
        return None
    csv_path = os.path.join(a.out, ini.stem + a.csv_suffix + ".csv")
    b = Bench(lib, so, csv_path, a.run_id, a.seed, a.mode, a.device)
    print(f"# {os.path.relpath(ini.path, ROOT)} -> {csv_path} ({a.mode})", flush=True)
    try:
        if not a.meta_done:
            a.meta_done = True
            if meta_is_klabs(a.out):
                print(f"# {a.out}/meta.ini: klab's own run's, kept", flush=True)
            else:
                b.write_meta(a.out, torch_meta())
        for c in cases:
            s = spec_of(ini.plugin, c)
            if s.skip:
                print(f"# {c.name}: skipped: {s.skip}", flush=True)
                continue
            for dt in dtypes_of(a, c):
                t0 = time.monotonic()
                if a.wall_s and t0 - START > a.wall_s:
                    print(f"# {c.name} {dt}: not run: --wall-s {a.wall_s:.0f} spent", flush=True)
                    continue
                if not b.begin(c, dt, a.budget_ms or c.budget_ms):
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
                               copy=lambda probe=False, f=f, make=make, t=t: copy_of(make, t, f, probe))
                b.finish()
                print(f"# {c.name} {dt}: {time.monotonic() - t0:.1f} s", flush=True)
    except Fatal:
        raise
    except Exception:
        b.close()
        raise
    b.close()
    return csv_path


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


def check():
    """klab --with-torch asks this before its GPU work: the last line printed is the answer."""
    try:
        need_torch()
    except Exception as e:  # ImportError, or a torch that fails to load its libraries
        print(f"no torch in {sys.executable}: {e}")
        return 3
    if not torch.cuda.is_available():
        print(f"torch {torch.__version__} sees no CUDA device: timing needs a GPU")
        return 3
    print(f"torch {torch.__version__} on {torch.cuda.get_device_name(0)}")
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--out", default="out/torch")
    ap.add_argument("--run-id", default="torch")
    ap.add_argument("--seed", type=int, default=20261122)
    ap.add_argument("--plugins", type=lambda s: [p for p in s.split(",") if p], default=list(TABLE),
                    help="plugins, each with its ini/<plugin>.ini (default: every plugin of the table)")
    ap.add_argument("--ini", action="append", help="an INI instead (repeatable; each names its plugin)")
    ap.add_argument("--cases", type=lambda s: [c for c in s.split(",") if c], default=[],
                    help="only these cases; a name that is no case of the INI but a shape adds that shape")
    ap.add_argument("--dtypes", type=lambda s: [d for d in s.split(",") if d], default=[])
    ap.add_argument("--budget-ms", type=float, default=0, help="each case's sampling budget instead of the INI's")
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
    ap.add_argument("--units", metavar="FILE",
                    help="only these units, one 'case<TAB>dtype' a line (klab --with-torch --shard writes it)")
    a = ap.parse_args()
    a.so = dict(s.split("=", 1) for s in a.so if "=" in s)
    a.meta_done = False
    if a.units is not None:
        with open(a.units) as f:
            a.units = {tuple(line.rstrip("\n").split("\t")) for line in f if line.strip()}
    if a.check:
        return check()
    if a.compare:
        return 1 if sum(compare(p) for p in a.compare) else 0
    try:
        work = plan(a)
    except (IniError, ValueError) as e:
        print(f"torch_rows: {e}", file=sys.stderr)
        return 2
    if a.dry_run:
        return dry_run(a, work)
    need_torch()
    torch.cuda.set_device(a.device)
    os.makedirs(a.out, exist_ok=True)
    lib = load(a.build)
    print(f"# torch {torch.__version__}, {torch.cuda.get_device_name(a.device)}", flush=True)
    bad = 0
    for ini, cases in work:
        try:
            path = run_ini(a, lib, ini, cases)
        except Fatal as e:
            print(f"torch_rows: {e}", file=sys.stderr)
            return 1
        if path:
            bad += compare(path)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
