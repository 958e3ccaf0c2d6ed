#!/usr/bin/env python3
"""torch.compile's RMSNorm at fp32 1024x32768 (tools/torch_rows.py's rms_eager), warmed, then one profiled call."""
import torch
def rms_eager(x, w, eps):
    xf = x.float()
    return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)).to(x.dtype) * w
x = torch.randn(1024, 32768, device="cuda"); w = torch.randn(32768, device="cuda")
f = torch.compile(rms_eager, dynamic=False)
for _ in range(5): f(x, w, 1e-6)
torch.cuda.synchronize(); torch.cuda.cudart().cudaProfilerStart(); f(x, w, 1e-6); torch.cuda.synchronize(); torch.cuda.cudart().cudaProfilerStop()
