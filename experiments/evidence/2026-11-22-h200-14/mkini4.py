#!/usr/bin/env python3
"""Fourteenth sitting, call 4: gate/up on the stream (gated tiles, resident tokens, param.stream_gateup = 1)
against the register GEMV (0), graph_pdl's own configuration otherwise (attn=mma_cluster,gemv=stream, QKV
by its rule), in turn ABAB, at llama8b-4l B = 1 and 8, small-16l; optionally probed (one of each)."""
import sys
probes = len(sys.argv) > 2 and sys.argv[2] == 'probes'
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
var = [('L-g1', L, 1), ('L-g0', L, 0), ('L-g1-b', L, 1), ('L-g0-b', L, 0),
       ('L8-g1', L8, 1), ('L8-g0', L8, 0), ('L8-g1-b', L8, 1), ('L8-g0-b', L8, 0),
       ('S-g1', S, 1), ('S-g0', S, 0)]
if probes:
    var = [v for v in var if not v[0].endswith('-b')]
for name, dims, g in var:
    s = f"[case {name}]\n{dims}config = attn=mma_cluster,gemv=stream\nparam.stream_gateup = {g}\n"
    if probes:
        s += "param.probes = 1\n"
    out.append(s + "\n")
open(sys.argv[1], 'w').write(''.join(out))
