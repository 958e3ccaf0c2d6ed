"""PyTorch beside klab, measured by klab: the same cases, the same tensors, the same float64 reference,
sampled in the same rounds after the same L2 flush between the same CUDA events (libklab_bench).

    python3 tools/torch_rows.py --build build-gpu --out out/torch [--quick] [--mode batched|hot]

Writes <out>/vector_add.csv and <out>/rmsnorm.csv in klab's CSV columns: klab's profiles, klab's copy
at the same bytes (limit_gbps), and the PyTorch callables as extra rows (flags 'external'). A claim
"klab beats torch.compile" is a ratio of two rows of one file.

--mode batched: klab times N runs per sample. A PyTorch callable cannot go into klab's own graph (its
caching allocator must own the capture), so each is captured once into a torch.cuda.CUDAGraph and klab
queues N replays of that one graph behind its blocking kernel, the method it uses for its own profiles
that launch graphs (launch column "queued"); the row's profile ends in "@cudagraph" to say so. Its
tensors are the case's own, so its batch does not rotate copies (flag not-rotated) where klab's
profiles may.
"""
import argparse
import ctypes
import os
import sys

import torch
import torch.nn.functional as F
import torch._dynamo

torch._dynamo.config.recompile_limit = 256
torch._dynamo.config.accumulated_recompile_limit = 4096

DTYPES = {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}
# klab_dtype's numbering (klab/plugin.h)
CODES = {torch.float32: 0, torch.float16: 1, torch.bfloat16: 2, torch.float8_e4m3fn: 3, torch.float8_e5m2: 4,
         torch.int32: 5, torch.int64: 6}
LAUNCH = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p)
RESULT = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p),
                          ctypes.POINTER(ctypes.c_int), ctypes.POINTER(ctypes.c_size_t))


def load(build):
    lib = ctypes.CDLL(os.path.join(build, "libklab_bench.so"))
    lib.kb_open.restype = ctypes.c_void_p
    lib.kb_open.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulonglong]
    lib.kb_set_mode.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
    lib.kb_begin.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p,
                             ctypes.c_double]
    lib.kb_tensor.restype = ctypes.c_void_p
    lib.kb_tensor.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_int),
                              ctypes.POINTER(ctypes.c_size_t)]
    lib.kb_stream.restype = ctypes.c_void_p
    lib.kb_stream.argtypes = [ctypes.c_void_p]
    lib.kb_add_external.argtypes = [ctypes.c_void_p, ctypes.c_char_p, LAUNCH, RESULT, ctypes.c_void_p]
    lib.kb_finish.argtypes = [ctypes.c_void_p]
    lib.kb_close.argtypes = [ctypes.c_void_p]
    lib.kb_error.restype = ctypes.c_char_p
    lib.kb_error.argtypes = [ctypes.c_void_p]
    return lib


class Tensor:
    """A klab tensor seen by torch without a copy (__cuda_array_interface__; bf16 travels as int16 and
    fp8 as uint8, the interface having no name for them)."""

    TYPESTR = {torch.float32: "<f4", torch.float16: "<f2", torch.bfloat16: "<i2", torch.float8_e4m3fn: "|u1",
               torch.float8_e5m2: "|u1", torch.int32: "<i4", torch.int64: "<i8"}
    CARRIED = (torch.bfloat16, torch.float8_e4m3fn, torch.float8_e5m2)

    def __init__(self, ptr, count, dtype, shape):
        self.__cuda_array_interface__ = {"shape": tuple(shape), "typestr": self.TYPESTR[dtype],
                                         "data": (ptr, False), "version": 3, "strides": None}
        self.dtype = dtype

    def torch(self):
        t = torch.as_tensor(self, device="cuda")
        return t.view(self.dtype) if self.dtype in self.CARRIED else t


