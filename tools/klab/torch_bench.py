"""PyTorch beside a plugin opened by libklab_bench: the case's tensors seen by torch without a copy, each callable
verified and timed by klab on klab's stream, and under --mode batched captured into CUDA graphs that
rotate through copies of the inputs as klab's own profiles rotate theirs.

Compile time is measured here, as the first call of each compiled callable (plain modes) or the
capture of its CUDA graph (batched), outside the library's calls: the phases libklab_bench times
(kb_phase_ms) never include it.
"""
import gc
import math
import sys
import time

from . import torch_cases
from .bench import Bench, BenchError
from .torch_cases import COMPILE_MODE, EAGER

# klab's dtype names as torch names them
TORCH_DTYPE = {"fp32": "float32", "fp16": "float16", "bf16": "bfloat16", "fp8e4m3": "float8_e4m3fn",
               "fp8e5m2": "float8_e5m2", "int32": "int32", "int64": "int64"}
# the most a rotating callable's copies may occupy (klab's own rotation aims at ~1.25 GB: docs/timing.md)
MAX_COPY_BYTES = 4 << 30


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
        torch = torch_cases.torch
        t = torch.as_tensor(self, device="cuda")
        return t.view(getattr(torch, self.dtype)) if self.dtype in self.CARRIED else t


WARMUP_STREAM = []  # one side stream for every warm-up of the process (graphed)


def graphed(fn):
    """fn captured once into a torch.cuda.CUDAGraph; the returned callable replays it on the current
    stream and returns its (static) output. Warm-up on a side stream first, as torch's capture needs.
    One side stream serves every capture: a new one each time left hundreds of live streams in a
    batched process (a graph per rotated copy), and cudaDeviceSynchronize, which the escape check
    brackets each subject with, costs more with every stream: the likely cause of the drift seen on
    the H200, subjects' excess climbing from ~0 to 26 us over a batched process while the reference
    stayed flat (docs/measurements/2026-11-22-h200-rows-3.md)."""
    torch = torch_cases.torch
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
        COMPILED_FNS[fn, how] = torch_cases.torch.compile(fn, dynamic=False, mode=COMPILE_MODE[how])
    return COMPILED_FNS[fn, how]


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


class TorchBench:
    """A plugin opened by libklab_bench (bench.Bench) with PyTorch callables added to its units; compile_ms
    sums the compiles."""

    def __init__(self, so, csv_path, run_id, seed, mode="plain", device=0, quick=False):
        self.bench = Bench(so, csv_path, run_id, seed, mode, device)
        if quick:
            self.bench.set_quick()
        self.mode = mode
        self.streams = {}
        self.outputs = []  # verified outputs: the library reads them after result() returns
        self.compile_ms = 0.0

    def tensor(self, name, shape):
        """The case's tensor `name` as torch sees it, in `shape` (-1: from the element count)."""
        ptr, dtype, count = self.bench.tensor(name)
        shape = list(shape)
        if -1 in shape:
            rest = math.prod(d for d in shape if d != -1)
            shape[shape.index(-1)] = count // rest if rest and count % rest == 0 else -1
        if math.prod(shape) != count:
            raise BenchError(f"tensor '{name}' has {count} elements, not the {tuple(shape)} this case implies")
        return Tensor(ptr, TORCH_DTYPE[dtype], shape).torch()

    def timed_compile(self, label, make):
        """make() (a first call, a graph capture) with its time in compile_ms; a failure is the
        callable that raises it, so its row fails with the reason and the others go on."""
        t0 = time.monotonic()
        try:
            fn = make()
            torch_cases.torch.cuda.synchronize()
        except Exception as e:
            print(f"{label}: {e}", file=sys.stderr)
            fn = failing(e)
        self.compile_ms += (time.monotonic() - t0) * 1e3
        return fn

    def external(self, label, fn, copy=None, compiled=False):
        """fn() computes the case's output; it is run once and verified, then timed on klab's stream.
        Batched: what is verified and timed is fn captured in a CUDA graph; with copy (a function
        returning (fn', bytes): fn over fresh clones of the inputs, and the bytes those inputs and its
        output occupy), klab rotates a batch through that many graphs, each on its own copy, as it
        rotates its own profiles' tensors: every run of a batch reads cold data. compiled: fn is a
        torch.compile callable, whose first call compiles it."""
        if self.mode == "batched":
            g = self.timed_compile(label, lambda: graphed(fn))
            if copy is not None:
                return self.external_rotating(label, g, copy)
            fn = g
        elif compiled:
            fn = self.timed_compile(label, lambda: (fn(), fn)[1])
        self.bench.add_external(label, lambda stream: self.run_on(stream, fn), self.result_of(fn))

    def external_rotating(self, label, first, copy):
        graphs = [first]

        def replicate(n):
            _, each = copy(probe=True)
            if n * each > MAX_COPY_BYTES:
                raise BenchError(f"{n} copies of {each} bytes exceed {MAX_COPY_BYTES}: not rotated")
            while len(graphs) < n:
                f, _ = copy()
                graphs.append(graphed(f))
            # one replay of each now: a graph's first launch uploads it, and uploads left to the
            # first timed batch could run beside it
            for g in graphs:
                g()
            torch_cases.torch.cuda.synchronize()
            return n * each

        self.bench.add_external_rotating(label, lambda stream, i: self.run_on(stream, graphs[i % len(graphs)]),
                                           self.result_of(lambda: graphs[0]()), replicate)
        self.bench.keep.append(graphs)

    def run_on(self, stream, fn):
        """fn() enqueued on klab's stream (a torch ExternalStream of it)."""
        torch = torch_cases.torch
        s = self.streams.get(stream)
        if s is None:
            s = self.streams[stream] = torch.cuda.ExternalStream(stream)
        with torch.cuda.stream(s):
            fn()

    def result_of(self, fn):
        """fn's first output (klab's out[0]), kept alive, as (pointer, dtype name, count)."""
        def result():
            out = fn()
            out = (out[0] if isinstance(out, tuple) else out).contiguous()
            torch_cases.torch.cuda.synchronize()
            self.outputs.append(out)
            return out.data_ptr(), str(out.dtype).replace("torch.", ""), out.numel()
        return result

    def finish(self):
        self.bench.finish()
        self.outputs.clear()
        self.bench.keep = [k for k in self.bench.keep if not isinstance(k, list)]
        # the unit's rotating graphs (and their memory pools) go now, between units: left to the
        # collector they were destroyed inside a later unit's timed launches, whose escape check then
        # saw ~15 us of device work past the events (H200, 2026-11-22)
        gc.collect()
        torch_cases.torch.cuda.synchronize()
