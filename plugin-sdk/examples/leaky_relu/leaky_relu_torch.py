"""leaky_relu's PyTorch baselines, beside leaky_relu.so: klab --with-torch times F.leaky_relu, eager and
compiled, in the same rounds as the plugin's profiles, on the plugin's own x. The contract this module
keeps is klab's tools/klab/torch_module.py (installed in share/klab/python/klab/): the declarations
below, and spec(case), which runs without torch; torch and F are set before a callable runs."""
import math

from klab.torch_cases import COMPILED, EAGER, Spec

KLAB_TORCH = 1
PLUGIN = "leaky_relu"
F = None


def leaky_relu(x, slope):
    return F.leaky_relu(x, slope)  # into a tensor of its own, as every baseline computes


def spec(c):
    """The case's x as one vector (the plugin reads the shape as its element count), param.slope as
    leaky_relu.cu reads it."""
    slope = float(c.params.get("slope", "0.01"))
    return Spec({"x": (math.prod(c.dims),)}, lambda t: (t["x"], slope),
                [("F.leaky_relu", leaky_relu, EAGER), ("torch.compile", leaky_relu, COMPILED)],
                notes=[f"slope {slope:g}"])
