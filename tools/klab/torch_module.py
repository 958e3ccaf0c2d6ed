"""A plugin's PyTorch baselines: the module <plugin>_torch.py beside <plugin>.so, so it is found wherever
klab finds the plugin (--plugin-path, KLAB_PLUGIN_PATH, the build's or the prefix's plugin folder);
klab_add_plugin(NAME ... TORCH NAME_torch.py) puts it there and klab_install_plugins installs it with
the .so. Loading it needs no torch, and its declarations and every case's Spec are checked here, so
klab --validate --with-torch refuses a bad module on a machine without torch or a GPU.

The contract, version 1 (plugins/softmax/softmax_torch.py is the smallest in-tree module):

    KLAB_TORCH = 1          the version of this contract the module is written to
    PLUGIN = "<plugin>"     the plugin it stands beside
    SIZED_BY_DIMS = True    optional: a case sized by dim.* alone (no shape) is one of its cases too
    torch = F = None        optional: torch and torch.nn.functional, set before any callable runs
    def spec(case):         the case's PyTorch side, a klab.torch_cases.Spec: the case's tensors by name
                            and shape, the callables as (label, function, how[, make]) and make(t), which
                            turns the tensors {name: torch tensor} into a callable's arguments; or
                            Spec(skip=why) for a case it has none for

`case` is a klab.ini.Case, the case as klab resolved it: name, dims (None without a shape), rows, cols,
dtypes, params (param.NAME: text), named (dim.NAME: int). spec() runs without torch (the dry run calls
it); only the callables and make() may use torch. A callable's label is its rows' profile; `how` is
EAGER, COMPILED (torch.compile) or AUTOTUNED (torch.compile, mode max-autotune-no-cudagraphs)."""
import importlib.util
import os
import sys

from . import torch_cases
from .torch_cases import AUTOTUNED, COMPILED, EAGER, Spec

VERSION = 1
HOWS = (EAGER, COMPILED, AUTOTUNED)
SUFFIX = "_torch.py"

_loaded = {}  # path -> module: each file is executed once a process


class ModuleError(Exception):
    """A module that does not keep the contract; the message names its file."""


def path_of(so, plugin):
    return os.path.join(os.path.dirname(os.path.abspath(so)), plugin + SUFFIX)


def plugins_in(folder):
    """The plugins that have a module in folder, by name."""
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    return sorted(n[: -len(SUFFIX)] for n in names if n.endswith(SUFFIX) and not n.startswith("."))


def load(so, plugin):
    """The module beside so, loaded and its declarations checked; None when there is none. Raises
    ModuleError."""
    path = path_of(so, plugin)
    if not os.path.isfile(path):
        return None
    if path in _loaded:
        return _loaded[path]
    had_torch = "torch" in sys.modules
    name = "klab_torch_" + plugin
    spec = importlib.util.spec_from_file_location(name, path)
    m = importlib.util.module_from_spec(spec)
    sys.modules[name] = m  # torch.compile looks a function's module up by name
    try:
        try:
            spec.loader.exec_module(m)
        except Exception as e:
            raise ModuleError(f"{path}: cannot be loaded: {type(e).__name__}: {e}") from None
        if not had_torch and "torch" in sys.modules:
            raise ModuleError(f"{path}: imports torch when loaded; declare torch = None and it is set before a run")
        _declared(m, path, plugin)
    except ModuleError:
        del sys.modules[name]
        raise
    torch_cases.bind(m)
    _loaded[path] = m
    return m


def _declared(m, path, plugin):
    version = getattr(m, "KLAB_TORCH", None)
    if version != VERSION:
        raise ModuleError(f"{path}: KLAB_TORCH = {version!r}; this klab reads version {VERSION} of the contract"
                          if version is not None else f"{path}: no KLAB_TORCH (the contract's version, {VERSION})")
    if getattr(m, "PLUGIN", None) != plugin:
        raise ModuleError(f"{path}: PLUGIN = {getattr(m, 'PLUGIN', None)!r}, but it lies beside {plugin}.so")
    if not callable(getattr(m, "spec", None)):
        raise ModuleError(f"{path}: no function spec(case)")
    if not isinstance(getattr(m, "SIZED_BY_DIMS", False), bool):
        raise ModuleError(f"{path}: SIZED_BY_DIMS must be True or False")


def spec_of(m, c):
    """Case c's Spec from module m, checked; a case without a shape is skipped unless m is SIZED_BY_DIMS."""
    if c.dims is None and not getattr(m, "SIZED_BY_DIMS", False):
        return Spec(skip="no shape (sized by dim.* alone)")
    where = f"{m.__file__}: spec() of case '{c.name}'"
    try:
        s = m.spec(c)
    except Exception as e:
        raise ModuleError(f"{where}: {type(e).__name__}: {e}") from None
    why = _wrong(s)
    if why:
        raise ModuleError(f"{where}: {why}")
    return s


def _wrong(s):
    """Why s is not a Spec the driver can run, or None."""
    if not isinstance(s, Spec):
        return f"returned {type(s).__name__}, not a Spec"
    if s.skip is not None:
        return None if isinstance(s.skip, str) and s.skip else "skip must be a reason (text)"
    if not s.ops:
        return "no callables (ops), and no skip reason"
    for name, shape in s.tensors.items():
        if not isinstance(name, str) or not isinstance(shape, (tuple, list)) or not shape \
                or not all(isinstance(d, int) and (d > 0 or d == -1) for d in shape) or list(shape).count(-1) > 1:
            return f"tensor {name!r}: shape {shape!r} is not a tuple of sizes (one may be -1)"
    labels = set()
    for op in s.ops:
        if len(op) != 4:
            return f"callable {op!r} is not (label, function, how[, make])"
        label, fn, how, make = op
        if not isinstance(label, str) or not label or any(ch in label for ch in " ,\t\n\""):
            return f"label {label!r} is not a name (no spaces, commas or quotes): it is the rows' profile"
        if label in labels:
            return f"label '{label}' twice"
        labels.add(label)
        if not callable(fn):
            return f"'{label}': the function is not callable"
        if how not in HOWS:
            return f"'{label}': how {how!r} is none of {', '.join(HOWS)}"
        if not callable(make):
            return f"'{label}': no make(t) for its arguments"
    if s.check is not None and not callable(s.check):
        return "check is not callable"
    return None
