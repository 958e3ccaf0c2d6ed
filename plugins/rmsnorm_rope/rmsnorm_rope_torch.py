"""rmsnorm_rope's PyTorch baselines (the contract: tools/klab/torch_module.py): RMSNorm, then RoPE from
the plugin's own cos/sin tables, eager and compiled."""
import math

from klab.torch_cases import COMPILED, EAGER, Spec
from klab.torch_ops import rms_eager

KLAB_TORCH = 1
PLUGIN = "rmsnorm_rope"
torch = None


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


def spec(c):
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
