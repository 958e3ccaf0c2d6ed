"""PyTorch's decode step of decode_replay's cases: the same function as the plugin
(plugins/decode_replay/decode_replay.h), the same dimensions, layouts (Wqkv [L, (Hq + 2 Hkv) D, H]
packed q|k|v, Wo [L, H, Hq D], Wgu [L, 2I, H] gate rows first, Wd [L, H, I], caches [L, B, Hkv, kv, D],
RoPE half layout from float tables of kv x D/2), value distributions (weights uniform with variance 1/K,
gains in [0.5, 1.5), x and caches in [-1, 1)) and schedules (fixed: every step at kv; dynamic: uniform
in [kv_min, kv], one row a step, read on the device at a step cursor so one captured graph serves every
step). The values come from torch's generator, not klab's hash: a timing does not depend on them."""
import math

from . import torch_cases

torch = None  # need_torch(): the step below looks them up when it runs
F = None

# decode_replay_geom.c's defaults, for a case that does not give the dim
DIMS = {"batch": 1, "layers": 1, "hidden": 4096, "heads": 32, "kv_heads": 8, "head_dim": 128, "inter": 14336,
        "kv": 4096, "kv_min": 1}


def need_torch():
    global torch, F
    if torch is None:
        torch = torch_cases.need_torch()
        F = torch_cases.F
    return torch


class Geom:
    """A case's geometry; steps: the schedule's rows, the plugin's sequence length (kb_case_work)."""

    def __init__(self, c, steps):
        for k, v in DIMS.items():
            setattr(self, k, int(c.named.get(k, v)))
        self.steps = steps
        self.dynamic = c.params.get("schedule", "fixed") == "dynamic"
        self.attn_only = c.params.get("part", "stack") == "attn"
        self.eps = float(c.params.get("eps", 1e-5))
        self.grp = self.heads // self.kv_heads
        self.nqkv = (self.heads + 2 * self.kv_heads) * self.head_dim
        self.qd = self.heads * self.head_dim


class Model:
    """The case's tensors and one step on them (cursor and lengths on the device: capturable)."""

    gqa = True  # F.scaled_dot_product_attention takes enable_gqa (torch >= 2.5)

    def __init__(self, g, dtype, seed, dev="cuda"):
        t = need_torch()
        gen = t.Generator(device=dev).manual_seed(seed)
        self.g, self.dt = g, dtype

        def uni(shape, lo, hi, dt=dtype):
            return (t.rand(shape, generator=gen, device=dev, dtype=t.float32) * (hi - lo) + lo).to(dt)

        L, B, H, D, I = g.layers, g.batch, g.hidden, g.head_dim, g.inter
        self.x = uni((L, B, g.nqkv) if g.attn_only else (B, H), -1, 1)
        if not g.attn_only:
            def w(shape, k):
                a = math.sqrt(3.0 / k)
                return uni(shape, -a, a)
            self.wqkv, self.wo = w((L, g.nqkv, H), H), w((L, H, g.qd), g.qd)
            self.wgu, self.wd = w((L, 2 * I, H), H), w((L, H, I), I)
            self.g_attn, self.g_mlp = uni((L, H), 0.5, 1.5), uni((L, H), 0.5, 1.5)
        self.kc, self.vc = uni((L, B, g.kv_heads, g.kv, D), -1, 1), uni((L, B, g.kv_heads, g.kv, D), -1, 1)
        inv = 10000.0 ** (-2.0 * t.arange(D // 2, device=dev, dtype=t.float64) / D)
        ang = t.arange(g.kv, device=dev, dtype=t.float64)[:, None] * inv[None, :]
        self.cos, self.sin = ang.cos().float(), ang.sin().float()
        if g.dynamic:
            lens = t.randint(g.kv_min, g.kv + 1, (g.steps, B), generator=gen, device=dev)
        else:
            lens = t.full((g.steps, B), g.kv, device=dev)
        self.lens = lens.to(t.int64)
        self.cursor = t.zeros((), dtype=t.int64, device=dev)
        self.pos_grid = t.arange(g.kv, device=dev)

    def rms(self, h, w):
        hf = wide(h)
        return (hf * torch.rsqrt(hf.pow(2).mean(-1, keepdim=True) + self.g.eps)).to(h.dtype) * w

    def attention(self, l, qkv, pos, lens):
        """RoPE, the append at pos, attention over [0, len) (a mask over the whole cache: SDPA reads all kv
        positions whatever the length, as a captured eager decode does)."""
        g, t = self.g, torch
        B, D = g.batch, g.head_dim
        q = qkv[:, :g.qd].view(B, g.heads, D)
        k = qkv[:, g.qd:g.qd + g.kv_heads * D].view(B, g.kv_heads, D)
        v = qkv[:, g.qd + g.kv_heads * D:].view(B, g.kv_heads, D)
        c, s = self.cos[pos].unsqueeze(1), self.sin[pos].unsqueeze(1)

        def rope(x):
            xf = wide(x)
            a, b = xf[..., :D // 2], xf[..., D // 2:]
            return t.cat((a * c - b * s, b * c + a * s), -1).to(x.dtype)

        q, k = rope(q), rope(k)
        bi = t.arange(B, device=qkv.device)
        self.kc[l][bi, :, pos] = k
        self.vc[l][bi, :, pos] = v
        mask = (self.pos_grid[None, :] < lens[:, None]).view(B, 1, 1, g.kv)
        if Model.gqa:
            try:
                o = F.scaled_dot_product_attention(q.unsqueeze(2), self.kc[l], self.vc[l], attn_mask=mask,
                                                   enable_gqa=True)
                return o.reshape(B, g.qd)
            except TypeError:
                Model.gqa = False
        # torch before 2.5: the KV heads repeated for their query heads (an extra copy of the cache a step)
        kc, vc = self.kc[l].repeat_interleave(g.grp, dim=1), self.vc[l].repeat_interleave(g.grp, dim=1)
        return F.scaled_dot_product_attention(q.unsqueeze(2), kc, vc, attn_mask=mask).reshape(B, g.qd)

    def step(self):
        g = self.g
        lens = self.lens.index_select(0, (self.cursor % g.steps).view(1)).view(-1)  # no host sync
        pos = lens - 1
        if g.attn_only:
            out = [self.attention(l, self.x[l], pos, lens) for l in range(g.layers)]
            self.cursor += 1
            return torch.stack(out)
        h = self.x
        for l in range(g.layers):
            qkv = F.linear(self.rms(h, self.g_attn[l]), self.wqkv[l])
            h = h + F.linear(self.attention(l, qkv, pos, lens), self.wo[l])
            gu = F.linear(self.rms(h, self.g_mlp[l]), self.wgu[l])
            h = h + F.linear(F.silu(gu[:, :g.inter]) * gu[:, g.inter:], self.wd[l])
        self.cursor += 1
        return h

    def clone_as(self, dtype):
        """The same model in another dtype (float64 for the reference), states copied."""
        m = Model.__new__(Model)
        m.__dict__.update({k: (v.to(dtype) if torch.is_tensor(v) and v.is_floating_point()
                               and k not in ("cos", "sin") else (v.clone() if torch.is_tensor(v) else v))
                           for k, v in self.__dict__.items()})
        m.dt = dtype
        return m


def wide(x):
    """float for the 16-bit dtypes (as the plugin computes), float64 kept for the reference"""
    return x if x.dtype == torch.float64 else x.float()
