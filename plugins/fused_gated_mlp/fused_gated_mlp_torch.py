"""fused_gated_mlp's PyTorch baselines (the contract: tools/klab/torch_module.py): act(x Wg^T) * (x Wu^T)
eager, compiled, and compiled in mode max-autotune-no-cudagraphs."""
from klab.torch_cases import AUTOTUNED, COMPILED, EAGER, Spec, named_dims

KLAB_TORCH = 1
PLUGIN = "fused_gated_mlp"
SIZED_BY_DIMS = True
F = None


def gated_silu(x, wg, wu):
    return F.silu(x @ wg.T) * (x @ wu.T)


def gated_gelu(x, wg, wu):
    return F.gelu(x @ wg.T) * (x @ wu.T)  # approximate="none": erf, as the plugin's reference


def spec(c):
    """out (m x f) = act(x Wg^T) * (x Wu^T), x m x k and Wg, Wu f x k (nn.Linear weights), bf16
    (plugins/fused_gated_mlp/fused_gated_mlp.h); act from param.activation: silu, or gelu in its erf form
    as the plugin's reference and kernels compute it."""
    dims, skip = named_dims(c, "mkf", "fused_gated_mlp")
    if skip:
        return skip
    m, k, f = dims
    act = c.params.get("activation", "silu")
    fn = {"silu": gated_silu, "gelu": gated_gelu}.get(act)
    if fn is None:
        return Spec(skip=f"param.activation = {act}: no PyTorch callable")
    return Spec({"x": (m, k), "w_gate": (f, k), "w_up": (f, k)}, lambda t: (t["x"], t["w_gate"], t["w_up"]),
                [("torch.eager", fn, EAGER), ("torch.compile", fn, COMPILED),
                 ("torch.compile-max-autotune", fn, AUTOTUNED)])
