"""softmax's PyTorch baselines (the contract: tools/klab/torch_module.py): torch.softmax over the last
dimension, eager and compiled, on the plugin's x in the case's shape."""
from klab.torch_cases import COMPILED, EAGER, Spec

KLAB_TORCH = 1
PLUGIN = "softmax"
torch = None


def softmax(x):
    return torch.softmax(x, -1)  # F.softmax is this same function


def spec(c):
    return Spec({"x": c.dims}, lambda t: (t["x"],),
                [("torch.softmax", softmax, EAGER), ("torch.compile", softmax, COMPILED)])
