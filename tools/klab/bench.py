"""libklab_bench (core/bench/klab_bench.h) through ctypes: the one place ctypes is used by the Python
tools. klab's rules are asked of the library, never written again here: an INI's cases (klab's
reader, its messages and lines), a plugin's descriptor and a case's work, the statistics of samples,
the CSV row and its schema, and the plugin opened on a GPU that verifies and times PyTorch beside it.

Structured answers come as JSON documents (no C struct is mirrored here); a failure raises BenchError
with the library's own message. The library is found in the folder a tool is given (--build: a build
tree, or an install prefix's lib, which klab --with-torch names), else in $KLAB_BUILD, <repo>/build or
<repo>/build-gpu (tools/gpu-run.sh's); loading it needs no GPU and no torch.
"""
import ctypes
import json
import os
import shlex
import sys

ABI = 2  # the kb_abi_version() this module is written for (KB_ABI_VERSION)
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
NAME = "libklab_bench.so"

_build = None
_lib = None


class BenchError(Exception):
    """A libklab_bench call failed; the message is the library's."""


def use_build(folder):
    """The build folder to load the library from (a tool's --build); before the first call."""
    global _build
    _build = folder


def path():
    places = [d for d in (_build, os.environ.get("KLAB_BUILD"), os.path.join(ROOT, "build"),
                          os.path.join(ROOT, "build-gpu")) if d]
    for d in places:
        if os.path.exists(os.path.join(d, NAME)):
            return os.path.join(d, NAME)
    raise BenchError(f"no {NAME} in {', '.join(places)}: build it (cmake --build build --target klab_bench) "
                     f"or name its folder with --build")


C, P, I, D, S = ctypes.c_char_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_double, ctypes.c_size_t
DOUBLES = ctypes.POINTER(ctypes.c_double)
LAUNCH = ctypes.CFUNCTYPE(I, P, P)
RESULT = ctypes.CFUNCTYPE(I, P, ctypes.POINTER(P), ctypes.POINTER(I), ctypes.POINTER(S))
LAUNCH_COPY = ctypes.CFUNCTYPE(I, P, P, I)
REPLICATE = ctypes.CFUNCTYPE(I, P, I, DOUBLES)

# name: (restype, argtypes), as klab_bench.h declares them
SIGNATURES = {
    "kb_abi_version": (I, []), "kb_free": (None, [P]), "kb_error": (C, [P]),
    "kb_dtype_parse": (I, [C]), "kb_dtype_name": (C, [I]),
    "kb_open": (P, [C, I, C, C, ctypes.c_ulonglong]), "kb_set_mode": (I, [P, C]), "kb_set_quick": (I, [P, I]),
    "kb_write_meta": (I, [P, C, C, I, ctypes.POINTER(C), ctypes.POINTER(C), I]),
    "kb_begin_case": (I, [P, P, I, C, D]), "kb_begin": (I, [P, C, C, C, C, D]),
    "kb_tensor": (P, [P, C, ctypes.POINTER(I), ctypes.POINTER(S)]), "kb_stream": (P, [P]),
    "kb_add_external": (I, [P, C, LAUNCH, RESULT, P]),
    "kb_add_external_rotating": (I, [P, C, LAUNCH_COPY, RESULT, REPLICATE, P]),
    "kb_finish": (I, [P]), "kb_phase_ms": (D, [P, C]), "kb_close": (I, [P]),
    "kb_ini_open": (P, [C]), "kb_ini_add_case": (I, [P, C]), "kb_ini_json": (P, [P]),
    "kb_ini_sampling": (I, [P, I, I, D, DOUBLES]), "kb_ini_close": (None, [P]),
    "kb_describe": (P, [C]), "kb_case_work": (P, [C, P, I, C]),
    "kb_stats": (P, [DOUBLES, S]), "kb_quantile": (D, [DOUBLES, S, D]),
    "kb_median_interval": (I, [DOUBLES, S, D, DOUBLES, DOUBLES]),
    "kb_ratio_interval": (I, [DOUBLES, S, DOUBLES, S, DOUBLES, DOUBLES]),
    "kb_row_schema": (I, []), "kb_row_columns": (P, []), "kb_csv_open": (P, [C]),
    "kb_csv_row": (I, [P, ctypes.POINTER(C), ctypes.POINTER(C), I, DOUBLES, S]), "kb_csv_close": (I, [P, I]),
}


def lib():
    """The library, loaded once, its version checked against ABI."""
    global _lib
    if _lib is None:
        so = path()
        try:
            handle = ctypes.CDLL(so)
        except OSError as e:
            raise BenchError(f"{so}: {e}") from None
        if not hasattr(handle, "kb_abi_version"):
            raise BenchError(f"{so} is libklab_bench 1 (no kb_abi_version); these tools need {ABI}: rebuild it")
        for name, (res, args) in SIGNATURES.items():
            f = getattr(handle, name)
            f.restype, f.argtypes = res, args
        if handle.kb_abi_version() != ABI:
            raise BenchError(f"{so} is libklab_bench {handle.kb_abi_version()}; these tools need {ABI}: rebuild it")
        _lib = handle
    return _lib


