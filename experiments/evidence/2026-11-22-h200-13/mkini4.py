#!/usr/bin/env python3
"""Thirteenth sitting, call 4: the register GEMVs' and the attention's carveout at the most shared memory (param.carveout = max), with gemv=stream at 16 stages, 8, and 8 padded
(param.stream_splits) at llama8b-4l and small-16l, attn=mma_cluster; optionally probed."""
import sys
probes = len(sys.argv) > 2 and sys.argv[2] == 'probes'
out = ["""[experiment]
plugin = decode_replay

[defaults]
dtypes = fp16
profiles = graph, graph_pdl
dim.head_dim = 128
budget_ms = 3000
steps = 64

"""]
L = "dim.batch = 1\ndim.layers = 4\ndim.hidden = 4096\ndim.heads = 32\ndim.kv_heads = 8\ndim.inter = 14336\ndim.kv = 4096\n"
S = "dim.batch = 1\ndim.layers = 16\ndim.hidden = 2048\ndim.heads = 16\ndim.kv_heads = 4\ndim.inter = 8192\ndim.kv = 1024\n"
var = [('L-16', L, 'stream', None, '', 'graph_pdl'),
       ('L-16c', L, 'stream', None, 'c', 'graph, graph_pdl'),
       ('L-8pc', L, 'stream', 8, 'pc', 'graph, graph_pdl'),
       ('L-8c', L, 'stream', 8, 'c', 'graph_pdl'),
       ('S-8', S, 'stream', 8, '', 'graph_pdl'),
       ('S-8c', S, 'stream', 8, 'c', 'graph_pdl'),
       ('S-8pc', S, 'stream', 8, 'pc', 'graph_pdl'),
       ('S-16c', S, 'stream', None, 'c', 'graph_pdl')]
for name, dims, gv, st, sp, prof in var:
    s = f"[case {name}]\n{dims}config = attn=mma_cluster,gemv={gv}\nprofiles = {prof}\n"
    if st:
        s += f"param.stream_stages = {st}\n"
    if 'p' in sp:
        s += "param.stream_pad = yes\n"
    if 'c' in sp:
        s += "param.carveout = max\n"
    if probes:
        s += "param.probes = 1\n"
    out.append(s + "\n")
open(sys.argv[1], 'w').write(''.join(out))
