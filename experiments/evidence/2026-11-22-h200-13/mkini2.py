#!/usr/bin/env python3
"""Thirteenth sitting, call 2: gemv=stream's ring depth (param.stream_stages 16 / 8) and K splits
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
var = [('L-16', L, 'stream', None, None, 'graph, graph_pdl'),
       ('L-8', L, 'stream', 8, None, 'graph, graph_pdl'),
       ('L-8-s4', L, 'stream', 8, 4, 'graph_pdl'),
       ('S-plain', S, 'plain', None, None, 'graph_pdl'),
       ('S-16', S, 'stream', None, None, 'graph_pdl'),
       ('S-8', S, 'stream', 8, None, 'graph_pdl'),
       ('S-8-s2', S, 'stream', 8, 2, 'graph_pdl'),
       ('S-8-s8', S, 'stream', 8, 8, 'graph_pdl')]
for name, dims, gv, st, sp, prof in var:
    s = f"[case {name}]\n{dims}config = attn=mma_cluster,gemv={gv}\nprofiles = {prof}\n"
    if st:
        s += f"param.stream_stages = {st}\n"
    if sp:
        s += f"param.stream_splits = {sp}\n"
    if probes:
        s += "param.probes = 1\n"
    out.append(s + "\n")
open(sys.argv[1], 'w').write(''.join(out))
