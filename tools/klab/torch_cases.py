"""What a plugin's PyTorch module returns for a case (Spec), how its callables are launched (EAGER,
COMPILED, AUTOTUNED), and torch itself, imported by need_torch(), never at import: the dry run and the
tests read every module without torch. The modules themselves are found and checked by torch_module.

Every callable computes into tensors of its own (never the case's outputs) and returns them, the output
klab compares first; the case's inputs are the plugin's own tensors, seen by torch without a copy."""

torch = None  # set by need_torch(); a plugin's module gets the same through bind()
F = None
BOUND = []  # the modules bind() was given: need_torch() sets their torch and F


def bind(module):
    """module.torch and module.F (those of the two it declares) become torch and torch.nn.functional,
    now if torch is imported, else when need_torch() imports it."""
    BOUND.append(module)
    if torch is not None:
        _set(module)


def _set(module):
    for name, value in (("torch", torch), ("F", F)):
        if hasattr(module, name):
            setattr(module, name, value)


def need_torch():
    """torch (imported once, with the compile limits these callables need)."""
    global torch, F
    if torch is None:
        import torch as t
        import torch.nn.functional as f
        import torch._dynamo

        torch._dynamo.config.recompile_limit = 256  # dynamic=False: one graph a shape and dtype
        torch._dynamo.config.accumulated_recompile_limit = 4096
        torch, F = t, f
        for m in BOUND:
            _set(m)
    return torch


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


def named_dims(c, names, plugin):
    """The case's dim.NAME values in the order of names, or the Spec that skips it (the plugin refuses it)."""
    missing = [n for n in names if n not in c.named]
    if missing:
        return None, Spec(skip=f"{plugin} needs " + ", ".join(f"dim.{n}" for n in missing))
    return [c.named[n] for n in names], None
