#!/usr/bin/env python3
"""Thirteenth sitting, call 7: the cluster attention's splits (dim.chunk: positions a CTA, so KV length /
chunk CTAs a cluster) at small-16l, attn-only and llama8b-4l under graph_pdl; optionally probed."""
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
A = L + "param.part = attn\n"
var = [('S-c64', S, 'stream', 64), ('S-c128', S, 'stream', 128), ('S-c256', S, 'stream', 256),
       ('A-c256', A, 'plain', 256), ('A-c512', A, 'plain', 512), ('A-c1024', A, 'plain', 1024),
       ('L-c256', L, 'stream', 256), ('L-c512', L, 'stream', 512)]
for name, dims, gv, chunk in var:
    s = f"[case {name}]\n{dims}dim.chunk = {chunk}\nconfig = attn=mma_cluster,gemv={gv}\n"
    if probes:
        s += "param.probes = 1\n"
    out.append(s + "\n")
open(sys.argv[1], 'w').write(''.join(out))
