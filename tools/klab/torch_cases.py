"""The PyTorch side of each plugin's cases: the callables (eager, F.*, torch.compile of the same
function) and, per plugin, how a case's tensors are seen by torch and which callables run on them
(TABLE, the one list of the plugins that have PyTorch callables). torch is imported by need_torch(),
never at import: the dry run and the tests read TABLE without torch.

Every callable computes into tensors of its own (never the case's outputs) and returns them, the output
klab compares first; the case's inputs are the plugin's own tensors, seen by torch without a copy."""
import math

torch = None  # set by need_torch(): the callables below look it up when they run
F = None


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
    return torch

def softmax(x):
    return torch.softmax(x, -1)  # F.softmax is this same function


def swiglu(g, u):
    return F.silu(g) * u


def rms_eager(x, w, eps):
    """The framework's sequence, as the anchors define it: float math, two roundings."""
    xf = x.float()
    return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)).to(x.dtype) * w


def rms_F(x, w, eps):
    return F.rms_norm(x, (x.shape[-1],), w, eps)


def rms_residual(x, r, w, eps):
    """h = x + r, then F.rms_norm of h: both outputs written; y first, as the plugin makes them."""
    h = x + r
    return F.rms_norm(h, (h.shape[-1],), w, eps), h


def rms_rope(x, w, pos, cos, sin, eps, head_dim, half):
    """RMSNorm (the framework's sequence, rounded to the dtype as the plugin's baseline rounds t), then
    RoPE per head of head_dim at each token's position, from the plugin's own cos/sin caches (float,
    positions x head_dim/2) and positions (int32). half: pairs (i, i + head_dim/2), rotate_half
    (LLaMA); else (2i, 2i + 1), interleaved (GPT-J). Rotation in float, one rounding."""
    t = rms_eager(x, w, eps)
    tokens, hidden = t.shape
    v = t.float().view(tokens, hidden // head_dim, head_dim)
    c = cos.index_select(0, pos).unsqueeze(1)
    s = sin.index_select(0, pos).unsqueeze(1)
    if half:
        a, b = v[..., : head_dim // 2], v[..., head_dim // 2:]
        y = torch.cat((a * c - b * s, b * c + a * s), -1)
    else:
        a, b = v[..., 0::2], v[..., 1::2]
        y = torch.stack((a * c - b * s, b * c + a * s), -1).flatten(-2)
    return y.view(tokens, hidden).to(x.dtype)


def reduce_sum(x):
    return torch.sum(x, -1, dtype=torch.float32)  # a vector (rank 1): the one value


def reduce_max(x):
    return torch.amax(x, -1).float()


def matmul(a, b):
    return torch.matmul(a, b)


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


def gated_silu(x, wg, wu):
    return F.silu(x @ wg.T) * (x @ wu.T)


def gated_gelu(x, wg, wu):
    return F.gelu(x @ wg.T) * (x @ wu.T)  # approximate="none": erf, as the plugin's reference


def copy(x, out):
    return out.copy_(x)  # torch's copy_ of one contiguous tensor into another is the driver's memcpy


def add(a, b):
    return torch.add(a, b)


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


def spec_softmax(c):
    return Spec({"x": c.dims}, lambda t: (t["x"],),
                [("torch.softmax", softmax, EAGER), ("torch.compile", softmax, COMPILED)])


def spec_swiglu(c):
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


def spec_reduction(c):
    op = c.params.get("op", "sum")
    fn, label = {"sum": (reduce_sum, "torch.sum"), "max": (reduce_max, "torch.amax")}.get(op, (None, None))
    if fn is None:
        return Spec(skip=f"param.op = {op}: no PyTorch callable")
    # rank 1: the whole vector (dim=-1 of a vector is all of it); rank 2+: one value a row
    shape = (c.cols,) if len(c.dims) == 1 else (c.rows, c.cols)
    return Spec({"x": shape}, lambda t: (t["x"],), [(label, fn, EAGER), ("torch.compile", fn, COMPILED)])


def spec_rmsnorm(c):
    eps = float(c.params.get("eps", "1e-6"))  # RMS_DEFAULT_EPS (plugins/rmsnorm/rmsnorm.h)
    x = (c.rows, c.cols)
    if c.params.get("residual", "0") == "1":
        # libklab_bench compares an external's first output only (inst_compare_external: out[0]), so
        # h = x + r is written but not checked; the label says so, since the row's flags are klab's
        return Spec({"x": x, "r": x, "w": (c.cols,)}, lambda t: (t["x"], t["r"], t["w"], eps),
                    [("F.rms_norm", rms_residual, EAGER), ("torch.compile", rms_residual, COMPILED)],
                    suffix="[h-unverified]", notes=["residual: y verified, h written and not compared"])
    return Spec({"x": x, "w": (c.cols,)}, lambda t: (t["x"], t["w"], eps),
                [("torch.compile", rms_eager, COMPILED), ("F.rms_norm", rms_F, EAGER),
                 ("torch.eager", rms_eager, EAGER)])


def spec_rmsnorm_rope(c):
    """The geometry as plugins/rmsnorm_rope/rmsnorm_rope.h reads the case: dim.head_dim (default 128);
    seq from a BxSxH shape, else dim.seq (default 1); dim.cache (default max(seq, 4096)). After set-up the
    tables say which head_dim and cache the plugin used (check), so a geometry read differently here stops
    the run instead of mislabelling rows."""
    if len(c.dims) not in (2, 3):
        return Spec(skip=f"rank {len(c.dims)}: the plugin takes BxSxH or TxH")
    seq = c.dims[1] if len(c.dims) == 3 else c.named.get("seq", 1)
    cache = c.named.get("cache", max(seq, 4096))
    eps = float(c.params.get("eps", "1e-6"))
    d, half = c.named.get("head_dim", 128), c.params.get("layout", "half") == "half"
    tokens, hidden = c.rows, c.cols

    def check(t):
        rows = t["cos"].shape[0]
        # position 1, pair 0 is at angle 1 in every RoPE (base^0): the row length of the table is head_dim/2
        if rows != cache or abs(float(t["cos"][1, 0]) - math.cos(1.0)) > 1e-6 \
                or abs(float(t["cos"][0, d // 2 - 1]) - 1.0) > 1e-6:
            return (f"the plugin's cos table is not {cache} positions x {d // 2} pairs "
                    f"(cos[1,0] = {float(t['cos'][1, 0]):.6f}, cos(1) = {math.cos(1.0):.6f})")
        return None

    return Spec({"x": (tokens, hidden), "w": (hidden,), "pos": (tokens,), "cos": (-1, d // 2),
                 "sin": (-1, d // 2)},
                lambda t: (t["x"], t["w"], t["pos"], t["cos"], t["sin"], eps, d, half),
                [("torch.eager", rms_rope, EAGER), ("torch.compile", rms_rope, COMPILED)], check=check,
                notes=[f"head_dim {d}, {'half' if half else 'interleaved'}, cache {cache}"])


def spec_vector_add(c):
    op = c.params.get("op", "copy")
    n = math.prod(c.dims)
    if op == "copy":
        return Spec({"a": (n,)}, lambda t: (t["a"], torch.empty_like(t["a"])), [("torch.copy_", copy, EAGER)])
    if op == "add":
        return Spec({"a": (n,), "b": (n,)}, lambda t: (t["a"], t["b"]), [("torch.add", add, EAGER)])
    return Spec(skip=f"param.op = {op}: no PyTorch callable")


def named_dims(c, names, plugin):
    """The case's dim.NAME values in the order of names, or the Spec that skips it (the plugin refuses it)."""
    missing = [n for n in names if n not in c.named]
    if missing:
        return None, Spec(skip=f"{plugin} needs " + ", ".join(f"dim.{n}" for n in missing))
    return [c.named[n] for n in names], None


def spec_matmul_h200(c):
    """C (m x n) = A (m x k) B (k x n), all row-major, as torch.matmul computes it (plugins/matmul_h200/
    matmul_h200.h): the plugin's a and b are torch.matmul's operands as they lie. No default-mode compile:
    it would lower to the same cuBLAS call as torch.matmul."""
    dims, skip = named_dims(c, "mnk", "matmul_h200")
    if skip:
        return skip
    m, n, k = dims
    return Spec({"a": (m, k), "b": (k, n)}, lambda t: (t["a"], t["b"]),
                [("torch.matmul", matmul, EAGER), ("torch.compile-max-autotune", matmul, AUTOTUNED)])


def spec_fp8_gemm(c):
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


def spec_fused_gated_mlp(c):
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


# plugin -> its cases' PyTorch side; its INI is ini/<plugin>.ini unless --ini names another
TABLE = {
    "softmax": spec_softmax,
    "swiglu": spec_swiglu,
    "reduction": spec_reduction,
    "rmsnorm": spec_rmsnorm,
    "rmsnorm_rope": spec_rmsnorm_rope,
    "vector_add": spec_vector_add,
    "matmul_h200": spec_matmul_h200,
    "fp8_gemm": spec_fp8_gemm,
    "fused_gated_mlp": spec_fused_gated_mlp,
}
# the plugins whose cases are sized by dim.* (a shape, where a case's name gives one, means nothing to them)
BY_DIMS = {"matmul_h200", "fp8_gemm", "fused_gated_mlp"}


def spec_of(plugin, c):
    """The case's Spec (or the reason it has none)."""
    if c.dims is None and plugin not in BY_DIMS:
        return Spec(skip="no shape (sized by dim.* alone)")
    return TABLE[plugin](c)
