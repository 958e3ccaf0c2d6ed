"""PyTorch's decode step of decode_replay's cases (ini/decode_replay.ini), eager and torch.cuda.CUDAGraph,
timed the way klab times step subjects, written as rows of klab's CSV schema into a run folder.

    python3 tools/torch_decode.py --out out/RUN                  every case of ini/decode_replay.ini
    python3 tools/torch_decode.py --out out/RUN --cases llama8b-4l,llama8b-4l-dyn --dtypes fp16
    python3 tools/torch_decode.py --dry-run                      the plan; needs no torch and no GPU

The same function as the plugin (plugins/decode_replay/decode_replay.h): the same dimensions, the same
layouts (Wqkv [L, (Hq + 2 Hkv) D, H] packed q|k|v, Wo [L, H, Hq D], Wgu [L, 2I, H] gate rows first,
Wd [L, H, I], caches [L, B, Hkv, kv, D], RoPE half layout from float tables of kv x D/2), the same value
distributions (weights uniform with variance 1/K, gains in [0.5, 1.5), x and caches in [-1, 1)), the same
schedules (fixed: every step at kv; dynamic: uniform in [kv_min, kv], one row a step, read on the device
at a step cursor so one captured graph serves every step). The values come from torch's generator, not
klab's hash: a timing does not depend on them.

Timing, as klab's step timer (docs/timing.md, "Step timing") does it, with these differences stated:
  - one sample a step, CUDA events around it, at least --steps samples (1000), p50/p95/p99/max, the
    median's 95 % interval from order statistics, raw samples in <out>/decode_replay.samples/;
  - cold by default: L2 flushed before each step by reading a buffer of 4x the L2 (at least 256 MiB);
  - klab holds the GPU behind a blocking kernel until the whole span is enqueued; here torch.cuda._sleep
    (a spin of --hold-us) stands in for it, so the host's enqueue of an eager step overlaps the spin as
    it overlaps klab's blocking kernel. A host slower than the spin would show in the eager rows' tail.
  - the states are not restored between sequences (klab restores them every `steps` steps): the cursor
    wraps modulo the schedule's rows, so every step still reads a length from the schedule.
libklab_bench (tools/torch_rows.py) is not used: kb_begin carries no steps, and its
external subjects are verified on the plugin's first output, which for decode_replay is the KV cache.
Each (case, dtype) is verified once before timing: the step's output hidden state against the same step
in float64 (torch, on the GPU, from the same weights and states), relative L2 error against the plugin's
tolerance (fp16 4e-3, bf16 3.2e-2). bytes and flops come from the plugin's own work() hook (ctypes), so
gbps is against the same count as klab's rows; frac_limit is left empty (no klab copy in these rounds).
"""
import argparse
import ctypes
import csv
import math
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch_rows  # noqa: E402
from torch_rows import Ini, IniError, graphed  # noqa: E402  one INI reader, one graph capture

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
torch = None
F = None

DIMS = {"batch": 1, "layers": 1, "hidden": 4096, "heads": 32, "kv_heads": 8, "head_dim": 128, "inter": 14336,
        "kv": 4096, "kv_min": 1}  # decode_replay_geom.c's defaults
TOL = {"fp16": 4e-3, "bf16": 3.2e-2}
COLUMNS = ("run_id plugin case shape dtype profile config l2 launch batch footprint_bytes status reason flags reps "
           "discarded median_ms median_lo median_hi p95_ms p99_ms min_ms max_ms mean_ms noise precision bytes flops "
           "gbps tflops limit limit_gbps frac_limit speedup speedup_lo speedup_hi sm_mhz launch_floor_ms rel_l2_err "
           "max_abs_err tolerance verified_elems seed schema samples_file").split()
ROW_SCHEMA = 2


def need_torch():
    global torch, F
    if torch is None:
        torch = torch_rows.need_torch()  # graphed() uses torch_rows' own reference to torch
        F = torch_rows.F
    return torch


class Geom:
    def __init__(self, c):
        for k, v in DIMS.items():
            setattr(self, k, int(c.named.get(k, v)))
        self.steps = int(c.steps or 64)
        self.dynamic = c.params.get("schedule", "fixed") == "dynamic"
        self.attn_only = c.params.get("part", "stack") == "attn"
        self.eps = float(c.params.get("eps", 1e-5))
        self.grp = self.heads // self.kv_heads
        self.nqkv = (self.heads + 2 * self.kv_heads) * self.head_dim
        self.qd = self.heads * self.head_dim


