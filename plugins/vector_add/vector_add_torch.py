"""vector_add's PyTorch baselines (the contract: tools/klab/torch_module.py): copy_ for param.op = copy,
torch.add for add; the other ops have none."""
import math

from klab.torch_cases import EAGER, Spec

KLAB_TORCH = 1
PLUGIN = "vector_add"
torch = None


def copy(x, out):
    return out.copy_(x)  # torch's copy_ of one contiguous tensor into another is the driver's memcpy


def add(a, b):
    return torch.add(a, b)


def spec(c):
    op = c.params.get("op", "copy")
    n = math.prod(c.dims)
    if op == "copy":
        return Spec({"a": (n,)}, lambda t: (t["a"], torch.empty_like(t["a"])), [("torch.copy_", copy, EAGER)])
    if op == "add":
        return Spec({"a": (n,), "b": (n,)}, lambda t: (t["a"], t["b"]), [("torch.add", add, EAGER)])
    return Spec(skip=f"param.op = {op}: no PyTorch callable")
