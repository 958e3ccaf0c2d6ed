#!/usr/bin/env python3
"""Thirteenth sitting's variant INI: llama8b-4l (and small-16l) with attn=mma_cluster_l2 at several
prefetch fractions and hints against attn=mma_cluster, gemv named; optionally probed."""
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
L = """dim.batch = 1
dim.layers = 4
dim.hidden = 4096
dim.heads = 32
dim.kv_heads = 8
dim.inter = 14336
dim.kv = 4096
"""
S = """dim.batch = 1
dim.layers = 16
dim.hidden = 2048
dim.heads = 16
dim.kv_heads = 4
dim.inter = 8192
dim.kv = 1024
"""
var = [('llama-base', L, 'mma_cluster', 'stream', None, None),
       ('llama-l2', L, 'mma_cluster_l2', 'stream', None, None),
       ('llama-l2-last', L, 'mma_cluster_l2', 'stream', None, 'last'),
       ('llama-l2-half', L, 'mma_cluster_l2', 'stream', 0.5, None),
       ('llama-l2-half-last', L, 'mma_cluster_l2', 'stream', 0.5, 'last'),
       ('small-base', S, 'mma_cluster', 'plain', None, None),
       ('small-l2', S, 'mma_cluster_l2', 'plain', None, None),
       ('small-l2-last', S, 'mma_cluster_l2', 'plain', None, 'last')]
for name, dims, a, gv, frac, hint in var:
    s = f"[case {name}]\n{dims}config = attn={a},gemv={gv}\n"
    if frac is not None:
        s += f"param.l2_prefetch = {frac}\n"
    if hint:
        s += f"param.l2_hint = {hint}\n"
    if probes:
        s += "param.probes = 1\n"
    out.append(s + "\n")
open(sys.argv[1], 'w').write(''.join(out))