def _b(text):
    return str(text).encode()


def error(handle=None):
    return lib().kb_error(handle).decode(errors="replace")


def _handle(ptr):
    """A handle the library opened, or its reason for not opening one."""
    if not ptr:
        raise BenchError(error())
    return ptr


def _document(ptr):
    """A JSON answer: parsed, and the library's string freed."""
    if not ptr:
        raise BenchError(error())
    try:
        return json.loads(ctypes.string_at(ptr).decode(errors="replace"))
    finally:
        lib().kb_free(ptr)


def _doubles(xs):
    xs = list(xs)
    return (ctypes.c_double * max(1, len(xs)))(*xs), len(xs)


def dtype_code(name):
    """klab_dtype's number of a dtype name ("fp16", "bfloat16", "float8_e4m3fn")."""
    code = lib().kb_dtype_parse(_b(name))
    if code < 0:
        raise BenchError(f"unknown dtype '{name}'")
    return code


def dtype_name(code):
    return lib().kb_dtype_name(code).decode()


# ---- INI files (klab's reader) ------------------------------------------------------------------------------

class IniFile:
    """An INI as klab reads it (kb_ini_open): refused with klab's own "path:line: why"."""

    def __init__(self, path):
        self.path = path
        self.h = _handle(lib().kb_ini_open(_b(path)))

    def document(self):
        """{"plugin", "cases": [...]}: kb_ini_json's document."""
        return _document(lib().kb_ini_json(self.h))

    def add_case(self, name):
        """A [case NAME] of [defaults] alone (NAME a shape); its index."""
        i = lib().kb_ini_add_case(self.h, _b(name))
        if i < 0:
            raise BenchError(error())
        return i

    def sampling(self, index, quick=False, budget_ms=0):
        """What case `index` is timed with by kb_begin_case: warmup, min_reps, max_reps, precision, budget_ms."""
        out = (ctypes.c_double * 5)()
        if lib().kb_ini_sampling(self.h, index, int(quick), budget_ms or 0, out):
            raise BenchError(error())
        return dict(zip(("warmup", "min_reps", "max_reps", "precision", "budget_ms"), out))

    def case_work(self, so, index, dtype):
        """{"bytes", "flops", "tolerance", "steps"} of case `index` in dtype, from the plugin's hooks."""
        return _document(lib().kb_case_work(_b(so), self.h, index, _b(dtype)))

    def __del__(self):
        if getattr(self, "h", None) and _lib is not None:
            _lib.kb_ini_close(self.h)
            self.h = None


def describe(so):
    """The plugin's descriptor as klab --list reads it (kb_describe)."""
    return _document(lib().kb_describe(_b(so)))


# ---- statistics (core/stats) --------------------------------------------------------------------------------

def stats(samples):
    """{"n", "median", "median_lo", "median_hi", "precision", "p95", "p99", "min", "max", "mean", "noise"}."""
    arr, n = _doubles(samples)
    return _document(lib().kb_stats(arr, n))


def quantile(samples, q):
    arr, n = _doubles(samples)
    if n == 0:
        raise BenchError("quantile of no samples")
    return lib().kb_quantile(arr, n, q)


def median(samples):
    return quantile(samples, 0.5)


def median_interval(samples, conf=0.95):
    """The median's order-statistic interval (lo, hi), or None where the samples are too few."""
    arr, n = _doubles(samples)
    lo, hi = ctypes.c_double(), ctypes.c_double()
    if lib().kb_median_interval(arr, n, conf, ctypes.byref(lo), ctypes.byref(hi)):
        return None
    return lo.value, hi.value


def ratio_interval(num, den):
    """median(num) / median(den)'s 95 % interval (lo, hi), each median at 97.5 %; None if too few."""
    a, na = _doubles(num)
    b, nb = _doubles(den)
    lo, hi = ctypes.c_double(), ctypes.c_double()
    if lib().kb_ratio_interval(a, na, b, nb, ctypes.byref(lo), ctypes.byref(hi)):
        return None
    return lo.value, hi.value


# ---- klab's CSV ---------------------------------------------------------------------------------------------

def row_schema():
    return lib().kb_row_schema()


def row_columns():
    return _document(lib().kb_row_columns())


