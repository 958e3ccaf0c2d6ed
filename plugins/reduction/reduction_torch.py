"""reduction's PyTorch baselines (the contract: tools/klab/torch_module.py): torch.sum (float32
accumulation) or torch.amax over the last dimension as param.op says, eager and compiled."""
from klab.torch_cases import COMPILED, EAGER, Spec

KLAB_TORCH = 1
PLUGIN = "reduction"
torch = None


def reduce_sum(x):
    return torch.sum(x, -1, dtype=torch.float32)  # a vector (rank 1): the one value


def reduce_max(x):
    return torch.amax(x, -1).float()


def spec(c):
    op = c.params.get("op", "sum")
    fn, label = {"sum": (reduce_sum, "torch.sum"), "max": (reduce_max, "torch.amax")}.get(op, (None, None))
    if fn is None:
        return Spec(skip=f"param.op = {op}: no PyTorch callable")
    # rank 1: the whole vector (dim=-1 of a vector is all of it); rank 2+: one value a row
    shape = (c.cols,) if len(c.dims) == 1 else (c.rows, c.cols)
    return Spec({"x": shape}, lambda t: (t["x"],), [(label, fn, EAGER), ("torch.compile", fn, COMPILED)])
