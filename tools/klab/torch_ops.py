"""PyTorch sequences that more than one plugin's module calls, as plugins/lib holds the kernels several
plugins share. torch is bound like a plugin module's (torch_cases.bind)."""
import sys

from . import torch_cases

torch = None


def rms_eager(x, w, eps):
    """The framework's sequence, as the anchors define it: float math, two roundings."""
    xf = x.float()
    return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)).to(x.dtype) * w


torch_cases.bind(sys.modules[__name__])