class CsvWriter:
    """Rows of klab's CSV at path (path.partial until close(keep=True))."""

    def __init__(self, path):
        self.path = path
        self.h = _handle(lib().kb_csv_open(_b(path)))

    def row(self, cells, samples=()):
        """cells {column: value} as the CSV holds them; samples give the statistics columns."""
        keys = [_b(k) for k in cells]
        values = [_b(v) for v in cells.values()]
        arr, n = _doubles(samples)
        if lib().kb_csv_row(self.h, (C * max(1, len(keys)))(*keys), (C * max(1, len(values)))(*values),
                            len(keys), arr, n):
            raise BenchError(error())

    def close(self, keep=True):
        h, self.h = self.h, None
        if h and lib().kb_csv_close(h, int(keep)):
            raise BenchError(error())


# ---- a plugin on a GPU, PyTorch beside it ------------------------------------------------------------------

def _guarded(label, fn, *args):
    """fn(*args) -> 0, or -1 with the error said: a Python error must not unwind through C."""
    try:
        fn(*args)
        return 0
    except Exception as e:
        print(f"{label}: {e}", file=sys.stderr)
        return -1


class Bench:
    """A plugin opened on a GPU, its rows to a CSV: kb_open .. kb_close. Callables are plain Python: a launch takes the stream (an int), a result
    returns (device pointer, dtype name, element count), a replicate takes n and returns the bytes the n
    copies occupy. Their errors are printed and answered as a failure to the library."""

    def __init__(self, so, csv_path, run_id, seed, mode="plain", device=0):
        self.keep = []  # ctypes callbacks must outlive the library's use of them
        self.s = lib().kb_open(_b(so), device, _b(csv_path), _b(run_id), seed)
        if not self.s:
            raise BenchError("kb_open: " + error())
        self.check(lib().kb_set_mode(self.s, _b(mode)), "kb_set_mode")

    def check(self, rc, what):
        if rc != 0:
            raise BenchError(f"{what}: {error(self.s)}")

    def set_quick(self, on=True):
        self.check(lib().kb_set_quick(self.s, int(on)), "kb_set_quick")

    def write_meta(self, folder, entries, csv_schema=0):
        """<folder>/meta.ini as klab writes a run's (kb_write_meta), with this process's command line and
        `entries` {"SECTION.KEY": value}. A meta.ini that cannot be written is said; the rows go on."""
        keys, values = [_b(k) for k in entries], [_b(v) for v in entries.values()]
        command = shlex.join([os.path.basename(sys.executable)] + sys.argv)
        if lib().kb_write_meta(self.s, _b(folder), _b(command), csv_schema, (C * max(1, len(keys)))(*keys),
                               (C * max(1, len(values)))(*values), len(keys)):
            print(f"{os.path.basename(sys.argv[0])}: {error(self.s)}", file=sys.stderr)

    def begin_case(self, ini, index, dtype, budget_ms=0):
        """True: set up and verified; False: it was not (its rows say why; the next case may begin)."""
        rc = lib().kb_begin_case(self.s, ini.h, index, _b(dtype), budget_ms or 0)
        if rc < 0:
            raise BenchError(error(self.s))
        if rc > 0:
            print(error(self.s), file=sys.stderr)
        return rc == 0

    def tensor(self, name):
        """(device pointer, dtype name, element count) of the case's tensor."""
        code, count = ctypes.c_int(), ctypes.c_size_t()
        ptr = lib().kb_tensor(self.s, _b(name), ctypes.byref(code), ctypes.byref(count))
        if not ptr:
            raise BenchError("kb_tensor: " + error(self.s))
        return ptr, dtype_name(code.value), count.value

    def stream(self):
        return lib().kb_stream(self.s)

    def _result(self, label, result):
        def call(user, pptr, pdtype, pcount):
            def fill():
                ptr, dtype, count = result()
                pptr[0], pdtype[0], pcount[0] = ptr, dtype_code(dtype), count
            return _guarded(label, fill)
        return RESULT(call)

    def add_external(self, label, launch, result):
        cl = LAUNCH(lambda user, stream: _guarded(label, launch, stream))
        cr = self._result(label, result)
        self.keep += [cl, cr]
        self.check(lib().kb_add_external(self.s, _b(label), cl, cr, None), "kb_add_external")

    def add_external_rotating(self, label, launch_copy, result, replicate):
        def rep(user, n, footprint):
            def fill():
                footprint[0] = float(replicate(n))
            return _guarded(label, fill)
        cl = LAUNCH_COPY(lambda user, stream, replica: _guarded(label, launch_copy, stream, replica))
        cr, cp = self._result(label, result), REPLICATE(rep)
        self.keep += [cl, cr, cp]
        self.check(lib().kb_add_external_rotating(self.s, _b(label), cl, cr, cp, None), "kb_add_external_rotating")

    def finish(self):
        self.check(lib().kb_finish(self.s), "kb_finish")

    def phase_ms(self, phase):
        return lib().kb_phase_ms(self.s, _b(phase))

    def close(self):
        s, self.s = self.s, None
        if s:
            rc = lib().kb_close(s)
            if rc:
                raise BenchError("kb_close: " + error())
