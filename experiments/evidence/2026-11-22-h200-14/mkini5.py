#!/usr/bin/env python3
"""Fourteenth sitting, call 5: persistent gated gate/up (param.stream_gateup = 1) against the register GEMV (0),
graph_pdl's own configuration otherwise, in turn ABAB at llama8b-4l B = 1, and at B = 8 and small-16l; with
'verify' a small stack whose gate/up has more tiles than the device holds CTAs (several tiles a CTA)."""
import sys
mode = sys.argv[2] if len(sys.argv) > 2 else ''
out = ["""[experiment]
plugin = decode_replay

[defaults]
dtypes = fp16
profiles = graph_pdl
dim.head_dim = 128
budget_ms = 3000
steps = 64

"""]
L = "dim.batch = 1\ndim.layers = 4\ndim.hidden = 4096\ndim.heads = 32\ndim.kv_heads = 8\ndim.inter = 14336\ndim.kv = 4096\n"
S = "dim.batch = 1\ndim.layers = 16\ndim.hidden = 2048\ndim.heads = 16\ndim.kv_heads = 4\ndim.inter = 8192\ndim.kv = 1024\n"
L8 = L.replace("dim.batch = 1", "dim.batch = 8")
P = "dim.batch = 3\ndim.layers = 2\ndim.hidden = 1032\ndim.heads = 8\ndim.kv_heads = 2\ndim.head_dim = 64\ndim.inter = 32776\ndim.kv = 300\nparam.schedule = dynamic\nsteps = 6\n"
if mode == 'verify':
    out[0] = out[0].replace("dtypes = fp16", "dtypes = fp16, bf16").replace("profiles = graph_pdl", "profiles = eager, graph, graph_pdl")
    var = [('P-persist', P, 1)]
else:
    var = [('L-g1', L, 1), ('L-g0', L, 0), ('L-g1-b', L, 1), ('L-g0-b', L, 0),
           ('L8-g1', L8, 1), ('L8-g0', L8, 0), ('S-g1', S, 1), ('S-g0', S, 0)]
for name, dims, g in var:
    s = f"[case {name}]\n{dims}config = attn=mma_cluster,gemv=stream\nparam.stream_gateup = {g}\n"
    out.append(s + "\n")
open(sys.argv[1], 'w').write(''.join(out))
