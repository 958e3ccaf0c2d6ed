"""matmul_h200's PyTorch baselines (the contract: tools/klab/torch_module.py): torch.matmul, and
torch.compile in mode max-autotune-no-cudagraphs (Triton templates against cuBLAS)."""
from klab.torch_cases import AUTOTUNED, EAGER, Spec, named_dims

KLAB_TORCH = 1
PLUGIN = "matmul_h200"
SIZED_BY_DIMS = True
torch = None


def matmul(a, b):
    return torch.matmul(a, b)


def spec(c):
    """C (m x n) = A (m x k) B (k x n), all row-major, as torch.matmul computes it (plugins/matmul_h200/
    matmul_h200.h): the plugin's a and b are torch.matmul's operands as they lie. No default-mode compile:
    it would lower to the same cuBLAS call as torch.matmul."""
    dims, skip = named_dims(c, "mnk", "matmul_h200")
    if skip:
        return skip
    m, n, k = dims
    return Spec({"a": (m, k), "b": (k, n)}, lambda t: (t["a"], t["b"]),
                [("torch.matmul", matmul, EAGER), ("torch.compile-max-autotune", matmul, AUTOTUNED)])
