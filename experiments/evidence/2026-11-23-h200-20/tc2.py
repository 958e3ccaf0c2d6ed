#!/usr/bin/env python3
"""torch.compile's RMSNorm (tools/torch_rows.py's rms_eager) at rows x cols in dtype: warmed, then one call
between cudaProfilerStart/Stop (ncu --profile-from-start off). With TRITON_CACHE_DIR set, the kernel's PTX,
cubin and metadata land there. Usage: tc2.py ROWS COLS fp16|fp32|bf16 [rms|copy]"""
import sys, torch
def rms_eager(x, w, eps):
    xf = x.float()
    return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)).to(x.dtype) * w
def scale(x, w, eps):  # a pointwise pass: Triton's copy at the same bytes
    return x * 1.5
m, n, d = int(sys.argv[1]), int(sys.argv[2]), {"fp16": torch.float16, "fp32": torch.float32, "bf16": torch.bfloat16}[sys.argv[3]]
fn = scale if len(sys.argv) > 4 and sys.argv[4] == "copy" else rms_eager
x = torch.randn(m, n, device="cuda", dtype=d); w = torch.randn(n, device="cuda", dtype=d)
f = torch.compile(fn, dynamic=False)
for _ in range(5): f(x, w, 1e-6)
torch.cuda.synchronize(); torch.cuda.cudart().cudaProfilerStart(); f(x, w, 1e-6); torch.cuda.synchronize(); torch.cuda.cudart().cudaProfilerStop()