class Bench:
    def __init__(self, lib, build, plugin, csv, run_id, seed, mode="plain"):
        self.lib = lib
        self.keep = []  # ctypes callbacks and outputs must outlive the C side's use of them
        path = os.path.join(build, "plugins", plugin + ".so").encode()
        # klab's copy at the same bytes (limit_gbps) is the host's own kernel: nothing to point at
        self.s = lib.kb_open(path, 0, csv.encode(), run_id.encode(), seed)
        if not self.s:
            sys.exit("kb_open: " + lib.kb_error(None).decode())
        self.check(lib.kb_set_mode(self.s, mode.encode()), "kb_set_mode")
        self.mode = mode
        self.streams = {}

    def check(self, rc, what):
        if rc != 0:
            sys.exit(f"{what}: {self.lib.kb_error(self.s).decode()}")

    def begin(self, name, shape, dtype, params="", budget_ms=1000):
        """False when the case did not set up and verify: its rows (in the CSV) say why."""
        if self.lib.kb_begin(self.s, name.encode(), shape.encode(), dtype.encode(), params.encode(), budget_ms):
            print(self.lib.kb_error(self.s).decode(), file=sys.stderr)
            return False
        return True

    def tensor(self, name, shape):
        code, count = ctypes.c_int(), ctypes.c_size_t()
        ptr = self.lib.kb_tensor(self.s, name.encode(), ctypes.byref(code), ctypes.byref(count))
        if not ptr:
            sys.exit("kb_tensor: " + self.lib.kb_error(self.s).decode())
        dtype = [k for k, v in CODES.items() if v == code.value][0]
        return Tensor(ptr, count.value, dtype, shape).torch()

    def external(self, label, fn):
        """fn() computes the case's output; it is run once and verified, then timed on klab's stream.
        Batched: what is verified and timed is fn captured in a CUDA graph (see the module's note)."""
        if self.mode == "batched":
            label, fn = label + "@cudagraph", graphed(fn)

        def launch(user, stream):
            try:
                s = self.streams.get(stream)
                if s is None:
                    s = self.streams[stream] = torch.cuda.ExternalStream(stream)
                with torch.cuda.stream(s):
                    fn()
                return 0
            except Exception as e:  # a Python error must not unwind through C
                print(f"{label}: {e}", file=sys.stderr)
                return -1

        def result(user, pptr, pdtype, pcount):
            try:
                out = fn()
                torch.cuda.synchronize()
                self.keep.append(out)
                pptr[0] = out.data_ptr()
                pdtype[0] = CODES[out.dtype]
                pcount[0] = out.numel()
                return 0
            except Exception as e:
                print(f"{label}: {e}", file=sys.stderr)
                return -1

        cl, cr = LAUNCH(launch), RESULT(result)
        self.keep += [cl, cr]
        self.check(self.lib.kb_add_external(self.s, label.encode(), cl, cr, None), "kb_add_external")

    def finish(self):
        self.check(self.lib.kb_finish(self.s), "kb_finish")
        self.keep = [k for k in self.keep if isinstance(k, (LAUNCH, RESULT))]

    def close(self):
        self.check(self.lib.kb_close(self.s), "kb_close")


def graphed(fn):
    """fn captured once into a torch.cuda.CUDAGraph; the returned callable replays it on the current
    stream and returns its (static) output. Warm-up on a side stream first, as torch's capture needs."""
    side = torch.cuda.Stream()
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
    return replay


def rms_eager(x, w, eps):
    """The framework's sequence, as the anchors define it: float math, two roundings."""
    xf = x.float()
    return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)).to(x.dtype) * w


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--out", default="out/torch")
    ap.add_argument("--seed", type=int, default=20261122)
    ap.add_argument("--quick", action="store_true", help="fp16 only, two shapes")
    ap.add_argument("--mode", choices=("plain", "batched", "hot"), default="plain",
                    help="klab's timing mode (docs/timing.md); batched replays each callable's CUDA graph")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    lib = load(a.build)
    print(f"# torch {torch.__version__}, {torch.cuda.get_device_name(0)}", flush=True)
    eps = 1e-6
    rms_compiled = torch.compile(rms_eager, dynamic=False)

    # torch's copy_ of one contiguous tensor into another is the driver's memcpy; fp32 at two sizes says so
    b = Bench(lib, a.build, "vector_add", os.path.join(a.out, "vector_add.csv"), "torch", a.seed, a.mode)
    try:
        for shape in ("2^28", "2^24"):
            for dt in ("fp32",):
                if not b.begin(f"copy-{shape}", shape, dt, "op=copy"):
                    continue
                n = int(2 ** int(shape[2:]))
                x = b.tensor("a", (n,))
                out = torch.empty_like(x)
                b.external("torch.copy_", lambda: out.copy_(x))
                b.finish()
    finally:
        b.close()

    b = Bench(lib, a.build, "rmsnorm", os.path.join(a.out, "rmsnorm.csv"), "torch", a.seed, a.mode)
    shapes = ((4096, 4096), (4096, 8192)) if a.quick else ((4096, 4096), (4096, 8192), (16384, 8192), (4096, 5120), (1024, 4093))
    try:
        for rows, cols in shapes:
            for dt in ("fp16",) if a.quick else ("fp16", "bf16", "fp32"):
                if not b.begin(f"{rows}x{cols}", f"{rows}x{cols}", dt, f"eps={eps}"):
                    continue
                x, w = b.tensor("x", (rows, cols)), b.tensor("w", (cols,))
                b.external("torch.compile", lambda: rms_compiled(x, w, eps))
                b.external("F.rms_norm", lambda: F.rms_norm(x, (cols,), w, eps))
                b.external("torch.eager", lambda: rms_eager(x, w, eps))
                b.finish()
    finally:
        b.close()


if __name__ == "__main__":
    main()