# ---- the plugin's work() hook: the bytes and flops klab's rows use --------------------------------------------

class KDim(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("value", ctypes.c_int64)]


class KParam(ctypes.Structure):
    _fields_ = [("key", ctypes.c_char_p), ("value", ctypes.c_char_p)]


class KCase(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_uint32), ("name", ctypes.c_char_p), ("rank", ctypes.c_int),
                ("dims", ctypes.c_int64 * 4), ("dtype", ctypes.c_int), ("nparams", ctypes.c_int),
                ("params", ctypes.POINTER(KParam)), ("nnamed", ctypes.c_int), ("named", ctypes.POINTER(KDim)),
                ("steps", ctypes.c_int64)]


class KWork(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_uint32), ("bytes", ctypes.c_double), ("flops", ctypes.c_double)]


WORK_FN = ctypes.CFUNCTYPE(None, ctypes.POINTER(KCase), ctypes.POINTER(KWork))


class KPlugin(ctypes.Structure):  # klab_plugin up to work (plugin.h, ABI 2.0)
    _fields_ = [("abi_major", ctypes.c_uint32), ("abi_minor", ctypes.c_uint32), ("struct_size", ctypes.c_uint32),
                ("profile_size", ctypes.c_uint32), ("name", ctypes.c_char_p), ("version", ctypes.c_char_p),
                ("summary", ctypes.c_char_p), ("profiles", ctypes.c_void_p), ("baseline", ctypes.c_char_p),
                ("dtypes", ctypes.c_uint32), ("min_cc", ctypes.c_int), ("archs", ctypes.c_void_p),
                ("params", ctypes.c_void_p), ("dims", ctypes.c_void_p), ("flags", ctypes.c_uint32),
                ("default_steps", ctypes.c_int64), ("setup", ctypes.c_void_p), ("run", ctypes.c_void_p),
                ("verify", ctypes.c_void_p), ("teardown", ctypes.c_void_p), ("work", ctypes.c_void_p)]


def plugin_work(build, c, dtype):
    """(bytes, flops) of one step from decode_replay.so's work(), or None where the plugin is not built."""
    so = os.path.join(build, "plugins", "decode_replay.so")
    if not os.path.exists(so):
        return None
    lib = ctypes.CDLL(so)
    entry = lib.klab_plugin_entry
    entry.restype = ctypes.POINTER(KPlugin)
    entry.argtypes = [ctypes.c_uint32, ctypes.c_uint32]
    p = entry(2, 0)
    if not p or not p.contents.work:
        return None
    dims = (KDim * max(1, len(c.named)))(*[KDim(k.encode(), int(v)) for k, v in c.named.items()])
    params = (KParam * max(1, len(c.params)))(*[KParam(k.encode(), v.encode()) for k, v in c.params.items()])
    k = KCase(ctypes.sizeof(KCase), c.name.encode(), 0, (ctypes.c_int64 * 4)(), {"fp16": 1, "bf16": 2}[dtype],
              len(c.params), params, len(c.named), dims, int(c.steps or 64))
    w = KWork(ctypes.sizeof(KWork), 0.0, 0.0)
    WORK_FN(p.contents.work)(ctypes.byref(k), ctypes.byref(w))
    return w.bytes, w.flops


# ---- the step ---------------------------------------------------------------------------------------------

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


# ---- timing -------------------------------------------------------------------------------------------------

def median_ci(xs, conf=0.95):
    """The median's interval at `conf` from order statistics, ranks as core/interval.c's
    interval_median_ranks: j..n+1-j with the largest j whose coverage 1 - 2 P(B <= j - 1) is still >= conf,
    B ~ binomial(n, 1/2). None where no j >= 1 reaches conf (n < 6 at 95 %). (Until 2026-11-22 this took
    ranks j+1..n-j: one rank narrower on each side, 78 % instead of 95 % at n = 6.)"""
    n = len(xs)
    tail, cdf, j, logp = (1 - conf) / 2, 0.0, 0, -n * math.log(2)
    while j < n:
        p = math.exp(logp)
        if cdf + p > tail * (1 + 1e-12):
            break
        cdf += p
        logp += math.log((n - j) / (j + 1))
        j += 1
    if j == 0:
        return None
    s = sorted(xs)
    return s[j - 1], s[n - j]


