"""fp8_gemm's PyTorch baselines (the contract: tools/klab/torch_module.py): torch._scaled_mm with both
operands quantised to e4m3 on every call (eager and compiled), and on the plugin's own pre-quantised
operands."""
from klab.torch_cases import COMPILED, EAGER, Spec, named_dims

KLAB_TORCH = 1
PLUGIN = "fp8_gemm"
SIZED_BY_DIMS = True
torch = None

E4M3_MAX = 448.0  # float8_e4m3fn's largest finite value


def fp8_quantise(x):
    """x (bf16) to float8_e4m3fn with one scale for the tensor, on every call, as a PyTorch user writes it
    (torchao's tensorwise recipe): 448 / amax, the product saturated to +-448 (PyTorch's cast gives NaN
    past 480, it does not saturate), and the dequantisation scale amax / 448 that _scaled_mm takes."""
    amax = x.abs().amax().float().clamp(min=1e-12)
    scale = E4M3_MAX / amax
    return (x.float() * scale).clamp(-E4M3_MAX, E4M3_MAX).to(torch.float8_e4m3fn), scale.reciprocal()


def fp8_each_call(a, w, fast_accum):
    """D = A W^T through fp8 from the bf16 A (m x k) and W (n x k), both quantised on every call."""
    qa, sa = fp8_quantise(a)
    qw, sw = fp8_quantise(w)
    return torch._scaled_mm(qa, qw.t(), scale_a=sa, scale_b=sw, out_dtype=torch.bfloat16, use_fast_accum=fast_accum)


def fp8_prequant(qa, qw, sa, sw, fast_accum):
    """The same on the plugin's own pre-quantised e4m3 A and W and their per-tensor scales."""
    return torch._scaled_mm(qa, qw.t(), scale_a=sa, scale_b=sw, out_dtype=torch.bfloat16, use_fast_accum=fast_accum)


def spec(c):
    """D (m x n, bf16) = A (m x k) W (n x k)^T from the bf16 a and w (plugins/fp8_gemm/fp8_gemm.h); the
    case's dtype fp8e4m3 is the precision the GEMM computes in, not a tensor's. Quantised on every call
    (eager, and torch.compile of the same function), and torch._scaled_mm on the plugin's own setup-
    quantised a_e4m3, w_e4m3 and their dequantisation scales (scales[0] and scales[4], FP8Q_SCALE_STRIDE
    apart): the pairs autoquant and prequant stand beside. param.fast_accum is _scaled_mm's use_fast_accum."""
    dims, skip = named_dims(c, "mnk", "fp8_gemm")
    if skip:
        return skip
    m, n, k = dims
    fast = c.params.get("fast_accum", "1") == "1"
    each = {"a": (m, k), "w": (n, k)}
    pre = {"a_e4m3": (m, k), "w_e4m3": (n, k), "scales": (8,)}
    return Spec({**each, **pre}, None,
                [("torch.fp8-each-call", fp8_each_call, EAGER, lambda t: (t["a"], t["w"], fast)),
                 ("torch.compile", fp8_each_call, COMPILED, lambda t: (t["a"], t["w"], fast)),
                 ("torch._scaled_mm", fp8_prequant, EAGER,
                  lambda t: (t["a_e4m3"], t["w_e4m3"], t["scales"][0], t["scales"][4], fast))],
                notes=["e4m3, one scale a tensor"])
