"""swiglu's PyTorch baselines (the contract: tools/klab/torch_module.py): silu(gate) * up, eager and
compiled, on the plugin's gate and up (layout split) or the two halves of each row of x (packed)."""
from klab.torch_cases import COMPILED, EAGER, Spec

KLAB_TORCH = 1
PLUGIN = "swiglu"
F = None


def swiglu(g, u):
    return F.silu(g) * u


def spec(c):
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
