#!/usr/bin/env python3
"""Twelfth sitting: what torch.compile's RMSNorm kernel is at the rows where it reaches the copy rate
(fp32 1024x32768: 98.6 % of klab's copy, klab 85.1 %) and where it does not (fp16 512x65536, 66 %).
Run under ncu --profile-from-start off: each shape is compiled and warmed (Inductor autotunes its
reduction configs on the first calls), then one profiled call."""
import sys, torch
def rms_eager(x, w, eps):  # tools/torch_rows.py's rms_eager, the function klab times as torch.compile
    xf = x.float()
    return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)).to(x.dtype) * w
torch._dynamo.config.recompile_limit = 64
shapes = [((1024, 32768), torch.float32), ((512, 65536), torch.float16), ((1024, 32768), torch.float16), ((256, 131072), torch.float32)]
for (m, n), dt in shapes:
    x = torch.randn(m, n, device="cuda", dtype=dt); w = torch.randn(n, device="cuda", dtype=dt)
    f = torch.compile(rms_eager, dynamic=False)
    for _ in range(5): f(x, w, 1e-6)
    torch.cuda.synchronize()
    torch.cuda.cudart().cudaProfilerStart(); f(x, w, 1e-6); torch.cuda.synchronize(); torch.cuda.cudart().cudaProfilerStop()
    print("shape", m, n, dt, flush=True)
