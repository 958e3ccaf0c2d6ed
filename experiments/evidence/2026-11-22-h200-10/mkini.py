#!/usr/bin/env python3
"""Writes the INI of the tenth sitting's call 2: attn-only (4 layers of llama8b's attention, B = 1) at KV
lengths 512, 1024, 2048, 4096 and 16384, attn=mma_cluster and attn=mma_tma named, probed: the attention's span
against the bytes it reads, so its fixed part (the latency chain) and its slope (the bandwidth) separate."""
import sys
out = ["""[experiment]
plugin = decode_replay

[defaults]
dtypes = fp16
profiles = graph, graph_pdl
dim.head_dim = 128
budget_ms = 2500
steps = 64

"""]
for kv in (512, 1024, 2048, 4096, 16384):
    for a in ('mma_cluster', 'mma_tma'):
        out.append(f"""[case attn-kv{kv}-{a.replace('mma_', '')}]
dim.batch = 1
dim.layers = 4
dim.hidden = 4096
dim.heads = 32
dim.kv_heads = 8
dim.inter = 14336
dim.kv = {kv}
param.part = attn
param.probes = 1
config = attn={a},gemv=plain

""")
open(sys.argv[1], 'w').write(''.join(out))
