#!/usr/bin/env python3
"""Fourteenth sitting, call 8: small-16l with gate/up streamed (param.stream_gateup = 1, gated tiles as one 4-D box)
against the register GEMV (0, the final rule's at B = 1 below hidden 4096), in turn ABAB, graph_pdl."""
import sys
out = ["""[experiment]
plugin = decode_replay

[defaults]
dtypes = fp16
profiles = graph_pdl
dim.head_dim = 128
budget_ms = 3000
steps = 64

"""]
S = "dim.batch = 1\ndim.layers = 16\ndim.hidden = 2048\ndim.heads = 16\ndim.kv_heads = 4\ndim.inter = 8192\ndim.kv = 1024\n"
for name, g in [('S-g1', 1), ('S-g0', 0), ('S-g1-b', 1), ('S-g0-b', 0)]:
    out.append(f"[case {name}]\n{S}config = attn=mma_cluster,gemv=stream\nparam.stream_gateup = {g}\n\n")
open(sys.argv[1], 'w').write(''.join(out))