def quantile(s, p):
    i = min(len(s) - 1, max(0, math.ceil(p * len(s)) - 1))
    return s[i]


def time_steps(fn, n, hold_us, flush):
    t = torch
    ev = [(t.cuda.Event(enable_timing=True), t.cuda.Event(enable_timing=True)) for _ in range(n)]
    cycles = int(hold_us * 1.5e3)  # ~1.5 GHz: a spin of about hold_us
    for i in range(n):
        if flush is not None:
            flush.sum()
        t.cuda._sleep(cycles)
        ev[i][0].record()
        fn()
        ev[i][1].record()
        if i % 64 == 63:
            t.cuda.synchronize()
    t.cuda.synchronize()
    return [a.elapsed_time(b) for a, b in ev]


def row_of(a, c, dtype, profile, samples, work, err, sample_rel):
    s = sorted(samples)
    n = len(s)
    med = quantile(s, 0.5)
    ci = median_ci(samples)
    mean = sum(s) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in s) / max(1, n - 1))
    r = {k: "" for k in COLUMNS}
    r.update(run_id=a.run_id, plugin="decode_replay", case=c.name, dtype=dtype, profile=profile,
             l2="hot" if a.hot else "cold", launch="steps", batch=1, footprint_bytes=0,
             status="passed" if err <= TOL[dtype] else "incorrect", flags="external", reps=n, discarded=0,
             median_ms=med, p95_ms=quantile(s, 0.95), p99_ms=quantile(s, 0.99), min_ms=s[0], max_ms=s[-1],
             mean_ms=mean, noise=sd / mean, rel_l2_err=err, tolerance=TOL[dtype], seed=a.seed, schema=ROW_SCHEMA,
             samples_file=sample_rel)
    if err > TOL[dtype]:
        r["reason"] = f"relative L2 error {err:.3g} against float64 over {TOL[dtype]}"
    if ci:
        r.update(median_lo=ci[0], median_hi=ci[1], precision=(ci[1] - ci[0]) / (2 * med))
    if work:
        r.update(bytes=work[0], flops=work[1], gbps=work[0] / (med * 1e-3) / 1e9, tflops=work[1] / (med * 1e-3) / 1e12)
    return r


# ---- plan and run -------------------------------------------------------------------------------------------

def plan(a):
    ini = Ini(a.ini, plugins=("decode_replay",))
    if ini.plugin != "decode_replay":
        raise IniError(f"{a.ini}: plugin {ini.plugin}, expected decode_replay")
    return [(c, [d for d in c.dtypes if not a.dtypes or d in a.dtypes]) for c in ini.select(a.cases)]


def dry_run(a, work):
    print(f"# {os.path.relpath(a.ini, ROOT)} -> {a.out}/decode_replay_torch.csv, samples in "
          f"{a.out}/decode_replay.samples/; {a.steps} steps a row, {'hot' if a.hot else 'cold'}")
    for c, dts in work:
        g = Geom(c)
        what = "attention only" if g.attn_only else f"{g.layers} layers"
        sched = f"dynamic [{g.kv_min}, {g.kv}]" if g.dynamic else f"fixed {g.kv}"
        for d in dts:
            wk = plugin_work(a.build, c, d)
            b = f"{wk[0] / 1e6:.1f} MB a step" if wk else "bytes: decode_replay.so not built"
            print(f"  {c.name:<20} {d}  B={g.batch} {what}, hidden {g.hidden}, {g.heads}/{g.kv_heads} heads of "
                  f"{g.head_dim}, inter {g.inter}, KV {sched}, schedule rows {g.steps}: torch_eager, "
                  f"torch_cudagraph; {b}")
    if "torch" in sys.modules:
        print("error: --dry-run imported torch", file=sys.stderr)
        return 1
    return 0


def write_meta(a):
    """<out>/meta.ini, as klab writes a run's, through a libklab_bench session on decode_replay.so opened
    for it alone (its GPU, its cold or hot L2; no case is begun, its CSV is thrown away). Its [method]
    says klab's timer; [torch] timer says how this script's differs. Kept where klab's own run's is
    there (torch_rows.meta_is_klabs); skipped, with a line, where the plugin or the library is missing."""
    so = os.path.join(a.build, "plugins", "decode_replay.so")
    if torch_rows.meta_is_klabs(a.out):
        print(f"# {a.out}/meta.ini: klab's own run's, kept", flush=True)
        return
    try:
        lib = torch_rows.load(a.build)
        with tempfile.TemporaryDirectory() as tmp:
            b = torch_rows.Bench(lib, so, os.path.join(tmp, "unused.csv"), a.run_id, a.seed,
                                 "hot" if a.hot else "plain")
            try:
                b.write_meta(a.out, {**torch_rows.torch_meta(),
                                     "torch.timer": "tools/torch_decode.py: one step a sample between CUDA events, "
                                                    "a profile's steps in one run (not interleaved), the GPU held "
                                                    "by torch.cuda._sleep while a step is enqueued",
                                     "torch.steps": a.steps, "torch.hold_us": a.hold_us}, csv_schema=ROW_SCHEMA)
            finally:
                b.close()
    except (OSError, torch_rows.Fatal) as e:
        print(f"torch_decode: no meta.ini: {e}", file=sys.stderr)


def run(a, work):
    t = need_torch()
    os.makedirs(os.path.join(a.out, "decode_replay.samples"), exist_ok=True)
    write_meta(a)
    props = t.cuda.get_device_properties(0)
    l2 = getattr(props, "L2_cache_size", 60 << 20)
    flush = None if a.hot else t.empty(max(256 << 20, 4 * l2) // 4, dtype=t.float32, device="cuda").uniform_()
    out_csv = os.path.join(a.out, "decode_replay_torch.csv")
    print(f"# torch {t.__version__}, {t.cuda.get_device_name(0)} -> {out_csv}", flush=True)
    rows = []
    for c, dts in work:
        g = Geom(c)
        for d in dts:
            m = Model(g, {"fp16": t.float16, "bf16": t.bfloat16}[d], a.seed)
            ref = m.clone_as(t.float64)
            y = m.step().double()
            yr = ref.step()
            err = float((y - yr).norm() / yr.norm())
            del ref
            m.cursor.zero_()
            wk = plugin_work(a.build, c, d)
            for profile, fn in (("torch_eager", m.step), ("torch_cudagraph", graphed(m.step))):
                for _ in range(10):
                    fn()
                samples = time_steps(fn, a.steps, a.hold_us, flush)
                rel = f"decode_replay.samples/{c.name}.{d}.{profile}.csv"
                with open(os.path.join(a.out, rel), "w") as f:
                    f.write("step,ms\n")
                    for i, ms in enumerate(samples):
                        f.write(f"{i % g.steps},{ms:.6f}\n")
                r = row_of(a, c, d, profile, samples, wk, err, rel)
                rows.append(r)
                print(f"  {c.name:<20} {d} {profile:<16} p50 {r['median_ms']:.4f} p95 {r['p95_ms']:.4f} "
                      f"p99 {r['p99_ms']:.4f} max {r['max_ms']:.4f} ms  err {err:.2e}", flush=True)
            del m
            t.cuda.empty_cache()
    with open(out_csv, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS)
        w.writeheader()
        w.writerows(rows)
    return 0 if all(r["status"] == "passed" for r in rows) else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ini", default=os.path.join(ROOT, "ini", "decode_replay.ini"))
    ap.add_argument("--build", default="build")
    ap.add_argument("--out", default="out/torch")
    ap.add_argument("--run-id", default="torch")
    ap.add_argument("--seed", type=int, default=20261122)
    ap.add_argument("--cases", type=lambda s: [x for x in s.split(",") if x], default=[])
    ap.add_argument("--dtypes", type=lambda s: [x for x in s.split(",") if x], default=[])
    ap.add_argument("--steps", type=int, default=1000, help="samples a row (at least 1000)")
    ap.add_argument("--hold-us", type=float, default=2000, help="the spin that holds the GPU while a step is enqueued")
    ap.add_argument("--hot", action="store_true", help="no L2 flush before each step")
    ap.add_argument("--dry-run", action="store_true", help="print the plan; needs no torch or GPU")
    a = ap.parse_args()
    if a.steps < 1000:
        print("torch_decode: --steps must be at least 1000 (klab's step rows have at least 1000 samples)",
              file=sys.stderr)
        return 2
    try:
        work = plan(a)
    except (IniError, ValueError, KeyError) as e:
        print(f"torch_decode: {e}", file=sys.stderr)
        return 2
    return dry_run(a, work) if a.dry_run else run(a, work)


if __name__ == "__main__":
    sys.exit(main())
